#ifndef PM_RUN_H
#define PM_RUN_H
/* One run's life: environment up, samplers start, the workload runs inside
 * the cap, samplers stop, metrics derived, everything stored, environment
 * down. A plan repeats that for --runs, with --gap between runs. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "harness/env.h"
#include "harness/kv.h"
#include "harness/metrics.h"
#include "workloads/workload.h"

struct run_plan {
    const char *label;
    const struct workload_ops *wl;
    void *wl_state;
    unsigned runs;
    uint64_t interval_ns;
    uint64_t gap_ns;
    uint64_t timeout_ns;         /* 0: none */
    const char *db_path;
    bool quiet;
    const struct env_config *env;  /* cap, swap and VM settings; NULL: none */
    bool profile;                  /* record a system-wide kernel profile */
    const char *push_url;          /* push each run there once stored */
    const char *push_token;
};

/* What run_wait saw when the workload's process ended. */
struct run_exit {
    int wstatus;
    struct rusage ru;
    uint64_t elapsed_ns;
    bool timed_out;
    bool aborted;                /* SIGINT or SIGTERM reached pressmark */
};

/* Execute the plan. Returns the process exit status: 0 all runs ok, 1 some
 * run failed or was OOM-killed, 130/143 when interrupted, 2 for harness errors. */
int run_plan_execute(struct run_plan *plan);

/* --- for workloads --- */
/* Spawn argv inside the run's cap (own process group, oom_score_adj 0). */
int run_spawn(struct run_ctx *rc, char *const argv[], pid_t *pid, struct pm_err *err);
/* The same, handing pass_fd to the child as its descriptor 4 (a report pipe). */
int run_spawn_fd(struct run_ctx *rc, char *const argv[], int pass_fd, pid_t *pid, struct pm_err *err);
/* The same, with the child's stdout and stderr going to out_fd (when >= 0). */
int run_spawn_io(struct run_ctx *rc, char *const argv[], int pass_fd, int out_fd, pid_t *pid, struct pm_err *err);
/* Wait for pid, handling SIGINT/SIGTERM and the run's timeout. */
int run_wait(struct run_ctx *rc, pid_t pid, struct run_exit *ex, struct pm_err *err);
void run_metric(struct run_ctx *rc, const char *name, double value, const char *unit, const char *dir);
void run_meta(struct run_ctx *rc, const char *key, const char *value);
/* status is "ok", "failed", "oom" or "aborted"; the reason is stored as is. */
void run_set_status(struct run_ctx *rc, const char *status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* GNU time's fields from wait4, stored as time.* metrics. */
void run_rusage_metrics(struct run_ctx *rc, const struct run_exit *ex);
/* Turn a wait status into the run's status and reason. */
void run_status_from_exit(struct run_ctx *rc, const char *what, const struct run_exit *ex);

/* The run's status so far ("ok" until something says otherwise). */
const char *rc_status(struct run_ctx *rc);
/* pressmark's own binary, for workloads that run its helpers. */
const char *run_exe(struct run_ctx *rc);
/* Has SIGINT/SIGTERM arrived? Marks the run aborted if so. */
bool run_check_abort(struct run_ctx *rc);
/* The run's cgroup directory, or NULL when it has none. */
const char *run_cgroup(struct run_ctx *rc);

/* Which signals the harness handles synchronously; blocked before any thread. */
void run_block_signals(void);
/* Has SIGINT or SIGTERM arrived (consumes it)? Returns the signal or 0. */
int run_pending_abort(void);

#endif
