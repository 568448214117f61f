#ifndef PM_MONITORS_H
#define PM_MONITORS_H
/* Collectors that need more than one file re-read: the swap devices' lines
 * of /proc/diskstats (the devices are found in /proc/swaps when the run
 * starts), the workload's largest processes (its cgroup's cgroup.procs and
 * each one's /proc/PID/status), and the mTHP counters of every huge page
 * size that is not off. */
#include "collectors/collector.h"

/* diskstats.DEV.{reads,read_sectors,read_ms,writes,write_sectors,write_ms,
 * in_flight,io_ms,queue_ms} for each device swap is on (a swap file's
 * filesystem's device; zram0 for zram). */
void diskstats_collector_init(struct collector *c, const char *proc_root);
/* procs.topN.{rss_kb,swap_kb,pid} for the 5 processes with the most RSS
 * in the cgroup whose cgroup.procs is given. */
void procs_collector_init(struct collector *c, const char *cgroup_procs);
/* mthp.SIZE.{anon_fault_alloc,anon_fault_fallback,swpout,swpout_fallback,
 * split,nr_anon} from /sys/kernel/mm/transparent_hugepage/hugepages-SIZE. */
void mthp_collector_init(struct collector *c, const char *thp_dir);

/* zoneinfo.ZONE.{free,min,low,high,below_low,below_min} of each populated
 * zone: the watermarks read from /proc/zoneinfo at open and every 10 s,
 * the free pages each tick from /proc/buddyinfo (a tenth of the cost). */
void zones_collector_init(struct collector *c, const char *proc_root);

#endif
