#ifndef PM_STORE_TICKS_H
#define PM_STORE_TICKS_H
/* The run's samples in results.db: one row per tick whose JSON array holds
 * every series' value by position, the positions named once per run in
 * tick_series (the `sample` view gives (run, seq, name, value) back). The
 * sampler is handed this as its tick writer, so it knows no SQL. It has a
 * connection of its own: the sampler thread writes while the run's
 * connection is used by the main thread. */
#include <sqlite3.h>
#include "lib/series.h"
#include "store/db.h"

struct tick_store {
    struct tick_writer base;
    struct pm_db db;
    sqlite3_stmt *ins_tick, *ins_series, *begin, *commit;
    int64_t run_id;
    char *json;                       /* this tick's values, encoded */
    size_t json_cap;
    bool full;                        /* a write failed for a full filesystem */
};

int tick_store_open(struct tick_store *ts, const char *db_path, int64_t run_id, struct pm_err *err);
void tick_store_close(struct tick_store *ts);

#endif
