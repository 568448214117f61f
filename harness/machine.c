#include "harness/machine.h"
#include <dirent.h>
#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "harness/sysfs.h"

int machine_read(struct machine_info *m, struct pm_err *err)
{
    memset(m, 0, sizeof *m);
    struct utsname u;
    if (uname(&u) < 0)
        return pm_errf(err, "uname: %s", strerror(errno));
    snprintf(m->hostname, sizeof m->hostname, "%s", u.nodename);
    snprintf(m->kernel, sizeof m->kernel, "%s", u.release);
    if (pm_read_file("/proc/version", m->proc_version, sizeof m->proc_version) < 0)
        snprintf(m->proc_version, sizeof m->proc_version, "%s %s", u.sysname, u.version);
    if (pm_read_file("/proc/cmdline", m->cmdline, sizeof m->cmdline) < 0)
        m->cmdline[0] = '\0';
    char cpuinfo[65536];
    snprintf(m->cpu_model, sizeof m->cpu_model, "unknown");
    if (pm_read_file("/proc/cpuinfo", cpuinfo, sizeof cpuinfo) == 0) {
        char *p = strstr(cpuinfo, "model name");
        if (p && (p = strchr(p, ':'))) {
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
            char *nl = strchr(p, '\n');
            snprintf(m->cpu_model, sizeof m->cpu_model, "%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
        }
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->cpus = n > 0 ? (int)n : 1;
    m->mem_total_kb = pm_meminfo_kb("MemTotal");
    if (m->mem_total_kb < 0)
        return pm_errf(err, "/proc/meminfo: no MemTotal");
    m->page_size = sysconf(_SC_PAGESIZE);
    return 0;
}

int64_t machine_store(struct pm_db *db, const struct machine_info *m, struct pm_err *err)
{
    sqlite3_stmt *ins, *sel;
    static const char cols[] = "hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size";
    char sql[512];
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO machine(%s) VALUES (?,?,?,?,?,?,?,?)", cols);
    if (pm_db_prepare(db, &ins, sql, err) < 0)
        return -1;
    if (pm_db_prepare(db, &sel,
                      "SELECT id FROM machine WHERE hostname=? AND kernel=? AND proc_version=? AND cmdline=?"
                      " AND cpu_model=? AND cpus=? AND mem_total_kb=? AND page_size=?", err) < 0) {
        sqlite3_finalize(ins);
        return -1;
    }
    sqlite3_stmt *both[2] = { ins, sel };
    for (int i = 0; i < 2; i++) {
        sqlite3_bind_text(both[i], 1, m->hostname, -1, SQLITE_STATIC);
        sqlite3_bind_text(both[i], 2, m->kernel, -1, SQLITE_STATIC);
        sqlite3_bind_text(both[i], 3, m->proc_version, -1, SQLITE_STATIC);
        sqlite3_bind_text(both[i], 4, m->cmdline, -1, SQLITE_STATIC);
        sqlite3_bind_text(both[i], 5, m->cpu_model, -1, SQLITE_STATIC);
        sqlite3_bind_int(both[i], 6, m->cpus);
        sqlite3_bind_int64(both[i], 7, m->mem_total_kb);
        sqlite3_bind_int64(both[i], 8, m->page_size);
    }
    int64_t id = -1;
    if (pm_db_step_done(db, ins, err) == 0) {
        if (sqlite3_step(sel) == SQLITE_ROW)
            id = sqlite3_column_int64(sel, 0);
        else
            pm_errf(err, "%s: machine row missing after insert", db->path);
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(sel);
    return id;
}

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
        kv_set(out, key, value);
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
        kv_set(out, "thp.enabled", v);
    if (pm_read_choice("/sys/kernel/mm/transparent_hugepage/defrag", v, sizeof v) == 0)
        kv_set(out, "thp.defrag", v);
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
        kv_set(out, "swap.devices", joined[0] ? joined : "none");
    }
    struct cgroup_support cs;
    cgroup_detect(&cs);
    kv_setf(out, "cgroup.memory_controllers", "%s%s%s",
            cs.v2_root[0] ? "v2" : "", cs.v2_root[0] && cs.v1_memory[0] ? " " : "",
            cs.v1_memory[0] ? "v1" : (cs.v2_root[0] ? "" : "none"));
    return 0;
}
