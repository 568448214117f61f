#ifndef PM_STORE_TICKS_H
#define PM_STORE_TICKS_H
/* The run's samples in results.db: one row per tick holding what changed
 * since the previous tick (store/tickcodec.h), the series named once per
 * run in tick_series (the `sample` view gives (run, seq, name, value) back
 * for every tick). The sampler is handed this as its tick writer, so it
 * knows no SQL. It has a connection of its own: the sampler thread writes
 * while the run's connection is used by the main thread.
 *
 * Ticks are committed together, once a second of them has gathered (every
 * tick at intervals of 1 s and more): a commit per tick was most of the
 * sampler's cost at short intervals. A crash of pressmark loses at most
 * the last second of samples; a write that fails (a full disk) loses the
 * ticks since the last commit. */
#include <sqlite3.h>
#include "lib/series.h"
#include "store/db.h"
#include "store/tickcodec.h"

#define TICK_COMMIT_NS 1000000000ull

struct tick_store {
    struct tick_writer base;
    struct pm_db db;
    sqlite3_stmt *ins_tick, *ins_series, *begin, *commit;
    int64_t run_id;
    struct tick_encoder enc;
    bool in_tx;                       /* ticks written since the last commit */
    uint64_t tx_start_ns;             /* t_ns of the first of them */
    uint64_t pending, committed;      /* ticks written since the last commit, and before */
    bool full;                        /* a write failed for a full filesystem */
};

int tick_store_open(struct tick_store *ts, const char *db_path, int64_t run_id, struct pm_err *err);
/* Commits what is pending, then closes. */
void tick_store_close(struct tick_store *ts);

/* Reading a run's ticks back: every series' value at every tick. */
struct tick_reader {
    sqlite3_stmt *st;
    size_t n;                 /* series in the run */
    char **names;             /* by position */
    bool *real;
    int64_t *since;           /* the first tick a series had a value in */
    int64_t *acc;             /* fixed-point values as of the current tick */
    int64_t seq, t_ns;        /* the current tick */
};

int tick_reader_open(struct tick_reader *r, struct pm_db *db, int64_t run_id, struct pm_err *err);
/* 1 with the next tick's values in place, 0 after the last, -1 on error. */
int tick_reader_next(struct tick_reader *r, struct pm_err *err);
/* False where series i had no value yet at the current tick. */
bool tick_reader_value(const struct tick_reader *r, size_t i, double *v);
/* The position of the series called name, or -1. */
int tick_reader_find(const struct tick_reader *r, const char *name);
void tick_reader_close(struct tick_reader *r);

#endif
