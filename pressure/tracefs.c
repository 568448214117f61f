#include "pressure/tracefs.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "pressure/undo.h"

/* The begin/end events traced, as system/name under events/. */
static const char *const trace_stall_events[6] = {
    "vmscan/mm_vmscan_direct_reclaim_begin", "vmscan/mm_vmscan_direct_reclaim_end",
    "vmscan/mm_vmscan_memcg_reclaim_begin",  "vmscan/mm_vmscan_memcg_reclaim_end",
    "compaction/mm_compaction_begin",        "compaction/mm_compaction_end",
};

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* tracefs where it is already (its own mount point, or debugfs's old
 * place), else mounted at its own point, journalled. */
static int find_or_mount(struct trace_instance *ti, struct pm_err *err)
{
    static const char *const places[] = { TRACEFS_MOUNT, "/sys/kernel/debug/tracing" };
    char inst[PATH_MAX];
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        snprintf(inst, sizeof inst, "%s/instances", places[i]);
        if (is_dir(inst)) {
            snprintf(ti->root, sizeof ti->root, "%s", places[i]);
            return 0;
        }
    }
    if (!is_dir(TRACEFS_MOUNT))
        return pm_errf(err, "no tracefs here (%s does not exist: a kernel without CONFIG_TRACING)", TRACEFS_MOUNT);
    if ((ti->mount_id = undo_push(UNDO_TRACEFS, TRACEFS_MOUNT, "", err)) < 0)
        return -1;
    if (mount("nodev", TRACEFS_MOUNT, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
        int e = errno;
        undo_done(ti->mount_id);
        return pm_errf(err, "cannot mount tracefs on %s: %s", TRACEFS_MOUNT, strerror(e));
    }
    ti->mounted = true;
    snprintf(ti->root, sizeof ti->root, "%s", TRACEFS_MOUNT);
    snprintf(inst, sizeof inst, "%s/instances", ti->root);
    if (!is_dir(inst)) {
        trace_instance_remove(ti);
        return pm_errf(err, "tracefs on %s has no instances/ (a kernel too old for trace instances)", TRACEFS_MOUNT);
    }
    return 0;
}

static int set(const struct trace_instance *ti, const char *file, const char *value, struct pm_err *err)
{
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/%s", ti->dir, file);
    return pm_write_file(path, value, err);
}

int trace_instance_create(struct trace_instance *ti, pid_t pid, unsigned buffer_kb, struct pm_err *err)
{
    memset(ti, 0, sizeof *ti);
    ti->mount_id = ti->dir_id = -1;
    if (find_or_mount(ti, err) < 0)
        return -1;
    snprintf(ti->dir, sizeof ti->dir, "%s/instances/pressmark-%d", ti->root, (int)getpid());
    if ((ti->dir_id = undo_push(UNDO_TRACE_INSTANCE, ti->dir, "", err)) < 0) {
        trace_instance_remove(ti);
        return -1;
    }
    if (mkdir(ti->dir, 0700) < 0) {
        int e = errno;
        undo_done(ti->dir_id);
        ti->dir_id = -1;
        trace_instance_remove(ti);
        return pm_errf(err, "cannot make trace instance %s: %s", ti->dir, strerror(e));
    }
    ti->made = true;
    char num[32];
    /* mono: begin and end of one stall may be stamped on different CPUs. */
    snprintf(num, sizeof num, "%u", buffer_kb);
    char spid[24];
    snprintf(spid, sizeof spid, "%d", (int)pid);
    if (set(ti, "tracing_on", "0", err) < 0 || set(ti, "trace_clock", "mono", err) < 0 ||
        set(ti, "buffer_size_kb", num, err) < 0 || set(ti, "options/event-fork", "1", err) < 0 ||
        set(ti, "set_event_pid", spid, err) < 0)
        goto fail;
    for (size_t i = 0; i < sizeof trace_stall_events / sizeof trace_stall_events[0]; i++) {
        char f[160];
        snprintf(f, sizeof f, "events/%s/enable", trace_stall_events[i]);
        if (set(ti, f, "1", err) < 0)
            goto fail;
    }
    if (set(ti, "tracing_on", "1", err) < 0)
        goto fail;
    return 0;
fail:
    trace_instance_remove(ti);
    return -1;
}

void trace_instance_stop(struct trace_instance *ti)
{
    struct pm_err err;
    if (ti->made)
        set(ti, "tracing_on", "0", &err);
}

void trace_instance_remove(struct trace_instance *ti)
{
    char said[PATH_MAX + 64];
    if (ti->made) {
        if (undo_apply(UNDO_TRACE_INSTANCE, ti->dir, "", said, sizeof said) == 0 && ti->dir_id >= 0)
            undo_done(ti->dir_id);
        ti->made = false;
    }
    if (ti->mounted) {
        if (undo_apply(UNDO_TRACEFS, ti->root, "", said, sizeof said) == 0 && ti->mount_id >= 0)
            undo_done(ti->mount_id);
        ti->mounted = false;
    }
}
