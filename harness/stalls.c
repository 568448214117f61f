#include "harness/stalls.h"
#include <stdio.h>
#include <string.h>
#include "store/latency_hist.h"

enum { STALL_COUNT, STALL_TOTAL_MS, STALL_P50_US, STALL_P90_US, STALL_P99_US, STALL_MAX_US, STALL_EVENTS,
    STALL_LOST_EVENTS, STALL_UNPAIRED, STALL_NESTED };
static const struct metric_def stall_defs[] = {
    [STALL_COUNT] = METRIC("stall.<kind>.count", "stalls", PM_LOWER, "stalls of this kind"),
    [STALL_TOTAL_MS] = METRIC("stall.<kind>.total_ms", "ms", PM_LOWER, "their summed duration"),
    [STALL_P50_US] = METRIC("stall.<kind>.p50_us", "us", PM_LOWER, "median duration (within 0.8%)"),
    [STALL_P90_US] = METRIC("stall.<kind>.p90_us", "us", PM_LOWER, "90th percentile duration"),
    [STALL_P99_US] = METRIC("stall.<kind>.p99_us", "us", PM_LOWER, "99th percentile duration"),
    [STALL_MAX_US] = METRIC("stall.<kind>.max_us", "us", PM_LOWER, "the longest"),
    [STALL_EVENTS] = METRIC("stall.events", "events", PM_NEITHER, "trace events read"),
    [STALL_LOST_EVENTS] = METRIC("stall.lost_events", "events", PM_LOWER,
                  "events the trace buffers dropped (the stalls are then a lower bound)"),
    [STALL_UNPAIRED] = METRIC("stall.unpaired", "events", PM_NEITHER,
                  "an end without its begin or the reverse (the run's edges)"),
    [STALL_NESTED] = METRIC("stall.nested", "events", PM_NEITHER,
                  "a begin inside an open stall of the same task and kind"),
};
const struct metric_group harness_stall_metrics = METRIC_GROUP(
    "stall: --trace-reclaim, each stall from its begin to its end tracepoint per task (trace buffers); <kind> is direct (direct reclaim), memcg (a cgroup's limit reclaim) or compaction",
    stall_defs);

int harness_trace_start(struct run_trace *rt, pid_t pid, struct pm_err *err)
{
    memset(rt, 0, sizeof *rt);
    if (trace_instance_create(&rt->ti, pid, STALL_BUFFER_KB, err) < 0)
        return -1;
    rt->made = true;
    if (stalltrace_start(&rt->st, rt->ti.dir, err) < 0) {
        trace_instance_remove(&rt->ti);
        rt->made = false;
        return -1;
    }
    rt->reading = true;
    return 0;
}

void harness_trace_finish(struct run_trace *rt, struct metric_set *metrics, struct kv_list *meta)
{
    if (!rt->reading)
        return;
    /* Stop recording first, so the drain that follows reads to the end. */
    trace_instance_stop(&rt->ti);
    struct pm_err err = { "" };
    int rc = stalltrace_stop(&rt->st, &err);
    rt->reading = false;
    trace_instance_remove(&rt->ti);
    rt->made = false;
    rt->finished = true;
    pm_kv_set(meta, "trace.clock", "mono");
    char v[64];
    snprintf(v, sizeof v, "%u", STALL_BUFFER_KB);
    pm_kv_set(meta, "trace.buffer_kb", v);
    pm_kv_set(meta, "trace.events", "vmscan:mm_vmscan_direct_reclaim_begin/end vmscan:mm_vmscan_memcg_reclaim_begin/end "
                                 "compaction:mm_compaction_begin/end");
    if (rc < 0)
        pm_kv_set(meta, "trace.error", err.msg);
    const struct stall_result *r = &rt->st.res;
    uint64_t unpaired = 0, nested = 0;
    for (int k = 0; k < STALL_KINDS; k++) {
        const struct loghist *h = &r->hist[k];
        const char *kind = stall_kind_names[k];
        metric_put_word(metrics, &stall_defs[STALL_COUNT], kind, (double)h->count);
        metric_put_word(metrics, &stall_defs[STALL_TOTAL_MS], kind, (double)(h->sum / 1e6L));
        if (h->count) {
            metric_put_word(metrics, &stall_defs[STALL_P50_US], kind, loghist_percentile(h, 50) / 1e3);
            metric_put_word(metrics, &stall_defs[STALL_P90_US], kind, loghist_percentile(h, 90) / 1e3);
            metric_put_word(metrics, &stall_defs[STALL_P99_US], kind, loghist_percentile(h, 99) / 1e3);
            metric_put_word(metrics, &stall_defs[STALL_MAX_US], kind, (double)h->max / 1e3);
        }
        unpaired += r->unpaired[k];
        nested += r->nested[k];
    }
    metric_put(metrics, &stall_defs[STALL_LOST_EVENTS], (double)r->lost);
    metric_put(metrics, &stall_defs[STALL_UNPAIRED], (double)unpaired);
    metric_put(metrics, &stall_defs[STALL_NESTED], (double)nested);
    metric_put(metrics, &stall_defs[STALL_EVENTS], (double)r->events);
}

int harness_trace_hists(struct run_trace *rt, struct run_hists *into)
{
    if (!rt->finished)
        return 0;
    for (int k = 0; k < STALL_KINDS; k++) {
        char name[64];
        snprintf(name, sizeof name, "stall.%s", stall_kind_names[k]);
        if (rt->st.res.hist[k].count && store_run_hists_put(into, name, &rt->st.res.hist[k]) < 0)
            return -1;
    }
    return 0;
}

void harness_trace_free(struct run_trace *rt)
{
    if (rt->reading) {
        trace_instance_stop(&rt->ti);
        struct pm_err err;
        stalltrace_stop(&rt->st, &err);
        rt->reading = false;
    }
    if (rt->made) {
        trace_instance_remove(&rt->ti);
        rt->made = false;
    }
    stalltrace_free(&rt->st);
    rt->finished = false;
}
