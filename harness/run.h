#ifndef PM_RUN_H
#define PM_RUN_H
/* One run's life: environment up, samplers start, the workload runs inside
 * the cap, samplers stop, metrics derived, everything stored, environment
 * down. A plan repeats that for --runs, with --gap between runs. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "pressure/env.h"
#include "lib/kv.h"
#include "lib/metrics.h"
#include "store/db.h"
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
    /* Called with each run once it is stored with status ok or not (the
     * command's --push sends it on); NULL: nothing. */
    void (*after_store)(void *arg, struct pm_db *db, int64_t run_id);
    void *after_store_arg;
};

/* Execute the plan. Returns the process exit status: 0 all runs ok, 1 some
 * run failed or was OOM-killed, 130/143 when interrupted, 2 for harness errors. */
int run_plan_execute(struct run_plan *plan);

/* Which signals the harness handles synchronously; blocked before any thread. */
void run_block_signals(void);
/* Has SIGINT or SIGTERM arrived (consumes it)? Returns the signal or 0. */
int run_pending_abort(void);

#endif
