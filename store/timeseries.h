#ifndef PM_TIMESERIES_H
#define PM_TIMESERIES_H
/* Per-tick views of a run for charts: rates and percentages derived from
 * consecutive raw samples (swap KB/s, CPU %, PSI % of time) and levels
 * (free memory, heartbeat lateness). NaN where a source had no value. */
#include <stddef.h>
#include <stdint.h>
#include "store/db.h"

enum ts_col {
    TS_SWAPIN, TS_SWAPOUT, TS_SWAPIO,          /* KB/s */
    TS_USER, TS_SYSTEM, TS_IOWAIT,             /* % of all CPUs */
    TS_MEMFREE, TS_MEMAVAIL, TS_SWAPFREE,      /* MiB */
    TS_PSI_SOME, TS_PSI_FULL,                  /* % of the interval */
    TS_BEAT_MS,                                /* worst heartbeat lateness in the interval */
    TS_SCAN, TS_STEAL, TS_REFAULT,             /* pages per second, all reclaim */
    TS_WL_P99_US,                              /* the workload's own p99 latency over its last window */
    TS_NCOLS
};

extern const char *const ts_col_names[TS_NCOLS];

struct timeseries {
    size_t n;                    /* ticks after the first (rates need two) */
    double *t;                   /* seconds since the run's first tick */
    double *v[TS_NCOLS];
};

int timeseries_load(struct pm_db *db, int64_t run_id, struct timeseries *ts, struct pm_err *err);
void timeseries_free(struct timeseries *ts);

/* The mean of several runs' series by tick index (runs sampled at the
 * same interval line up tick for tick). */
int timeseries_mean(const struct timeseries *runs, size_t nruns, struct timeseries *out);

#endif
