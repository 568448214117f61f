#ifndef PM_HEARTBEAT_H
#define PM_HEARTBEAT_H
/* The heartbeat is the reports' "vmstat beats": a thread that asks to wake every
 * period and records how late it actually woke. Under memory pressure a
 * system that stalls shows it here first (the 2001 swap-out report: "vmstat skips beats"). */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/err.h"
#include "lib/periodic.h"

struct heartbeat {
    uint64_t period_ns;
    struct periodic thread;    /* its beats; what it skipped is the thread's missed */
    int64_t *late_ns;          /* one entry per beat, owned by the thread until stop */
    size_t n, cap;
    atomic_uint_fast64_t beats;
    atomic_int_fast64_t late_max_since_sample;   /* reset by each sampler tick */
    bool alloc_failed;
};

struct heartbeat_stats {
    uint64_t beats, skipped;
    double p50_ms, p99_ms, max_ms;
};

int heartbeat_start(struct heartbeat *hb, uint64_t period_ns, struct pm_err *err);
void heartbeat_stop(struct heartbeat *hb);
/* After stop: percentiles of lateness over every beat. */
int heartbeat_stats(struct heartbeat *hb, struct heartbeat_stats *out);
void heartbeat_free(struct heartbeat *hb);

#endif
