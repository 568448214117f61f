#ifndef PM_COLLECTORS_SOURCE_H
#define PM_COLLECTORS_SOURCE_H
/* A source a run samples, as the struct source_def source_NAME its own
 * file defines: how it adds its collectors to a run's set, the metrics it
 * derives from what they saw at the run's end, and their declarations.
 * Adding a source is that file plus one line in the registry
 * (PM_SOURCES in collectors/sources.h), which names it: NAME is its word
 * for --collect. collectors/src_skeleton.c is one to copy. */
#include "collectors/collector.h"
#include "collectors/gauges.h"
#include "collectors/heartbeat.h"
#include "lib/metrics.h"
#include "lib/series.h"

#define PM_MAX_SOURCES 32

struct source_opts {
    const char *proc_root;        /* NULL: /proc */
    const char *thp_dir;          /* NULL: /sys/kernel/mm/transparent_hugepage */
    const char *memcg_dir;        /* the workload's cgroup, or NULL */
    int memcg_version;            /* 1 or 2 */
    const char *sibling_dir;      /* the sibling hog's cgroup, or NULL */
    struct heartbeat *hb;         /* NULL: none */
    struct gauges *gauges;        /* the workload's own values; NULL: none */
    unsigned off;                 /* 1 << enum source_id (sources.h) for each source switched off */
};

struct source_set {
    struct collector cols[PM_MAX_SOURCES];
    size_t n;
};

/* What derive says of where figures came from (kept with the run). */
struct derive_notes {
    const char *swap_source;    /* which counters the swap totals came from */
    const char *steal_source;   /* pgsteal split: node counters or 2.6's kswapd_steal */
};

struct source_def {
    /* Add this source's collectors to ss (none when o leaves it nothing to read). */
    void (*init)(struct source_set *ss, const struct source_opts *o);
    /* Optional: the run-end metrics from the series (first, last, max of
     * each); page_size converts page counts. Pure: no /proc, no database,
     * so every formula is tested against fixtures of several kernels.
     * -1 only when out of memory. */
    int (*derive)(const struct series_table *t, long page_size, struct metric_set *out, struct derive_notes *notes);
    /* The metrics it derives, as groups under their headings; NULL-terminated, or NULL. */
    const struct metric_group *const *metrics;
};

/* Add a collector that re-reads dir/file each tick (collectors/procfile.c):
 * series named prefix.KEY as parse reads them, run_source.source = source. */
void source_add_file(struct source_set *ss, const char *source, const char *dir, const char *file,
                     const char *prefix, proc_parse_fn parse);
/* The next free collector of ss, or NULL when the set is full. */
struct collector *source_next(struct source_set *ss);

#endif
