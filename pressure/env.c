#include "pressure/env.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pressure/balloon.h"
#include "pressure/cgroup.h"
#include "pressure/probe.h"
#include "pressure/undo.h"

const char *const cap_method_names[] = { "auto", "cgroup2", "cgroup1", "balloon", "none", NULL };

const char *env_method_name(enum cap_method m)
{
    return cap_method_names[m];
}

int env_resolve_method(enum cap_method want, enum cap_method *got, struct pm_err *err)
{
    struct cgroup_support cs;
    cgroup_detect(&cs);
    switch (want) {
    case CAP_AUTO:
        *got = cs.v2_root[0] ? CAP_CGROUP2 : cs.v1_memory[0] ? CAP_CGROUP1 : CAP_BALLOON;
        return 0;
    case CAP_CGROUP2:
        if (!cs.v2_root[0])
            return pm_errf(err, "'cgroup2' is not available here (%s); accepted here: auto, %sballoon, none",
                           cs.v2_mount[0] ? "the cgroup2 hierarchy has no memory controller" : "no cgroup2 mount",
                           cs.v1_memory[0] ? "cgroup1, " : "");
        break;
    case CAP_CGROUP1:
        if (!cs.v1_memory[0])
            return pm_errf(err, "'cgroup1' is not available here (no v1 memory controller mounted); accepted here: auto, %sballoon, none",
                           cs.v2_root[0] ? "cgroup2, " : "");
        break;
    default:
        break;
    }
    *got = want;
    return 0;
}

/* cgroup v2's controls beside the cap, and the hog's cgroup: one check,
 * so a run is refused for the same reason whether its options are read
 * here or its environment comes up on the kernel a suite cell boots. */
int env_controls_check(const struct env_config *cfg, enum cap_method got, struct pm_err *err)
{
    const struct {
        const char *option, *file;
        bool set, zswap;
    } c[] = {
        { "mem-high", "memory.high", cfg->has_mem_high, false },
        { "mem-low", "memory.low", cfg->has_mem_low, false },
        { "mem-min", "memory.min", cfg->has_mem_min, false },
        { "zswap-max", "memory.zswap.max", cfg->has_zswap_max, true },
        { "zswap-writeback", "memory.zswap.writeback", cfg->zswap_writeback != 0, true },
    };
    /* The hog and the workload share the cap as a parent cgroup. */
    if (cfg->sibling[0] && got != CAP_CGROUP1 && got != CAP_CGROUP2)
        return pm_errf(err, "--sibling: needs a cgroup cap (cgroup1 or cgroup2), not --cap-method %s", env_method_name(got));
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (!c[i].set)
            continue;
        if (got != CAP_CGROUP2)
            return pm_errf(err, "--%s: %s needs cgroup v2, and the cap here is %s (accepted: --cap-method cgroup2, "
                           "where the memory controller is on cgroup v2)", c[i].option, c[i].file,
                           got == CAP_BALLOON ? "the balloon" : env_method_name(got));
        /* The memcg's zswap files exist only in a kernel with zswap, and
         * zswap is built in or absent: its module directory says which. */
        if (c[i].zswap && access("/sys/module/zswap", F_OK) != 0)
            return pm_errf(err, "--%s: this kernel has no zswap, so no %s (/sys/module/zswap is missing; accepted: "
                           "a kernel built with CONFIG_ZSWAP)", c[i].option, c[i].file);
    }
    return 0;
}

bool env_changes_machine(const struct env_config *cfg)
{
    return (cfg->has_cap && cfg->method != CAP_NONE) || cfg->swap.kind != SWAP_NONE || cfg->knobs.n > 0;
}

/* An uncapped run as root still gets a cgroup without limits: everything
 * the workload starts (a daemon that setsid()s away too) is in it, and is
 * ended when the run is undone, also after a SIGKILL of pressmark. Where
 * that cannot be, the run goes on and its metadata says why. */
static void track(struct run_env *env, struct kv_list *meta)
{
    struct cgroup_support cs;
    cgroup_detect(&cs);
    const char *root = cs.v2_root[0] ? cs.v2_root : cs.v1_memory;
    if (geteuid() != 0 || !root[0]) {
        pm_kv_set(meta, "track.cgroup", geteuid() != 0 ? "none (not root)" : "none (no memory cgroup hierarchy)");
        return;
    }
    struct cgroup_limits none = { .mem = 0 };
    struct cgroup_cap cg;
    struct pm_err err;
    int version = cs.v2_root[0] ? 2 : 1;
    if (cgroup_cap_create(&cg, version, root, env->run_id, &none, meta, &err) < 0) {
        pm_kv_setf(meta, "track.cgroup", "none (%s)", err.msg);
        return;
    }
    env->cgroup_version = version;
    snprintf(env->cgroup_dir, sizeof env->cgroup_dir, "%s", cg.dir);
    snprintf(env->cgroup_procs, sizeof env->cgroup_procs, "%s", cg.procs);
}

