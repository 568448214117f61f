#ifndef PM_SOURCES_H
#define PM_SOURCES_H
/* The sources a run samples, each one a collector that can be switched off
 * (--collect -NAME): /proc/stat, /proc/vmstat, /proc/meminfo,
 * /proc/pressure/{memory,cpu,io}, the files of the run's memory cgroup,
 * the heartbeat, /proc/buddyinfo, /proc/zoneinfo, the swap devices'
 * /proc/diskstats, the workload's largest processes, the mTHP counters and
 * the workload's own gauges (its latency while it runs). */
#include "collectors/source.h"
#include "lib/err.h"

enum source_id {
    SRC_STAT, SRC_VMSTAT, SRC_MEMINFO, SRC_PSI, SRC_MEMCG, SRC_HEARTBEAT,
    SRC_BUDDYINFO, SRC_ZONEINFO, SRC_DISKSTATS, SRC_PROCS, SRC_MTHP, SRC_WORKLOAD, SRC_COUNT
};
/* The sources' table (struct source_def), in that order. */
extern const struct source_def *const pm_sources[SRC_COUNT];

void sources_init(struct source_set *ss, const struct source_opts *o);
/* Open every source; an absent one is marked (open_ok false, note says why). */
void sources_open(struct source_set *ss);
void sources_close(struct source_set *ss);
/* Every source's run-end metrics from the series, in the table's order
 * (notes may be NULL). When out already holds time.elapsed_s, reclaim's
 * scan velocity is derived from it too. -1 only when out of memory. */
int derive_metrics(const struct series_table *t, long page_size, struct metric_set *out,
                   struct derive_notes *notes);

/* "-buddyinfo,-zoneinfo" (or "+name" / "name" to switch one back on) into
 * off; -1 with err naming the word and what is accepted. */
int sources_parse_collect(const char *text, unsigned *off, struct pm_err *err);
/* The switched-off sources' names, space-separated ("" when none). */
void sources_describe_off(unsigned off, char *buf, size_t len);

#endif
