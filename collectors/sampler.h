#ifndef PM_SAMPLER_H
#define PM_SAMPLER_H
/* The sampler thread owns the clock and the transaction: it wakes on absolute
 * CLOCK_MONOTONIC deadlines (so intervals never drift), asks each collector
 * for its values, and hands the tick to a writer. It takes a tick at
 * start and one at stop so that run totals cover exactly the run. Where
 * ticks are stored is the writer's business (store/ticks.c). */
#include <stdbool.h>
#include <stdint.h>
#include "collectors/collector.h"
#include "lib/periodic.h"
#include "lib/series.h"

struct sampler {
    struct collector *cols;
    size_t ncols;
    struct series_table table;
    struct tick_writer *writer;       /* where ticks go (the database's, in the run) */
    size_t stored_series;             /* series the writer has been told of */
    uint64_t interval_ns, t0;
    uint64_t seq;
    uint64_t last_tick_ns;            /* for per-tick rates */
    struct periodic thread;           /* its ticks on the grid t0 + k * interval */
    int64_t *late_ns;                 /* per tick: how late the tick woke */
    size_t nlate, caplate;
    double cpu_s;                     /* the sampler thread's own CPU time */
    bool failed;
    struct pm_err err;
};

struct sampler_stats {
    uint64_t ticks, missed;
    double late_p50_ms, late_p99_ms, late_max_ms;
    double cpu_s;
};

/* Collectors must already be opened (those that failed to open are skipped). */
int sampler_start(struct sampler *s, struct tick_writer *writer, uint64_t interval_ns,
                  struct collector *cols, size_t ncols, struct pm_err *err);
/* Take the final tick, join the thread, close the connection. The series
 * table stays valid for deriving metrics until sampler_free. */
int sampler_stop(struct sampler *s, struct pm_err *err);
void sampler_stats(struct sampler *s, struct sampler_stats *out);
void sampler_free(struct sampler *s);

#endif