static int apply(struct run_env *env, struct kv_list *meta, struct pm_err *err)
{
    const struct env_config *cfg = env->cfg;
    if (vmknobs_apply(&cfg->knobs, meta, err) < 0)
        return -1;
    if (swap_add(&cfg->swap, env->run_id, meta, err) < 0)
        return -1;
    if (!cfg->has_cap) {
        pm_kv_set(meta, "cap.method", "none");
        track(env, meta);
        return 0;
    }
    enum cap_method m;
    if (env_resolve_method(cfg->method, &m, err) < 0 || env_controls_check(cfg, m, err) < 0)
        return -1;
    if (cfg->method == CAP_AUTO && env->say)
        fprintf(env->say, "pressmark: --cap-method auto chose %s\n", env_method_name(m));
    struct cgroup_support cs;
    cgroup_detect(&cs);
    struct cgroup_limits lim = {
        .mem = cfg->mem_cap, .has_swap = cfg->has_swap_cap, .swap = cfg->swap_cap,
        .has_high = cfg->has_mem_high, .high = cfg->mem_high,
        .has_low = cfg->has_mem_low, .low = cfg->mem_low, .has_min = cfg->has_mem_min, .min = cfg->mem_min,
        .has_zswap_max = cfg->has_zswap_max, .zswap_max = cfg->zswap_max, .zswap_writeback = cfg->zswap_writeback,
        .sibling = cfg->sibling[0] != '\0',
    };
    if (m == CAP_CGROUP2 || m == CAP_CGROUP1) {
        struct cgroup_cap cg;
        int version = m == CAP_CGROUP2 ? 2 : 1;
        if (cgroup_cap_create(&cg, version, version == 2 ? cs.v2_root : cs.v1_memory, env->run_id, &lim, meta, err) < 0)
            return -1;
        env->cgroup_version = version;
        snprintf(env->cgroup_dir, sizeof env->cgroup_dir, "%s", cg.dir);
        snprintf(env->cgroup_procs, sizeof env->cgroup_procs, "%s", cg.procs);
        snprintf(env->sibling_dir, sizeof env->sibling_dir, "%s", cg.sib_dir);
        snprintf(env->sibling_procs, sizeof env->sibling_procs, "%s", cg.sib_procs);
        return 0;
    }
    if (m == CAP_BALLOON) {
        if (cfg->has_swap_cap || cfg->has_mem_high || cfg->has_mem_low || cfg->has_mem_min || cfg->has_zswap_max ||
            cfg->zswap_writeback)
            return pm_errf(err, "--swap-cap, --mem-high, --mem-low, --mem-min and the zswap controls need a cgroup cap, "
                           "not the balloon");
        return balloon_inflate(env->exe, cfg->mem_cap, &env->balloon_pid, &env->balloon_fd, meta, err);
    }
    pm_kv_set(meta, "cap.method", "none");
    pm_kv_setf(meta, "cap.requested_bytes", "%llu (not enforced: --cap-method none)", (unsigned long long)cfg->mem_cap);
    return 0;
}

int env_up(struct run_env *env, int64_t run_id, struct kv_list *meta, struct pm_err *err)
{
    env->run_id = run_id;
    env->cgroup_version = 0;
    env->cgroup_dir[0] = env->cgroup_procs[0] = '\0';
    env->sibling_dir[0] = env->sibling_procs[0] = '\0';
    env->client_dir[0] = env->client_procs[0] = '\0';
    env->balloon_pid = 0;
    env->balloon_fd = -1;
    if (!env->cfg) {
        pm_kv_set(meta, "cap.method", "none");
        return 0;
    }
    if (apply(env, meta, err) < 0) {
        if (env->balloon_fd >= 0)
            close(env->balloon_fd);
        env->balloon_fd = -1;
        env->balloon_pid = 0;
        /* What was already applied is undone now, and said in the run's
         * record like the undoing after any other run. */
        char undone[4096];
        if (undo_all(undone, sizeof undone) < 0)
            pm_kv_set(meta, "env.undo_failed", undone);
        if (undone[0])
            pm_kv_set(meta, "env.undone", undone);
        env->cgroup_version = 0;
        env->cgroup_dir[0] = env->cgroup_procs[0] = '\0';
        env->sibling_dir[0] = env->sibling_procs[0] = '\0';
        return -1;
    }
    return 0;
}

int env_client(struct run_env *env, struct kv_list *meta, struct pm_err *err)
{
    if (env->client_procs[0] || !env->cgroup_version)
        return 0;
    struct cgroup_support cs;
    cgroup_detect(&cs);
    const char *root = env->cgroup_version == 2 ? cs.v2_root : cs.v1_memory;
    if (!root[0])
        return pm_errf(err, "the run's cgroup hierarchy (v%d) is no longer mounted", env->cgroup_version);
    if (cgroup_client_create(root, env->run_id, env->client_dir, sizeof env->client_dir, env->client_procs,
                             sizeof env->client_procs, err) < 0) {
        env->client_dir[0] = env->client_procs[0] = '\0';
        return -1;
    }
    pm_kv_set(meta, "cgroup.client", env->client_dir);
    return 0;
}

int env_intact(struct run_env *env, char *why, size_t len)
{
    if (env->balloon_pid <= 0)
        return 0;
    int st;
    pid_t r = waitpid(env->balloon_pid, &st, WNOHANG);
    if (r == 0)
        return 0;
    snprintf(why, len, "the balloon (pid %d) died during the run%s, lifting the cap", env->balloon_pid,
             r > 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? " (SIGKILL: probably the OOM killer)" : "");
    env->balloon_pid = 0;
    return -1;
}

void env_down(struct run_env *env, struct kv_list *meta)
{
    env->balloon_pid = 0;
    if (env->balloon_fd >= 0)
        close(env->balloon_fd);
    env->balloon_fd = -1;
    char undone[4096];
    if (undo_all(undone, sizeof undone) < 0)
        pm_kv_setf(meta, "env.undo_failed", "%s", undone);
    if (undone[0])
        pm_kv_set(meta, "env.undone", undone);
    /* Helpers killed by the undo (the balloon) are our children: reap. */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    env->cgroup_version = 0;
    env->cgroup_dir[0] = env->cgroup_procs[0] = '\0';
    env->sibling_dir[0] = env->sibling_procs[0] = '\0';
    env->client_dir[0] = env->client_procs[0] = '\0';
}
