#include "collectors/sources.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collectors/monitors.h"

const char *const source_names[SRC_COUNT] = {
    "stat", "vmstat", "meminfo", "psi", "memcg", "heartbeat", "buddyinfo", "zoneinfo", "diskstats", "procs", "mthp", "workload",
};

static void add_file(struct source_set *ss, const char *source, const char *dir, const char *file,
                     const char *prefix, proc_parse_fn parse)
{
    if (ss->n >= PM_MAX_SOURCES)
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    procfile_collector_init(&ss->cols[ss->n++], source, path, prefix, parse);
}

void sources_init(struct source_set *ss, const struct source_opts *o)
{
    memset(ss, 0, sizeof *ss);
    const char *proc = o->proc_root ? o->proc_root : "/proc";
    const char *memcg_dir = o->memcg_dir;
    int memcg_version = o->memcg_version;
#define ON(id) (!(o->off & (1u << (id))))
    char pressure[PATH_MAX];
    snprintf(pressure, sizeof pressure, "%s/pressure", proc);
    if (ON(SRC_STAT))
        add_file(ss, "stat", proc, "stat", "stat", parse_proc_stat);
    if (ON(SRC_VMSTAT))
        add_file(ss, "vmstat", proc, "vmstat", "vmstat", parse_keyed_lines);
    if (ON(SRC_MEMINFO))
        add_file(ss, "meminfo", proc, "meminfo", "meminfo", parse_keyed_lines);
    if (ON(SRC_PSI)) {
        add_file(ss, "psi", pressure, "memory", "psi.memory", parse_psi);
        add_file(ss, "psi", pressure, "cpu", "psi.cpu", parse_psi);
        add_file(ss, "psi", pressure, "io", "psi.io", parse_psi);
    }
    if (ON(SRC_MEMCG) && memcg_dir && memcg_version == 2) {
        add_file(ss, "memcg", memcg_dir, "memory.current", "memcg.memory.current", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.swap.current", "memcg.memory.swap.current", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.events", "memcg.memory.events", parse_keyed_lines);
        add_file(ss, "memcg", memcg_dir, "memory.stat", "memcg.memory.stat", parse_keyed_lines);
        add_file(ss, "memcg", memcg_dir, "memory.pressure", "memcg.memory.pressure", parse_psi);
    } else if (ON(SRC_MEMCG) && memcg_dir && memcg_version == 1) {
        add_file(ss, "memcg", memcg_dir, "memory.usage_in_bytes", "memcg.memory.usage_in_bytes", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.memsw.usage_in_bytes", "memcg.memory.memsw.usage_in_bytes", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.failcnt", "memcg.memory.failcnt", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.stat", "memcg.memory.stat", parse_keyed_lines);
        add_file(ss, "memcg", memcg_dir, "memory.oom_control", "memcg.memory.oom_control", parse_keyed_lines);
    }
    if (ON(SRC_HEARTBEAT) && o->hb && ss->n < PM_MAX_SOURCES)
        heartbeat_collector_init(&ss->cols[ss->n++], o->hb);
    if (ON(SRC_BUDDYINFO))
        add_file(ss, "buddyinfo", proc, "buddyinfo", "buddyinfo", parse_buddyinfo);
    if (ON(SRC_ZONEINFO) && ss->n < PM_MAX_SOURCES)
        zones_collector_init(&ss->cols[ss->n++], proc);
    if (ON(SRC_DISKSTATS) && ss->n < PM_MAX_SOURCES)
        diskstats_collector_init(&ss->cols[ss->n++], proc);
    if (ON(SRC_PROCS) && memcg_dir && ss->n < PM_MAX_SOURCES) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/cgroup.procs", memcg_dir);
        procs_collector_init(&ss->cols[ss->n++], path);
    }
    if (ON(SRC_MTHP) && ss->n < PM_MAX_SOURCES)
        mthp_collector_init(&ss->cols[ss->n++], o->thp_dir ? o->thp_dir : "/sys/kernel/mm/transparent_hugepage");
    if (ON(SRC_WORKLOAD) && o->gauges && ss->n < PM_MAX_SOURCES)
        gauges_collector_init(&ss->cols[ss->n++], o->gauges);
#undef ON
}

void sources_open(struct source_set *ss)
{
    for (size_t i = 0; i < ss->n; i++) {
        struct collector *c = &ss->cols[i];
        struct pm_err err;
        if (c->ops->open(c, &err) == 0) {
            c->open_ok = true;
        } else {
            c->open_ok = false;
            snprintf(c->note, sizeof c->note, "absent: %s", err.msg);
        }
    }
}

void sources_close(struct source_set *ss)
{
    for (size_t i = 0; i < ss->n; i++) {
        if (ss->cols[i].open_ok)
            ss->cols[i].ops->close(&ss->cols[i]);
        free(ss->cols[i].slot_cache);
        ss->cols[i].slot_cache = NULL;
    }
}

int sources_parse_collect(const char *text, unsigned *off, struct pm_err *err)
{
    /* Commas or spaces: a suite file's commas make an axis, so there
     * "collect = -procs -mthp" is one value. */
    const char *p = text;
    for (;;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, ", ");
        const char *w = p;
        size_t wn = n;
        bool on = true;
        if (wn && (*w == '-' || *w == '+')) {
            on = *w == '+';
            w++;
            wn--;
        }
        int id = -1;
        for (int i = 0; i < SRC_COUNT; i++)
            if (strlen(source_names[i]) == wn && strncmp(source_names[i], w, wn) == 0)
                id = i;
        if (id < 0) {
            char accepted[256] = "";
            for (int i = 0; i < SRC_COUNT; i++)
                snprintf(accepted + strlen(accepted), sizeof accepted - strlen(accepted), "%s%s", i ? ", " : "",
                         source_names[i]);
            return pm_errf(err, "'%.*s' is not a source (accepted: -NAME or +NAME, separated by commas or spaces, "
                           "NAME one of %s)", (int)n, p, accepted);
        }
        if (on)
            *off &= ~(1u << id);
        else
            *off |= 1u << id;
        p += n;
        while (*p == ' ')
            p++;
        if (*p == '\0')
            return 0;
        if (*p == ',')
            p++;        /* a word must follow: "-procs," is refused by the next round */
    }
}

void sources_describe_off(unsigned off, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < SRC_COUNT && o < len; i++)
        if (off & (1u << i))
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", source_names[i]);
}
