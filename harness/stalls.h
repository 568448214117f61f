#ifndef PM_HARNESS_STALLS_H
#define PM_HARNESS_STALLS_H
/* --trace-reclaim: a trace instance of the run's own (pressure/tracefs)
 * read by the stall tracer (collectors/stalltrace) while the workload runs,
 * then its latencies as metrics and stored histograms. */
#include <stdbool.h>
#include <sys/types.h>
#include "collectors/stalltrace.h"
#include "lib/kv.h"
#include "lib/metrics.h"
#include "pressure/tracefs.h"
#include "store/latency_hist.h"

#define STALL_BUFFER_KB 4096

/* The stall.* metrics harness_trace_finish stores. */
extern const struct metric_group harness_stall_metrics;

struct run_trace {
    struct trace_instance ti;
    struct stalltrace st;
    bool made, reading, finished;
};

/* Trace pid and the tasks it forks from now on. -1 with err when tracing
 * is not possible here; nothing is then left set up. */
int harness_trace_start(struct run_trace *rt, pid_t pid, struct pm_err *err);
/* Stop, drain, remove the instance; the latencies become metrics
 * (stall.KIND.count, total_ms, p50_us, p90_us, p99_us, max_us;
 * stall.lost_events) and meta (trace.*). */
void harness_trace_finish(struct run_trace *rt, struct metric_set *metrics, struct kv_list *meta);
/* The histograms, as stall.KIND, kept for the run's end. -1 only when out
 * of memory. */
int harness_trace_hists(struct run_trace *rt, struct run_hists *into);
/* Undo whatever is still set up (a run that failed before finishing). */
void harness_trace_free(struct run_trace *rt);

#endif
