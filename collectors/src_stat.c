/* /proc/stat: the CPU split, context switches and interrupts (and 2.4's
 * swap line, which the vmstat source reads when pswpin is absent). */
#include "collectors/source.h"
#include <stdio.h>
#include "collectors/proc_parse.h"

enum { STAT_CPU_UTIL_PCT, STAT_CPU_USER_PCT, STAT_CPU_SYSTEM_PCT, STAT_CPU_IDLE_PCT, STAT_CPU_IOWAIT_PCT,
    STAT_CPU_STEAL_PCT, STAT_CPU_SYS_USER_RATIO, STAT_CTXT, STAT_INTR };
static const struct metric_def stat_defs[] = {
    [STAT_CPU_UTIL_PCT] = METRIC("stat.cpu.util_pct", "%", PM_NEITHER, "the reports' %CPU: 100 - idle - iowait"),
    [STAT_CPU_USER_PCT] = METRIC("stat.cpu.user_pct", "%", PM_NEITHER, "user + nice, as vmstat's us"),
    [STAT_CPU_SYSTEM_PCT] = METRIC("stat.cpu.system_pct", "%", PM_NEITHER, "system + irq + softirq, as vmstat's sy"),
    [STAT_CPU_IDLE_PCT] = METRIC("stat.cpu.idle_pct", "%", PM_NEITHER, "idle"),
    [STAT_CPU_IOWAIT_PCT] = METRIC("stat.cpu.iowait_pct", "%", PM_LOWER, "iowait: idle with I/O outstanding"),
    [STAT_CPU_STEAL_PCT] = METRIC("stat.cpu.steal_pct", "%", PM_LOWER, "time a hypervisor gave another guest"),
    [STAT_CPU_SYS_USER_RATIO] = METRIC("stat.cpu.sys_user_ratio", "ratio", PM_LOWER,
                  "system_pct / user_pct, the reports' %sys/%user"),
    [STAT_CTXT] = METRIC("stat.ctxt", "count", PM_NEITHER, "context switches, all CPUs"),
    [STAT_INTR] = METRIC("stat.intr", "count", PM_NEITHER, "interrupts serviced, all CPUs"),
};
static const struct metric_group stat_metrics = METRIC_GROUP(
    "stat: /proc/stat, the change over the run, all CPUs",
    stat_defs);

/* CPU split the way vmstat reports it: us = user + nice, sy = system + irq +
 * softirq, wa = iowait, st = steal. The reports' %CPU is everything but idle
 * and iowait, i.e. 100 - id - wa. */
static int derive_cpu(const struct series_table *t, struct metric_set *out)
{
    static const char *cols[] = { "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal" };
    double d[8] = { 0 };
    double total = 0;
    bool have_idle = false;
    for (int i = 0; i < 8; i++) {
        char name[64];
        snprintf(name, sizeof name, "stat.cpu.%s", cols[i]);
        if (series_delta(t, name, &d[i])) {
            total += d[i];
            if (i == 3)
                have_idle = true;
        }
    }
    if (!have_idle || total <= 0)
        return 0;
    double user = (d[0] + d[1]) / total * 100.0;
    double sys = (d[2] + d[5] + d[6]) / total * 100.0;
    double idle = d[3] / total * 100.0;
    double iowait = d[4] / total * 100.0;
    double steal = d[7] / total * 100.0;
    int rc = 0;
    rc |= metric_put(out, &stat_defs[STAT_CPU_USER_PCT], user);
    rc |= metric_put(out, &stat_defs[STAT_CPU_SYSTEM_PCT], sys);
    rc |= metric_put(out, &stat_defs[STAT_CPU_IDLE_PCT], idle);
    rc |= metric_put(out, &stat_defs[STAT_CPU_IOWAIT_PCT], iowait);
    rc |= metric_put(out, &stat_defs[STAT_CPU_STEAL_PCT], steal);
    rc |= metric_put(out, &stat_defs[STAT_CPU_UTIL_PCT], 100.0 - idle - iowait);
    if (user > 0)
        rc |= metric_put(out, &stat_defs[STAT_CPU_SYS_USER_RATIO], sys / user);
    return rc;
}

static int stat_derive(const struct series_table *t, long page_size, struct metric_set *out, struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    double d;
    int rc = derive_cpu(t, out);
    if (series_delta(t, "stat.ctxt", &d))
        rc |= metric_put(out, &stat_defs[STAT_CTXT], d);
    if (series_delta(t, "stat.intr", &d))
        rc |= metric_put(out, &stat_defs[STAT_INTR], d);
    return rc;
}

static void stat_init(struct source_set *ss, const struct source_opts *o)
{
    source_add_file(ss, "stat", o->proc_root, "stat", "stat", parse_proc_stat);
}

static const struct metric_group *const stat_groups[] = { &stat_metrics, NULL };
const struct source_def source_stat = { .init = stat_init, .derive = stat_derive, .metrics = stat_groups };
