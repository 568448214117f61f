#ifndef PM_SIBLING_H
#define PM_SIBLING_H
/* The sibling hog (--sibling 'WORKLOAD [OPTIONS]'): a second workload in a
 * sibling cgroup under the run's cap, started before the measured workload
 * and stopped after it, pass after pass (resctl-bench's memory hog beside
 * a latency-sensitive workload). What it got done while the measured
 * workload ran is stored with the run as sibling.* metrics, its cgroup's
 * as sibling.memcg.* (the memcg source samples it). */
#include <stdint.h>
#include <sys/types.h>
#include "lib/err.h"
#include "lib/kv.h"
#include "lib/metrics.h"
#include "workloads/workload.h"

#define SIBLING_MAX_WORDS 64

/* A parsed spec: the workload and its option state (freed by sibling_spec_free). */
struct sibling_spec {
    const struct workload_ops *wl;
    void *state;
};

/* Parse "WORKLOAD [--OPTION VALUE | --OPTION=VALUE | --FLAG]..." against the
 * workload's option table and check it against the run's limits. -1 with
 * err saying what is wrong and what is accepted. */
int sibling_spec_parse(const char *spec, const struct wl_limits *lim, struct sibling_spec *sp, struct pm_err *err);
void sibling_spec_free(struct sibling_spec *sp);

struct sibling {
    pid_t pid;                  /* the helper, in its own process group; 0: none */
    int fd;                     /* its report: one line per pass at its end */
};

/* Start the helper: it enters procs (the sibling cgroup, cgdir) before
 * anything else, then runs spec's passes until stopped. */
int sibling_start(struct sibling *s, const char *exe, const char *spec, const char *procs, const char *cgdir,
                  const struct wl_limits *lim, struct pm_err *err);
/* Has it ended already (a spec its workload refused, a cgroup it could
 * not enter)? 0 while it runs, else -1 with why. */
int sibling_alive(struct sibling *s, char *why, size_t len);
/* Stop it, read its passes, and put what it got done between w0_ns and
 * w1_ns (CLOCK_MONOTONIC: the measured workload's run) into out; meta
 * gets the spec and its pass count. */
void sibling_stop(struct sibling *s, const char *spec, uint64_t w0_ns, uint64_t w1_ns, struct metric_set *out,
                  struct kv_list *meta);

/* The helper's report (its "pass T0 T1 STATUS VALUE" lines; cut up in
 * place) over the measured run [w0_ns, w1_ns]: each ok pass counted by
 * the share of its time inside it, the failed ones that overlap it, the
 * headline's sum and count over the ok ones that overlap it, and all. */
struct sibling_tally {
    double passes, value_sum;
    unsigned nvalues, failed, total;
};
void sibling_tally(char *report, uint64_t w0_ns, uint64_t w1_ns, struct sibling_tally *t);

/* The helper's side: pressmark __sibling PROCS CGDIR CAP SWAP SPEC. */
int sibling_helper_main(int argc, char **argv);

extern const struct metric_group sibling_metrics;

#endif
