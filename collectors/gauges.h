#ifndef PM_GAUGES_H
#define PM_GAUGES_H
/* Values a workload measures about itself while it runs (the chat's p99
 * delivery latency over its last window), sampled with the kernel's
 * counters at every tick so a chart can put them side by side. The
 * workload's threads set them; the sampler's thread reads them: lock-free
 * on both sides, a name added once and never removed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define GAUGES_MAX 8
#define GAUGE_NAME_MAX 64

struct gauge {
    char name[GAUGE_NAME_MAX];
    _Atomic uint64_t bits;        /* the double's bits: atomic doubles need not be lock-free */
};

struct gauges {
    struct gauge g[GAUGES_MAX];
    atomic_size_t n;              /* published names: g[0..n) */
    pthread_mutex_t mu;           /* adding a name */
};

void gauges_init(struct gauges *gs);
void gauges_destroy(struct gauges *gs);
/* Set the gauge called name (added on first use). -1 when the board is
 * full or the name too long: the value is dropped, the run goes on. */
int gauges_set(struct gauges *gs, const char *name, double v);

#endif
