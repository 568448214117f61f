#ifndef PM_PROC_PARSE_H
#define PM_PROC_PARSE_H
/* Parsers for the text the kernel exports, one per format, each handing
 * "prefix.key" values to a sink. They take a buffer, not a path, so tests feed
 * them fixtures from other kernel generations and the sampler feeds them what
 * pread returned. Keys are always taken from the text, never from a position:
 * /proc/vmstat grew and reordered across every kernel series. */
#include <stddef.h>
#include "lib/series.h"

/* Signature shared by every parser. Returns the number of values put, or -1
 * when the text is not in the expected format at all. */
typedef int (*proc_parse_fn)(const char *buf, size_t len, const char *prefix, struct sink *sink);

/* /proc/stat: the aggregate cpu line's columns by their documented names
 * (user nice system idle iowait irq softirq steal; older kernels have fewer),
 * ctxt, intr (the total only), processes, procs_running, procs_blocked, and
 * 2.4's "page IN OUT" and "swap IN OUT" lines. */
int parse_proc_stat(const char *buf, size_t len, const char *prefix, struct sink *sink);

/* "key value" lines (/proc/vmstat, memory.stat, memory.events, oom_control)
 * and "Key:   value kB" lines (/proc/meminfo); the value is the first number. */
int parse_keyed_lines(const char *buf, size_t len, const char *prefix, struct sink *sink);

/* PSI: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" and a "full" line;
 * puts prefix.some.avg10 (percent) and prefix.some.total (microseconds). */
int parse_psi(const char *buf, size_t len, const char *prefix, struct sink *sink);

/* A file holding one number (memory.current, memory.failcnt); "max" is not a
 * value and puts nothing. */
int parse_single_value(const char *buf, size_t len, const char *prefix, struct sink *sink);

/* /proc/buddyinfo: free blocks per order per zone (node0.Normal.order3),
 * the pages free in all zones, and the unusable free space index for
 * order 9 (2 MB huge pages on x86) in thousandths. */
int parse_buddyinfo(const char *buf, size_t len, const char *prefix, struct sink *sink);

/* /proc/zoneinfo: per zone, pages free and the min, low and high
 * watermarks, and how many pages free is below low and below min. */
int parse_zoneinfo(const char *buf, size_t len, const char *prefix, struct sink *sink);

#endif
