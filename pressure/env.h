#ifndef PM_ENV_H
#define PM_ENV_H
/* The environment a run is measured in: its memory cap, swap, and VM
 * settings. Every change is written to the undo journal before it is made,
 * so an interrupted or killed pressmark leaves nothing behind. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "lib/err.h"
#include "lib/kv.h"
#include "pressure/swap.h"
#include "pressure/vmknobs.h"

enum cap_method { CAP_AUTO, CAP_CGROUP2, CAP_CGROUP1, CAP_BALLOON, CAP_NONE };

struct env_config {
    bool has_cap;
    uint64_t mem_cap;
    unsigned method;                  /* enum cap_method */
    bool has_swap_cap;
    uint64_t swap_cap;
    bool has_mem_high;
    uint64_t mem_high;
    /* cgroup v2's protection and zswap controls of the workload's cgroup
     * (memory.low, memory.min, memory.zswap.max, memory.zswap.writeback). */
    bool has_mem_low;
    uint64_t mem_low;
    bool has_mem_min;
    uint64_t mem_min;
    bool has_zswap_max;
    uint64_t zswap_max;
    unsigned zswap_writeback;         /* 0: as the kernel has it; 1: on; 2: off */
    /* The run boots another kernel (a suite's kernel axis): what only that
     * kernel can judge (a control it lacks, its cgroup version) is judged
     * when the run's environment comes up there, failing the run with the
     * reason, not when the suite is read here. */
    bool kernel_checks_deferred;
    /* The sibling hog: "WORKLOAD [OPTIONS]" run in a sibling cgroup under
     * the same cap, started sibling_lead_ns before the measured workload
     * and stopped after it; "" when none. */
    char sibling[512];
    uint64_t sibling_lead_ns;
    struct swap_config swap;
    struct vm_knobs knobs;
};

struct run_env {
    const struct env_config *cfg;
    const char *exe;                  /* pressmark's binary, for the balloon helper */
    int64_t run_id;
    int cgroup_version;               /* 0: the workload runs without a cgroup */
    char cgroup_dir[PATH_MAX];
    char cgroup_procs[PATH_MAX];
    char sibling_dir[PATH_MAX];       /* the sibling hog's cgroup; "" when none */
    char sibling_procs[PATH_MAX];
    char client_dir[PATH_MAX];        /* a load generator's cgroup, outside the cap; "" until asked for */
    char client_procs[PATH_MAX];
    int balloon_pid;                  /* 0: no balloon */
    int balloon_fd;                   /* its command pipe; -1 when none */
    FILE *say;                        /* where it says what it chose (--cap-method auto); NULL: nowhere */
};

/* Which cap method auto (or the given method) comes to on this machine;
 * -1 with err when the method is not available here. */
int env_resolve_method(enum cap_method want, enum cap_method *got, struct pm_err *err);
const char *env_method_name(enum cap_method m);
/* The methods' names in enum order, NULL-terminated (for --cap-method). */
extern const char *const cap_method_names[];

/* cgroup v2's controls of the workload's cgroup (memory.high, .low, .min,
 * .zswap.max, .zswap.writeback): what the machine must have for them.
 * 0, or -1 with err naming the first control cfg sets that the cap method
 * got (as env_resolve_method resolved it) or this kernel cannot give. */
int env_controls_check(const struct env_config *cfg, enum cap_method got, struct pm_err *err);

/* Does the configuration change anything on the machine (needs root)? */
bool env_changes_machine(const struct env_config *cfg);

/* Apply the configuration for run run_id, recording what was done in meta.
 * On failure everything already applied is undone before returning -1. */
int env_up(struct run_env *env, int64_t run_id, struct kv_list *meta, struct pm_err *err);
/* Is the cap still in force? The balloon can be OOM-killed where
 * oom_score_adj cannot be lowered, which lifts the cap mid-run. */
int env_intact(struct run_env *env, char *why, size_t len);
/* The cgroup a workload's load generator runs in, made on first use: a
 * sibling of the run's cgroup, outside its cap (cgroup_client_create).
 * 0 with env->client_procs "" when the run has no cgroup (not root, the
 * balloon, --cap-method none): the client then runs where pressmark does. */
int env_client(struct run_env *env, struct kv_list *meta, struct pm_err *err);
/* Undo everything env_up did; notes what was undone in meta. */
void env_down(struct run_env *env, struct kv_list *meta);

#endif
