#include "collectors/sources.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_file(struct source_set *ss, const char *source, const char *dir, const char *file,
                     const char *prefix, proc_parse_fn parse)
{
    if (ss->n >= PM_MAX_SOURCES)
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    procfile_collector_init(&ss->cols[ss->n++], source, path, prefix, parse);
}

void sources_init(struct source_set *ss, const char *proc_root, const char *memcg_dir,
                  int memcg_version, struct heartbeat *hb)
{
    memset(ss, 0, sizeof *ss);
    const char *proc = proc_root ? proc_root : "/proc";
    char pressure[PATH_MAX];
    snprintf(pressure, sizeof pressure, "%s/pressure", proc);
    add_file(ss, "stat", proc, "stat", "stat", parse_proc_stat);
    add_file(ss, "vmstat", proc, "vmstat", "vmstat", parse_keyed_lines);
    add_file(ss, "meminfo", proc, "meminfo", "meminfo", parse_keyed_lines);
    add_file(ss, "psi", pressure, "memory", "psi.memory", parse_psi);
    add_file(ss, "psi", pressure, "cpu", "psi.cpu", parse_psi);
    add_file(ss, "psi", pressure, "io", "psi.io", parse_psi);
    if (memcg_dir && memcg_version == 2) {
        add_file(ss, "memcg", memcg_dir, "memory.current", "memcg.memory.current", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.swap.current", "memcg.memory.swap.current", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.events", "memcg.memory.events", parse_keyed_lines);
        add_file(ss, "memcg", memcg_dir, "memory.stat", "memcg.memory.stat", parse_keyed_lines);
        add_file(ss, "memcg", memcg_dir, "memory.pressure", "memcg.memory.pressure", parse_psi);
    } else if (memcg_dir && memcg_version == 1) {
        add_file(ss, "memcg", memcg_dir, "memory.usage_in_bytes", "memcg.memory.usage_in_bytes", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.memsw.usage_in_bytes", "memcg.memory.memsw.usage_in_bytes", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.failcnt", "memcg.memory.failcnt", parse_single_value);
        add_file(ss, "memcg", memcg_dir, "memory.stat", "memcg.memory.stat", parse_keyed_lines);
        add_file(ss, "memcg", memcg_dir, "memory.oom_control", "memcg.memory.oom_control", parse_keyed_lines);
    }
    if (hb && ss->n < PM_MAX_SOURCES)
        heartbeat_collector_init(&ss->cols[ss->n++], hb);
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
