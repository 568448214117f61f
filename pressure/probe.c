#include "pressure/probe.h"
#include <dirent.h>
#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "lib/fileio.h"

static void collect_dir(struct kv_list *out, const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024], value[4096], key[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        /* Write-only knobs (drop_caches, compact_memory) fail to read: skip. */
        if (pm_read_file(path, value, sizeof value) < 0)
            continue;
        for (char *p = value; *p; p++)
            if (*p == '\n' || *p == '\t')
                *p = ' ';
        snprintf(key, sizeof key, "%s%s", prefix, e->d_name);
        pm_kv_set(out, key, value);
    }
    closedir(d);
}

void cgroup_detect(struct cgroup_support *cs)
{
    memset(cs, 0, sizeof *cs);
    FILE *f = setmntent("/proc/self/mounts", "r");
    if (!f)
        return;
    struct mntent *me;
    while ((me = getmntent(f))) {
        if (strcmp(me->mnt_type, "cgroup") == 0 && hasmntopt(me, "memory") && !cs->v1_memory[0]) {
            snprintf(cs->v1_memory, sizeof cs->v1_memory, "%s", me->mnt_dir);
        } else if (strcmp(me->mnt_type, "cgroup2") == 0) {
            if (!cs->v2_mount[0])
                snprintf(cs->v2_mount, sizeof cs->v2_mount, "%s", me->mnt_dir);
            char path[600], ctl[512];
            snprintf(path, sizeof path, "%s/cgroup.controllers", me->mnt_dir);
            if (pm_read_file(path, ctl, sizeof ctl) == 0) {
                for (char *w = strtok(ctl, " "); w; w = strtok(NULL, " "))
                    if (strcmp(w, "memory") == 0 && !cs->v2_root[0])
                        snprintf(cs->v2_root, sizeof cs->v2_root, "%s", me->mnt_dir);
            }
        }
    }
    endmntent(f);
}

int env_collect(struct kv_list *out)
{
    collect_dir(out, "/proc/sys/vm", "sysctl.vm.");
    char v[4096];
    if (pm_read_choice("/sys/kernel/mm/transparent_hugepage/enabled", v, sizeof v) == 0)
        pm_kv_set(out, "thp.enabled", v);
    if (pm_read_choice("/sys/kernel/mm/transparent_hugepage/defrag", v, sizeof v) == 0)
        pm_kv_set(out, "thp.defrag", v);
    collect_dir(out, "/sys/module/zswap/parameters", "zswap.");
    if (pm_read_file("/proc/swaps", v, sizeof v) == 0) {
        /* Keep the device lines without the header, one per "; ". */
        char *body = strchr(v, '\n');
        char joined[4096] = "";
        size_t o = 0;
        for (char *line = body ? body + 1 : NULL; line && *line; ) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            char name[512], type[64];
            long long size, used;
            int prio;
            if (sscanf(line, "%511s %63s %lld %lld %d", name, type, &size, &used, &prio) == 5)
                o += (size_t)snprintf(joined + o, sizeof joined - o, "%s%s %s %lldkB prio %d",
                                      o ? "; " : "", name, type, size, prio);
            if (o >= sizeof joined)
                break;
            line = nl ? nl + 1 : NULL;
        }
        pm_kv_set(out, "swap.devices", joined[0] ? joined : "none");
    }
    struct cgroup_support cs;
    cgroup_detect(&cs);
    pm_kv_setf(out, "cgroup.memory_controllers", "%s%s%s",
            cs.v2_root[0] ? "v2" : "", cs.v2_root[0] && cs.v1_memory[0] ? " " : "",
            cs.v1_memory[0] ? "v1" : (cs.v2_root[0] ? "" : "none"));
    return 0;
}
