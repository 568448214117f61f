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

/* The registry: one line per source, X(name) standing for the struct
 * source_def source_name its own file defines; name is the source's word
 * for --collect. The order is the one sources are set up, derive and are
 * listed in (help metrics, --collect's words), so a new source goes at the
 * end, leaving what the others print as it was. The enum, the table
 * (sources.c) and --collect's word list (PM_SOURCE_WORDS) are all made
 * from this list. */
#define PM_SOURCES(X) \
    X(stat)           \
    X(vmstat)         \
    X(meminfo)        \
    X(psi)            \
    X(memcg)          \
    X(heartbeat)      \
    X(buddyinfo)      \
    X(zoneinfo)       \
    X(diskstats)      \
    X(procs)          \
    X(mthp)           \
    X(workload)

#define PM_SOURCE_ID(name) SRC_##name,
enum source_id { PM_SOURCES(PM_SOURCE_ID) SRC_COUNT };
/* source_opts.off has a bit a source. */
_Static_assert(SRC_COUNT <= 32, "more sources than source_opts.off has bits");
/* The words, each after a blank: " stat vmstat ... workload", for --help. */
#define PM_SOURCE_WORD(name) " " #name
#define PM_SOURCE_WORDS PM_SOURCES(PM_SOURCE_WORD)

/* The sources' table (struct source_def) and their names, in that order. */
extern const struct source_def *const source_registry[SRC_COUNT];
extern const char *const source_names[SRC_COUNT];

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
