#ifndef PM_LINEPROTO_H
#define PM_LINEPROTO_H
/* InfluxDB line protocol, as push sends it and export writes it: one
 * formatter, so a file from export is what push would have sent. A run is
 * one point, measurement pressmark_WORKLOAD, tags host, kernel, label,
 * run (its UUID), status and workload, its metrics as fields, stamped
 * with its start; each tick a point of pressmark_WORKLOAD_samples with the
 * same tags, the series' values as fields, stamped with the run's start +
 * the tick's t_ns. Names are escaped as the protocol asks (a backslash
 * too, so a name ending in one cannot swallow the '=' after it), a line
 * break inside one becomes a space (it would end the point), and values
 * are written exactly (lib/units.h pm_fmt_exact). Points are appended to
 * a buffer: push batches many, export writes and empties it per point. */
#include <stdbool.h>
#include <stddef.h>
#include "store/db.h"
#include "store/runinfo.h"
#include "store/ticks.h"

struct lp_buf {
    char *p;                    /* NUL-terminated */
    size_t n, cap;
};

/* Which names go out (export's --series); NULL keeps every one. */
typedef bool (*lp_keep_fn)(void *ctx, const char *name);

/* The run's point (its metrics; "runs=1" when it has none, so it still
 * marks its place). -1 with err (out of memory, the database). */
int lp_run_point(struct pm_db *db, const struct run_head *h, lp_keep_fn keep, void *ctx, struct lp_buf *b,
                 struct pm_err *err);
/* The reader's current tick as a point; keep (when not NULL) has a flag
 * per series position. "ticks=1" when no kept series has a value yet.
 * -1 only when out of memory. */
int lp_tick_point(const struct run_head *h, const struct tick_reader *rd, const bool *keep, struct lp_buf *b);
void lp_buf_free(struct lp_buf *b);

#endif
