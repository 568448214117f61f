#ifndef PM_RUN_H
#define PM_RUN_H
/* One run's life: environment up, samplers start, the workload runs inside
 * the cap, samplers stop, metrics derived, everything stored, environment
 * down. A plan repeats that for --runs, with --gap between runs. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <limits.h>
#include "pressure/env.h"
#include "lib/kv.h"
#include "lib/metrics.h"
#include "store/db.h"
#include "store/machines.h"
#include "lib/series.h"
#include "workloads/workload.h"

/* A workload's count of work done so far (run_live_count). */
struct run_live {
    uint64_t count;
    const char *unit;           /* of its rate: "msg/s" */
};

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
    bool trace_reclaim;            /* reclaim and compaction stall latencies from a trace instance */
    unsigned collect_off;          /* sources switched off (collectors/sources.h) */
    bool no_sample;                /* no sampler, heartbeat or sources: wait4's figures only */
    /* Called with each run once it is stored with status ok or not (the
     * command's --push sends it on); NULL: nothing. */
    void (*after_store)(void *arg, struct pm_db *db, int64_t run_id);
    void *after_store_arg;
    /* Called as each run is created, before it starts (a suite links its
     * planned slot to the run); NULL: nothing. */
    void (*on_begin)(void *arg, struct pm_db *db, int64_t run_id);
    /* Called on the sampler's thread after each stored tick, with the
     * series so far and the workload's live count (run_live_count; NULL
     * when it keeps none) for live progress; NULL: nothing. Must be quick. */
    void (*on_tick)(void *arg, const struct series_table *t, uint64_t t_ns, const struct run_live *live);
    void *hook_arg;
    /* More metadata stored with every run (a suite's cell and axes). */
    const struct kv_list *extra_meta;
};

/* What stays open across the runs of several plans (a suite): the
 * machine's description, the run lock, the database. */
struct run_session {
    bool open;
    char exe[PATH_MAX];
    struct machine_info mi;
    struct pm_db db;
    int64_t machine_id;
};

/* Recover what a killed pressmark left, take the run lock (what names the
 * holder), open the database. 0, or the exit status (2) after saying why. */
int run_session_open(struct run_session *rs, const char *db_path, const char *what);
/* Execute the plan's runs in the session. Returns the exit status as
 * run_plan_execute does; *abort_sig is the signal that interrupted it, 0
 * when none did. */
int run_session_execute(struct run_session *rs, struct run_plan *plan, int *abort_sig);
void run_session_close(struct run_session *rs);

/* Execute the plan. Returns the process exit status: 0 all runs ok, 1 some
 * run failed or was OOM-killed, 130/143 when interrupted, 2 for harness errors. */
int run_plan_execute(struct run_plan *plan);

/* Which signals the harness handles synchronously; blocked before any thread. */
void run_block_signals(void);
/* Has SIGINT or SIGTERM arrived (consumes it)? Returns the signal or 0. */
int run_pending_abort(void);

#endif
