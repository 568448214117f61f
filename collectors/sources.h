#ifndef PM_SOURCES_H
#define PM_SOURCES_H
/* The sources a run samples, each one a collector that can be switched off
 * (--collect -NAME): /proc/stat, /proc/vmstat, /proc/meminfo,
 * /proc/pressure/{memory,cpu,io}, the files of the run's memory cgroup,
 * the heartbeat, /proc/buddyinfo, /proc/zoneinfo, the swap devices'
 * /proc/diskstats, the workload's largest processes, the mTHP counters and
 * the workload's own gauges (its latency while it runs). */
#include "collectors/collector.h"
#include "collectors/gauges.h"
#include "collectors/heartbeat.h"
#include "lib/err.h"

#define PM_MAX_SOURCES 24

enum source_id {
    SRC_STAT, SRC_VMSTAT, SRC_MEMINFO, SRC_PSI, SRC_MEMCG, SRC_HEARTBEAT,
    SRC_BUDDYINFO, SRC_ZONEINFO, SRC_DISKSTATS, SRC_PROCS, SRC_MTHP, SRC_WORKLOAD, SRC_COUNT
};
/* Their names, as --collect and run_source.source spell them. */
extern const char *const source_names[SRC_COUNT];

struct source_opts {
    const char *proc_root;        /* NULL: /proc */
    const char *thp_dir;          /* NULL: /sys/kernel/mm/transparent_hugepage */
    const char *memcg_dir;        /* the workload's cgroup, or NULL */
    int memcg_version;            /* 1 or 2 */
    struct heartbeat *hb;         /* NULL: none */
    struct gauges *gauges;        /* the workload's own values; NULL: none */
    unsigned off;                 /* 1 << enum source_id for each source switched off */
};

struct source_set {
    struct collector cols[PM_MAX_SOURCES];
    size_t n;
};

void sources_init(struct source_set *ss, const struct source_opts *o);
/* Open every source; an absent one is marked (open_ok false, note says why). */
void sources_open(struct source_set *ss);
void sources_close(struct source_set *ss);

/* "-buddyinfo,-zoneinfo" (or "+name" / "name" to switch one back on) into
 * off; -1 with err naming the word and what is accepted. */
int sources_parse_collect(const char *text, unsigned *off, struct pm_err *err);
/* The switched-off sources' names, space-separated ("" when none). */
void sources_describe_off(unsigned off, char *buf, size_t len);

#endif
