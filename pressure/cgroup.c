#include "pressure/cgroup.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "lib/fileio.h"
#include "pressure/undo.h"

static int make_dir(const char *dir, enum undo_kind kind, struct pm_err *err)
{
    if (mkdir(dir, 0755) == 0)
        return undo_push(kind, dir, NULL, err) < 0 ? -1 : 0;
    if (errno == EEXIST)
        return 0;
    return pm_errf(err, "creating cgroup %s: %s", dir, strerror(errno));
}

/* The v2 memory controller is only available in a child if its parent
 * lists it in cgroup.subtree_control; enable it where missing (and journal
 * disabling it again, so the hierarchy is left as found). */
static int enable_memory(const char *dir, struct pm_err *err)
{
    char path[PATH_MAX + 32], ctl[512];
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", dir);
    if (pm_read_file(path, ctl, sizeof ctl) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    for (char *w = strtok(ctl, " "); w; w = strtok(NULL, " "))
        if (strcmp(w, "memory") == 0)
            return 0;
    if (undo_push(UNDO_SUBTREE, dir, "memory", err) < 0)
        return -1;
    return pm_write_file(path, "+memory", err);
}

static int set_limit(const char *dir, const char *file, uint64_t value, struct pm_err *err)
{
    char path[PATH_MAX + 64], v[32];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(v, sizeof v, "%llu", (unsigned long long)value);
    if (!pm_path_exists(path))
        return pm_errf(err, "%s: missing (the kernel lacks this control%s)", path,
                       strstr(file, "memsw") ? "; boot with swapaccount=1 for memsw" : "");
    return pm_write_file(path, v, err);
}

int cgroup_cap_create(struct cgroup_cap *cg, int version, const char *root, int64_t run_id,
                      const struct cgroup_limits *lim, struct kv_list *meta, struct pm_err *err)
{
    memset(cg, 0, sizeof *cg);
    cg->version = version;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s/pressmark", root);
    if (version == 2 && enable_memory(root, err) < 0)
        return -1;
    if (make_dir(parent, UNDO_RMDIR, err) < 0)
        return -1;
    if (version == 2 && enable_memory(parent, err) < 0)
        return -1;
    snprintf(cg->dir, sizeof cg->dir, "%s/run-%lld", parent, (long long)run_id);
    /* A cgroup of the same name left by an earlier crash would carry its
     * old counters: remove it first (it is ours by name and place). */
    if (pm_path_exists(cg->dir)) {
        char said[512];
        if (undo_apply(UNDO_CGROUP, cg->dir, NULL, said, sizeof said) < 0)
            return pm_errf(err, "%s", said);
    }
    if (make_dir(cg->dir, UNDO_CGROUP, err) < 0)
        return -1;
    snprintf(cg->procs, sizeof cg->procs, "%s/cgroup.procs", cg->dir);
    if (lim->mem == 0) {
        /* No cap: the cgroup only keeps the run's processes together, so
         * that whatever they start is ended with the run. */
        kv_set(meta, "track.cgroup", cg->dir);
        return 0;
    }
    if (version == 2) {
        if (set_limit(cg->dir, "memory.max", lim->mem, err) < 0)
            return -1;
        if (lim->has_swap && set_limit(cg->dir, "memory.swap.max", lim->swap, err) < 0)
            return -1;
        if (lim->has_high && set_limit(cg->dir, "memory.high", lim->high, err) < 0)
            return -1;
    } else {
        if (lim->has_high)
            return pm_errf(err, "--mem-high needs cgroup v2 (memory.high has no v1 equivalent)");
        if (set_limit(cg->dir, "memory.limit_in_bytes", lim->mem, err) < 0)
            return -1;
        /* memsw counts memory + swap, so "swap allowed" is cap + swap-cap;
         * it must be set after the memory limit it may not go below. */
        uint64_t memsw;
        if (lim->has_swap && __builtin_add_overflow(lim->mem, lim->swap, &memsw))
            return pm_errf(err, "--mem-cap plus --swap-cap does not fit in 64 bits");
        if (lim->has_swap && set_limit(cg->dir, "memory.memsw.limit_in_bytes", memsw, err) < 0)
            return -1;
    }
    kv_set(meta, "cap.method", version == 2 ? "cgroup2" : "cgroup1");
    kv_set(meta, "cap.cgroup", cg->dir);
    kv_setf(meta, "cap.limit_bytes", "%llu", (unsigned long long)lim->mem);
    if (lim->has_swap)
        kv_setf(meta, "cap.swap_limit_bytes", "%llu", (unsigned long long)lim->swap);
    else
        kv_set(meta, "cap.swap_limit_bytes", "unlimited");
    if (lim->has_high)
        kv_setf(meta, "cap.high_bytes", "%llu", (unsigned long long)lim->high);
    kv_setf(meta, "cgroup.version", "%d", version);
    return 0;
}
