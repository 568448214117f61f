/* What measuring cost, every run: the sampler's ticks and lateness, the
 * heartbeat's, pressmark's own memory. */
#include "harness/observer.h"
#include <sys/resource.h>
#include "workloads/workload.h"

enum { SAMPLER_TICKS, SAMPLER_MISSED_TICKS, SAMPLER_LATE_P99_MS, SAMPLER_CPU_S, SAMPLER_STORE_DEFERRED,
    HEARTBEAT_BEATS, HEARTBEAT_LATE_P50_MS, HEARTBEAT_LATE_P99_MS, HEARTBEAT_LATE_MAX_MS, HEARTBEAT_SKIPPED,
    PRESSMARK_MAXRSS_KB };
static const struct metric_def observer_defs[] = {
    [SAMPLER_TICKS] = METRIC("sampler.ticks", "count", PM_NEITHER, "samples taken"),
    [SAMPLER_MISSED_TICKS] = METRIC("sampler.missed_ticks", "count", PM_LOWER,
                  "sampling intervals passed without a sample"),
    [SAMPLER_LATE_P99_MS] = METRIC("sampler.late_p99_ms", "ms", PM_LOWER,
                  "99th percentile of how late a sample was taken"),
    [SAMPLER_CPU_S] = METRIC("sampler.cpu_s", "s", PM_LOWER, "CPU time of the sampling thread"),
    [SAMPLER_STORE_DEFERRED] = METRIC("sampler.store_deferred", "count", PM_NEITHER,
                  "times the samples waited in memory because another writer held the database (written a moment "
                  "later)"),
    [HEARTBEAT_BEATS] = METRIC("heartbeat.beats", "count", PM_NEITHER,
                  "wake-ups of the heartbeat thread (every 100 ms)"),
    [HEARTBEAT_LATE_P50_MS] = METRIC("heartbeat.late_p50_ms", "ms", PM_LOWER,
                  "median of how late it woke (a stall of the whole machine shows here)"),
    [HEARTBEAT_LATE_P99_MS] = METRIC("heartbeat.late_p99_ms", "ms", PM_LOWER, "99th percentile of how late it woke"),
    [HEARTBEAT_LATE_MAX_MS] = METRIC("heartbeat.late_max_ms", "ms", PM_LOWER, "the latest it woke"),
    [HEARTBEAT_SKIPPED] = METRIC("heartbeat.skipped", "count", PM_LOWER,
                  "beats lost to a wake-up later than a whole period"),
    [PRESSMARK_MAXRSS_KB] = METRIC("pressmark.maxrss_kb", "KB", PM_LOWER, "pressmark's own largest resident set"),
};
const struct metric_group observer_metrics = METRIC_GROUP("observer: what measuring cost (every run)", observer_defs);

void observer_put_metrics(struct run_ctx *rc, struct sampler *s, struct heartbeat *hb, uint64_t deferred)
{
    struct sampler_stats ss;
    sampler_stats(s, &ss);
    run_metric(rc, &observer_defs[SAMPLER_STORE_DEFERRED], (double)deferred);
    run_metric(rc, &observer_defs[SAMPLER_TICKS], (double)ss.ticks);
    run_metric(rc, &observer_defs[SAMPLER_MISSED_TICKS], (double)ss.missed);
    run_metric(rc, &observer_defs[SAMPLER_LATE_P99_MS], ss.late_p99_ms);
    run_metric(rc, &observer_defs[SAMPLER_CPU_S], ss.cpu_s);
    struct heartbeat_stats hs;
    heartbeat_stats(hb, &hs);
    run_metric(rc, &observer_defs[HEARTBEAT_BEATS], (double)hs.beats);
    run_metric(rc, &observer_defs[HEARTBEAT_SKIPPED], (double)hs.skipped);
    run_metric(rc, &observer_defs[HEARTBEAT_LATE_P50_MS], hs.p50_ms);
    run_metric(rc, &observer_defs[HEARTBEAT_LATE_P99_MS], hs.p99_ms);
    run_metric(rc, &observer_defs[HEARTBEAT_LATE_MAX_MS], hs.max_ms);
    struct rusage self;
    if (getrusage(RUSAGE_SELF, &self) == 0)
        run_metric(rc, &observer_defs[PRESSMARK_MAXRSS_KB], (double)self.ru_maxrss);
}
