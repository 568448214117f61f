#ifndef PM_HARNESS_OBSERVER_H
#define PM_HARNESS_OBSERVER_H
/* The observer's metrics: what measuring a run cost. */
#include <stdint.h>
#include "collectors/heartbeat.h"
#include "collectors/sampler.h"
#include "lib/metrics.h"

struct run_ctx;

/* Their declarations (help metrics, the strict check). */
extern const struct metric_group observer_metrics;
/* Store them for the run: the sampler's and heartbeat's statistics,
 * deferred the times its ticks waited for the database. */
void observer_put_metrics(struct run_ctx *rc, struct sampler *s, struct heartbeat *hb, uint64_t deferred);

#endif
