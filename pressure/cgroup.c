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

/* Write value (a number, or "max" for UINT64_MAX) into dir/file; what
 * the kernel reads back (a page-rounded size) goes into meta as
 * "cgroup.FILE" of the cgroup it names (the run's or the workload's). */
static int set_limit(const char *dir, const char *file, uint64_t value, struct pm_err *err)
{
    char path[PATH_MAX + 64], v[32];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (value == UINT64_MAX)
        snprintf(v, sizeof v, "max");
    else
        snprintf(v, sizeof v, "%llu", (unsigned long long)value);
    if (!pm_path_exists(path))
        return pm_errf(err, "%s: missing (the kernel lacks this control%s)", path,
                       strstr(file, "memsw") ? "; boot with swapaccount=1 for memsw"
                       : strstr(file, "zswap.writeback") ? "; memory.zswap.writeback came in Linux 6.8"
                       : strstr(file, "zswap") ? "; memory.zswap.max needs a kernel with zswap, Linux 5.19 or later" : "");
    return pm_write_file(path, v, err);
}

static void record(const char *dir, const char *file, const char *whose, struct kv_list *meta)
{
    char path[PATH_MAX + 64], now[64], key[96];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (pm_read_file(path, now, sizeof now) < 0)
        return;
    snprintf(key, sizeof key, "cgroup.%s.%s", whose, file);
    pm_kv_set(meta, key, now);
}

static int set_and_record(const char *dir, const char *file, const char *whose, uint64_t value, struct kv_list *meta,
                          struct pm_err *err)
{
    if (set_limit(dir, file, value, err) < 0)
        return -1;
    record(dir, file, whose, meta);
    return 0;
}

/* The cap on the run's cgroup: memory, swap and zswap, which the
 * workload and its sibling share. */
static int set_cap(const struct cgroup_cap *cg, const struct cgroup_limits *lim, bool nested, struct kv_list *meta,
                   struct pm_err *err)
{
    const char *d = cg->top;
    if (cg->version == 1) {
        if (set_and_record(d, "memory.limit_in_bytes", "run", lim->mem, meta, err) < 0)
            return -1;
        /* memsw counts memory + swap, so "swap allowed" is cap + swap-cap;
         * it must be set after the memory limit it may not go below. */
        uint64_t memsw;
        if (lim->has_swap && __builtin_add_overflow(lim->mem, lim->swap, &memsw))
            return pm_errf(err, "--mem-cap plus --swap-cap does not fit in 64 bits");
        return lim->has_swap ? set_and_record(d, "memory.memsw.limit_in_bytes", "run", memsw, meta, err) : 0;
    }
    if (set_and_record(d, "memory.max", "run", lim->mem, meta, err) < 0 ||
        (lim->has_swap && set_and_record(d, "memory.swap.max", "run", lim->swap, meta, err) < 0) ||
        (lim->has_zswap_max && set_and_record(d, "memory.zswap.max", "run", lim->zswap_max, meta, err) < 0) ||
        (lim->zswap_writeback && set_and_record(d, "memory.zswap.writeback", "run", lim->zswap_writeback == 1, meta, err) < 0))
        return -1;
    return nested ? 0 : (lim->has_high ? set_and_record(d, "memory.high", "run", lim->high, meta, err) : 0);
}

