#include "harness/stalls.h"
#include <stdio.h>
#include <string.h>
#include "store/latency.h"

int run_trace_start(struct run_trace *rt, pid_t pid, struct pm_err *err)
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

void run_trace_finish(struct run_trace *rt, struct metric_set *metrics, struct kv_list *meta)
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
    kv_set(meta, "trace.clock", "mono");
    char v[64];
    snprintf(v, sizeof v, "%u", STALL_BUFFER_KB);
    kv_set(meta, "trace.buffer_kb", v);
    kv_set(meta, "trace.events", "vmscan:mm_vmscan_direct_reclaim_begin/end vmscan:mm_vmscan_memcg_reclaim_begin/end "
                                 "compaction:mm_compaction_begin/end");
    if (rc < 0)
        kv_set(meta, "trace.error", err.msg);
    const struct stall_result *r = &rt->st.res;
    uint64_t unpaired = 0, nested = 0;
    for (int k = 0; k < STALL_KINDS; k++) {
        const struct loghist *h = &r->hist[k];
        char name[64];
#define PUT(suffix, value, unit) \
        (snprintf(name, sizeof name, "stall.%s.%s", stall_kind_names[k], suffix), \
         metric_set_put(metrics, name, (value), unit, PM_LOWER))
        PUT("count", (double)h->count, "stalls");
        PUT("total_ms", (double)(h->sum / 1e6L), "ms");
        if (h->count) {
            PUT("p50_us", loghist_percentile(h, 50) / 1e3, "us");
            PUT("p90_us", loghist_percentile(h, 90) / 1e3, "us");
            PUT("p99_us", loghist_percentile(h, 99) / 1e3, "us");
            PUT("max_us", (double)h->max / 1e3, "us");
        }
#undef PUT
        unpaired += r->unpaired[k];
        nested += r->nested[k];
    }
    metric_set_put(metrics, "stall.lost_events", (double)r->lost, "events", PM_LOWER);
    metric_set_put(metrics, "stall.unpaired", (double)unpaired, "events", PM_NEITHER);
    metric_set_put(metrics, "stall.nested", (double)nested, "events", PM_NEITHER);
    metric_set_put(metrics, "stall.events", (double)r->events, "events", PM_NEITHER);
}

int run_trace_hists(struct run_trace *rt, struct run_hists *into)
{
    if (!rt->finished)
        return 0;
    for (int k = 0; k < STALL_KINDS; k++) {
        char name[64];
        snprintf(name, sizeof name, "stall.%s", stall_kind_names[k]);
        if (rt->st.res.hist[k].count && run_hists_put(into, name, &rt->st.res.hist[k]) < 0)
            return -1;
    }
    return 0;
}

void run_trace_free(struct run_trace *rt)
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
