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
#include <stdio.h>
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
 * machine's description, the run lock, the database, and where the
 * harness's lines go. */
struct run_session {
    bool open;
    char exe[PATH_MAX];
    struct machine_info mi;
    struct pm_db db;
    int64_t machine_id;
    /* The caller's, kept open until after harness_session_close: each run's
     * line, the figures of a run the database would not take, what was
     * recovered from a killed pressmark. The harness never prints. */
    FILE *say;
};

/* What went wrong, so the caller can say it (harness_outcome_error) and
 * decide its exit status. */
enum run_error_kind {
    RUN_NO_ERROR,
    RUN_ERR_SESSION,   /* the session did not open: its binary, the machine, the lock, the database */
    RUN_ERR_PREPARE,   /* the workload's prepare failed (its words, shown escaped) */
    RUN_ERR_RUN,       /* the harness failed in a run; no more were run */
};

/* What a plan's runs came to. Each fact on its own: the command makes
 * them an exit status (an interruption over an error over a failed run). */
struct run_outcome {
    bool some_failed;             /* a run was stored failed, oom or aborted */
    enum run_error_kind error;
    unsigned run, runs;           /* RUN_ERR_RUN: in which run (from 1), of how many */
    const char *workload;         /* RUN_ERR_PREPARE: whose */
    struct pm_err err;            /* why, when error is set */
    int abort_sig;                /* the SIGINT, SIGTERM or SIGHUP that stopped the runs; 0: none */
};

/* The outcome's error as one line, without "pressmark: " or a newline;
 * RUN_OUTCOME_LINE bytes hold any. */
#define RUN_OUTCOME_LINE (4 * sizeof(struct pm_err) + 128)
void harness_outcome_error(const struct run_outcome *o, char *line, size_t len);

/* Recover what a killed pressmark left, take the run lock (what names the
 * holder), open the database; say (not NULL) is where the session's lines
 * go, kept in rs->say even when it fails. 0, or -1 with err. */
int harness_session_open(struct run_session *rs, const char *db_path, const char *what, FILE *say, struct pm_err *err);
/* Execute the plan's runs in the session; *o says what they came to. */
void harness_session_execute(struct run_session *rs, struct run_plan *plan, struct run_outcome *o);
void harness_session_close(struct run_session *rs);

/* Open a session, execute the plan in it, close it: *o says what came of
 * it (RUN_ERR_SESSION when the session did not open). */
void harness_plan_execute(struct run_plan *plan, FILE *say, struct run_outcome *o);

/* Which signals the harness handles synchronously; blocked before any thread. */
void harness_block_signals(void);
/* Has SIGINT or SIGTERM arrived (consumes it)? Returns the signal or 0. */
int harness_pending_abort(void);

#endif