/* The workload's child (its protection and throttle) and the sibling's. */
static int make_children(struct cgroup_cap *cg, const struct cgroup_limits *lim, struct kv_list *meta,
                         struct pm_err *err)
{
    if (cg->version == 2 && enable_memory(cg->top, err) < 0)
        return -1;
    snprintf(cg->dir, sizeof cg->dir, "%s/workload", cg->top);
    if (make_dir(cg->dir, UNDO_CGROUP, err) < 0)
        return -1;
    if ((lim->has_min && set_and_record(cg->dir, "memory.min", "workload", lim->min, meta, err) < 0) ||
        (lim->has_low && set_and_record(cg->dir, "memory.low", "workload", lim->low, meta, err) < 0) ||
        (lim->has_high && set_and_record(cg->dir, "memory.high", "workload", lim->high, meta, err) < 0))
        return -1;
    if (lim->sibling) {
        snprintf(cg->sib_dir, sizeof cg->sib_dir, "%s/sibling", cg->top);
        if (make_dir(cg->sib_dir, UNDO_CGROUP, err) < 0)
            return -1;
        snprintf(cg->sib_procs, sizeof cg->sib_procs, "%s/cgroup.procs", cg->sib_dir);
        pm_kv_set(meta, "cgroup.sibling", cg->sib_dir);
    }
    pm_kv_set(meta, "cgroup.workload", cg->dir);
    return 0;
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
    snprintf(cg->top, sizeof cg->top, "%s/run-%lld", parent, (long long)run_id);
    /* A cgroup of the same name left by an earlier crash would carry its
     * old counters: remove it first (it is ours by name and place). */
    if (pm_path_exists(cg->top)) {
        char said[512];
        if (undo_apply(UNDO_CGROUP, cg->top, NULL, said, sizeof said) < 0)
            return pm_errf(err, "%s", said);
    }
    if (make_dir(cg->top, UNDO_CGROUP, err) < 0)
        return -1;
    snprintf(cg->dir, sizeof cg->dir, "%s", cg->top);
    if (lim->mem == 0) {
        /* No cap: the cgroup only keeps the run's processes together, so
         * that whatever they start is ended with the run. */
        snprintf(cg->procs, sizeof cg->procs, "%s/cgroup.procs", cg->dir);
        pm_kv_set(meta, "track.cgroup", cg->dir);
        return 0;
    }
    bool nested = lim->sibling || lim->has_low || lim->has_min;
    if (set_cap(cg, lim, nested, meta, err) < 0 || (nested && make_children(cg, lim, meta, err) < 0))
        return -1;
    snprintf(cg->procs, sizeof cg->procs, "%s/cgroup.procs", cg->dir);
    pm_kv_set(meta, "cap.method", version == 2 ? "cgroup2" : "cgroup1");
    pm_kv_set(meta, "cap.cgroup", cg->top);
    pm_kv_setf(meta, "cap.limit_bytes", "%llu", (unsigned long long)lim->mem);
    if (lim->has_swap)
        pm_kv_setf(meta, "cap.swap_limit_bytes", "%llu", (unsigned long long)lim->swap);
    else
        pm_kv_set(meta, "cap.swap_limit_bytes", "unlimited");
    if (lim->has_high)
        pm_kv_setf(meta, "cap.high_bytes", "%llu", (unsigned long long)lim->high);
    if (lim->has_low)
        pm_kv_setf(meta, "cap.low_bytes", "%llu", (unsigned long long)lim->low);
    if (lim->has_min)
        pm_kv_setf(meta, "cap.min_bytes", "%llu", (unsigned long long)lim->min);
    pm_kv_setf(meta, "cgroup.version", "%d", version);
    return 0;
}

int cgroup_client_create(const char *root, int64_t run_id, char *dir, size_t dlen, char *procs,
                         size_t plen, struct pm_err *err)
{
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s/pressmark", root);
    if (make_dir(parent, UNDO_RMDIR, err) < 0)
        return -1;
    /* On v2 the memory controller is on for pressmark/'s children already
     * (the run's cgroup needed it): the client's usage is counted apart
     * from the run's, never limited. */
    snprintf(dir, dlen, "%s/run-%lld-client", parent, (long long)run_id);
    if (pm_path_exists(dir)) {
        char said[512];
        if (undo_apply(UNDO_CGROUP, dir, NULL, said, sizeof said) < 0)
            return pm_errf(err, "%s", said);
    }
    if (make_dir(dir, UNDO_CGROUP, err) < 0)
        return -1;
    snprintf(procs, plen, "%s/cgroup.procs", dir);
    return 0;
}
