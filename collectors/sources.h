#ifndef PM_SOURCES_H
#define PM_SOURCES_H
/* The sources every run samples: /proc/stat, /proc/vmstat, /proc/meminfo,
 * /proc/pressure/{memory,cpu,io}, the heartbeat, and the files of the run's
 * memory cgroup when the workload has one. */
#include "collectors/collector.h"
#include "collectors/heartbeat.h"

#define PM_MAX_SOURCES 24

struct source_set {
    struct collector cols[PM_MAX_SOURCES];
    size_t n;
};

/* memcg_dir is the workload's cgroup directory or NULL; memcg_version 1 or 2. */
void sources_init(struct source_set *ss, const char *proc_root, const char *memcg_dir,
                  int memcg_version, struct heartbeat *hb);
/* Open every source; an absent one is marked (open_ok false, note says why). */
void sources_open(struct source_set *ss);
void sources_close(struct source_set *ss);

#endif
