#include "lib/metric_doc.h"
#include <string.h>

#define GROUP(title) { .group = title }
#define M(n, u, d, text) { .name = n, .unit = u, .dir = d, .meaning = text }
/* A workload's latency histogram (run_latency()) gives these eight. */
#define LATENCY(prefix, what)                                                                       \
    M(prefix "_samples", "count", PM_NEITHER, "latencies recorded: " what),                         \
    M(prefix "_p50_us", "us", PM_LOWER, "median of " what " (within 0.8%, log-linear histogram)"), \
    M(prefix "_p90_us", "us", PM_LOWER, "90th percentile of " what),                              \
    M(prefix "_p99_us", "us", PM_LOWER, "99th percentile of " what),                              \
    M(prefix "_p999_us", "us", PM_LOWER, "99.9th percentile of " what),                           \
    M(prefix "_max_us", "us", PM_LOWER, "the longest of " what),                                  \
    M(prefix "_mean_us", "us", PM_LOWER, "mean of " what)

const struct metric_doc metric_docs[] = {
    GROUP("time: the workload's processes, from wait4()'s rusage and the wall clock (every run)"),
    M("time.elapsed_s", "s", PM_LOWER, "wall time from the workload's start to the end of its last process"),
    M("time.user_s", "s", PM_LOWER, "CPU time in user mode of the workload and its waited-for children"),
    M("time.sys_s", "s", PM_LOWER, "CPU time in the kernel of the workload and its waited-for children"),
    M("time.cpu_pct", "%", PM_NEITHER, "(user + sys) / elapsed, as GNU time's %CPU (200 is two CPUs busy)"),
    M("time.majflt", "count", PM_LOWER, "major page faults (needed I/O: swap-in or file read)"),
    M("time.minflt", "count", PM_LOWER, "minor page faults (no I/O)"),
    M("time.nvcsw", "count", PM_NEITHER, "voluntary context switches (waits)"),
    M("time.nivcsw", "count", PM_NEITHER, "involuntary context switches (preemptions)"),
    M("time.maxrss_kb", "KB", PM_LOWER, "largest resident set of any one of its processes"),
    M("time.inblock", "count", PM_NEITHER, "file system inputs, 512-byte blocks"),
    M("time.oublock", "count", PM_NEITHER, "file system outputs, 512-byte blocks"),
    M("time.exit_status", "code", PM_NEITHER, "the recorded command's exit status (record only)"),

    GROUP("stat: /proc/stat, the change over the run, all CPUs"),
    M("stat.cpu.util_pct", "%", PM_NEITHER, "the reports' %CPU: 100 - idle - iowait"),
    M("stat.cpu.user_pct", "%", PM_NEITHER, "user + nice, as vmstat's us"),
    M("stat.cpu.system_pct", "%", PM_NEITHER, "system + irq + softirq, as vmstat's sy"),
    M("stat.cpu.idle_pct", "%", PM_NEITHER, "idle"),
    M("stat.cpu.iowait_pct", "%", PM_LOWER, "iowait: idle with I/O outstanding"),
    M("stat.cpu.steal_pct", "%", PM_LOWER, "time a hypervisor gave another guest"),
    M("stat.cpu.sys_user_ratio", "ratio", PM_LOWER, "system_pct / user_pct, the reports' %sys/%user"),
    M("stat.ctxt", "count", PM_NEITHER, "context switches, all CPUs"),
    M("stat.intr", "count", PM_NEITHER, "interrupts serviced, all CPUs"),

    GROUP("swap: pages swapped, times the page size (/proc/vmstat pswpin and pswpout; 2.4's /proc/stat swap "
          "line; pgpgin and pgpgout are never substituted)"),
    M("swap.in_kb", "KB", PM_LOWER, "swapped in over the run (the reports' swpin)"),
    M("swap.out_kb", "KB", PM_LOWER, "swapped out over the run (swpout)"),
    M("swap.io_kb", "KB", PM_LOWER, "in + out (swapio)"),
    M("swap.in_kbps_min", "KB/s", PM_LOWER, "the slowest swap-in rate of any sampling interval"),
    M("swap.in_kbps_max", "KB/s", PM_LOWER, "the fastest swap-in rate of any sampling interval"),
    M("swap.out_kbps_min", "KB/s", PM_LOWER, "the slowest swap-out rate of any sampling interval"),
    M("swap.out_kbps_max", "KB/s", PM_LOWER, "the fastest swap-out rate of any sampling interval"),
    M("zswap.in_kb", "KB", PM_LOWER, "loaded back from zswap's pool (vmstat zswpin)"),
    M("zswap.out_kb", "KB", PM_LOWER, "stored into zswap's pool (vmstat zswpout)"),
    M("zswap.stored_max_kb", "KB", PM_NEITHER, "zswap's pool at its largest (meminfo Zswapped, 5.19 on)"),

    GROUP("vmstat: /proc/vmstat, the change over the run (per-zone counters of older kernels summed)"),
    M("vmstat.pgfault", "count", PM_LOWER, "page faults, system-wide"),
    M("vmstat.pgmajfault", "count", PM_LOWER, "major page faults, system-wide"),
    M("vmstat.oom_kill", "count", PM_LOWER, "OOM killer kills, system-wide"),
    M("vmstat.pgscan_kswapd", "pages", PM_LOWER, "pages kswapd scanned"),
    M("vmstat.pgscan_direct", "pages", PM_LOWER, "pages scanned in direct reclaim by allocating tasks"),
    M("vmstat.pgsteal_kswapd", "pages", PM_LOWER, "pages kswapd reclaimed (2.6: kswapd_steal)"),
    M("vmstat.pgsteal_direct", "pages", PM_LOWER, "pages reclaimed in direct reclaim (2.6: pgsteal_<zone> - kswapd_steal)"),
    M("vmstat.pgscan_total", "pages", PM_LOWER,
      "pgscan_anon + pgscan_file: since 5.x the only global count that includes reclaim forced by a cgroup's limit"),
    M("vmstat.pgsteal_total", "pages", PM_LOWER, "pgsteal_anon + pgsteal_file, likewise"),
    M("vmstat.allocstall", "count", PM_LOWER, "entries into direct reclaim (allocstall_<zone> summed)"),
    M("vmstat.workingset_refault_anon", "pages", PM_LOWER, "evicted anonymous pages faulted back in while still in the working set's reach"),
    M("vmstat.workingset_refault_file", "pages", PM_LOWER, "evicted file pages read back in likewise"),
    M("vmstat.workingset_activate_anon", "pages", PM_LOWER, "refaulted anonymous pages activated at once (they were hot)"),
    M("vmstat.workingset_activate_file", "pages", PM_LOWER, "refaulted file pages activated at once"),
    M("vmstat.workingset_restore_anon", "pages", PM_LOWER, "refaulted anonymous pages that had been active before eviction"),
    M("vmstat.workingset_restore_file", "pages", PM_LOWER, "refaulted file pages that had been active before eviction"),
    M("vmstat.thp_fault_alloc", "count", PM_NEITHER, "transparent huge pages allocated at fault"),
    M("vmstat.thp_fault_fallback", "count", PM_LOWER, "faults that wanted a huge page and got small ones"),
    M("vmstat.compact_stall", "count", PM_LOWER, "allocations that stalled for direct compaction"),
    M("vmstat.compact_fail", "count", PM_LOWER, "direct compactions that did not free a page of the order wanted"),
    M("vmstat.compact_success", "count", PM_NEITHER, "direct compactions that did"),
    M("vmstat.swap_ra", "pages", PM_NEITHER, "pages read ahead from swap"),
    M("vmstat.swap_ra_hit", "pages", PM_NEITHER, "read-ahead swap pages that were then used"),
    M("vmstat.zswpwb", "pages", PM_LOWER, "pages zswap wrote back to the swap device"),

    GROUP("reclaim: derived from the vmstat counters, in the terms of mmtests' reclaim summary"),
    M("reclaim.efficiency_pct", "%", PM_HIGHER,
      "pages reclaimed / pages scanned, from the anon + file totals (includes cgroup-limit reclaim); absent when nothing was scanned"),
    M("reclaim.kswapd_efficiency_pct", "%", PM_HIGHER, "pgsteal_kswapd / pgscan_kswapd"),
    M("reclaim.direct_efficiency_pct", "%", PM_HIGHER, "pgsteal_direct / pgscan_direct"),
    M("reclaim.direct_scan_pct", "%", PM_LOWER, "direct reclaim's share of kswapd + direct scanning"),
    M("reclaim.scan_velocity", "pages/s", PM_LOWER, "pages scanned per second of time.elapsed_s"),
    M("reclaim.refaults", "pages", PM_LOWER, "workingset_refault_anon + _file (one counter before 5.9)"),

    GROUP("psi: /proc/pressure, the change of each total over the run"),
    M("psi.<resource>.some_s", "s", PM_LOWER,
      "time at least one task stalled on <resource> (memory, io or cpu)"),
    M("psi.<resource>.full_s", "s", PM_LOWER, "time every non-idle task stalled on <resource> at once (memory, io or cpu)"),

    GROUP("memcg: the run's memory cgroup (v2 names, or their v1 counterparts)"),
    M("memcg.usage_max_bytes", "bytes", PM_LOWER, "memory.current (v1 memory.usage_in_bytes) at its largest"),
    M("memcg.swap_max_bytes", "bytes", PM_LOWER, "memory.swap.current at its largest (v2)"),
    M("memcg.oom_kill", "count", PM_LOWER, "OOM kills in the cgroup (memory.events oom_kill; v1 memory.oom_control)"),
    M("memcg.limit_hits", "count", PM_LOWER, "times usage reached the limit (memory.events max; v1 memory.failcnt)"),
    M("memcg.pgscan", "pages", PM_LOWER, "pages the cgroup's reclaim scanned (v2 memory.stat)"),
    M("memcg.pgsteal", "pages", PM_LOWER, "pages the cgroup's reclaim took (v2 memory.stat)"),
    M("memcg.pgmajfault", "count", PM_LOWER, "major faults of the cgroup's tasks (memory.stat)"),
    M("memcg.refaults", "pages", PM_LOWER, "the cgroup's workingset_refault_anon + _file"),

    GROUP("monitors: fragmentation, watermarks, the swap devices, the largest processes, mTHP"),
    M("frag.unusable_o9_max_pct", "%", PM_LOWER,
      "the unusable free space index for order 9 (2 MB) at its worst, from /proc/buddyinfo"),
    M("zone.below_low_max_pages", "pages", PM_LOWER, "the most any zone's free pages fell below its low watermark (/proc/zoneinfo)"),
    M("zone.below_min_max_pages", "pages", PM_LOWER, "the most any zone's free pages fell below its min watermark"),
    M("swapdev.reads", "ops", PM_LOWER, "reads completed by the swap devices' disks (/proc/diskstats)"),
    M("swapdev.writes", "ops", PM_LOWER, "writes completed by the swap devices' disks"),
    M("swapdev.read_kb", "KB", PM_LOWER, "read from the swap devices' disks"),
    M("swapdev.write_kb", "KB", PM_LOWER, "written to the swap devices' disks"),
    M("swapdev.await_ms", "ms", PM_LOWER,
      "(read + write ms) / requests, iostat's await; a swap file's disk counts its other files' I/O too"),
    M("procs.rss_max_kb", "KB", PM_NEITHER, "the workload's largest process at its largest (VmRSS)"),
    M("procs.swap_max_kb", "KB", PM_LOWER, "the most any of its five largest processes had swapped (VmSwap)"),
    M("mthp.anon_fault_alloc", "count", PM_NEITHER, "mTHP folios allocated at fault, all sizes that are on"),
    M("mthp.anon_fault_fallback", "count", PM_LOWER, "mTHP faults that fell back to smaller folios"),
    M("mthp.swpout", "count", PM_LOWER, "mTHP folios swapped out whole"),
    M("mthp.swpout_fallback", "count", PM_LOWER, "mTHP folios split before swap-out"),
    M("mthp.split", "count", PM_LOWER, "mTHP folios split"),

    GROUP("stall: --trace-reclaim, each stall from its begin to its end tracepoint per task (trace buffers); "
          "<kind> is direct (direct reclaim), memcg (a cgroup's limit reclaim) or compaction"),
    M("stall.<kind>.count", "stalls", PM_LOWER, "stalls of this kind"),
    M("stall.<kind>.total_ms", "ms", PM_LOWER, "their summed duration"),
    M("stall.<kind>.p50_us", "us", PM_LOWER, "median duration (within 0.8%)"),
    M("stall.<kind>.p90_us", "us", PM_LOWER, "90th percentile duration"),
    M("stall.<kind>.p99_us", "us", PM_LOWER, "99th percentile duration"),
    M("stall.<kind>.max_us", "us", PM_LOWER, "the longest"),
    M("stall.events", "events", PM_NEITHER, "trace events read"),
    M("stall.lost_events", "events", PM_LOWER, "events the trace buffers dropped (the stalls are then a lower bound)"),
    M("stall.unpaired", "events", PM_NEITHER, "an end without its begin or the reverse (the run's edges)"),
    M("stall.nested", "events", PM_NEITHER, "a begin inside an open stall of the same task and kind"),

    GROUP("observer: what measuring cost (every run)"),
    M("sampler.ticks", "count", PM_NEITHER, "samples taken"),
    M("sampler.missed_ticks", "count", PM_LOWER, "sampling intervals passed without a sample"),
    M("sampler.late_p99_ms", "ms", PM_LOWER, "99th percentile of how late a sample was taken"),
    M("sampler.cpu_s", "s", PM_LOWER, "CPU time of the sampling thread"),
    M("sampler.store_deferred", "count", PM_NEITHER,
      "times the samples waited in memory because another writer held the database (written a moment later)"),
    M("heartbeat.beats", "count", PM_NEITHER, "wake-ups of the heartbeat thread (every 100 ms)"),
    M("heartbeat.late_p50_ms", "ms", PM_LOWER, "median of how late it woke (a stall of the whole machine shows here)"),
    M("heartbeat.late_p99_ms", "ms", PM_LOWER, "99th percentile of how late it woke"),
    M("heartbeat.late_max_ms", "ms", PM_LOWER, "the latest it woke"),
    M("heartbeat.skipped", "count", PM_LOWER, "beats lost to a wake-up later than a whole period"),
    M("pressmark.maxrss_kb", "KB", PM_LOWER, "pressmark's own largest resident set"),

    GROUP("chat: run chat, the VolanoMark client and server"),
    M("chat.msgs_per_s", "msg/s", PM_HIGHER, "messages sent + received per second: VolanoMark's throughput (the headline)"),
    M("chat.delivered_per_s", "msg/s", PM_HIGHER, "messages received per second"),
    M("chat.elapsed_s", "s", PM_LOWER, "the client's chatting time: from every room full to every connection closed (VolanoMark's)"),
    M("chat.sent", "count", PM_NEITHER, "messages the users sent"),
    M("chat.received", "count", PM_NEITHER, "messages the users received"),
    M("chat.total", "count", PM_NEITHER, "sent + received"),
    M("chat.order_errors", "count", PM_LOWER, "messages received out of their sender's order"),
    M("chat.connections", "count", PM_NEITHER, "client connections made"),
    M("chat.client_collections", "count", PM_LOWER, "collections of the client's simulated Java heap (--heap)"),
    M("chat.server_collections", "count", PM_LOWER, "collections of the server's simulated heap"),
    M("chat.server_cpu_s", "s", PM_LOWER, "the server's CPU time"),
    M("chat.cpu_us_per_delivery", "us", PM_LOWER, "client + server CPU time per message received"),
    M("chat.unstamped", "count", PM_NEITHER, "messages without pressmark's send time (the Java client's)"),
    LATENCY("chat.latency", "delivery latency, from the send stamp to the receiving user"),

    GROUP("build: run build, make -j on a generated tree (time.elapsed_s is the headline)"),
    M("build.jobs", "count", PM_NEITHER, "make's -j"),

    GROUP("swapout: run swapout, mtest01's swap-out bandwidth"),
    M("swapout.mb_per_s", "MB/s", PM_HIGHER, "size / the timed allocation's seconds (the headline)"),
    M("swapout.elapsed_s", "s", PM_LOWER, "the timed allocation"),
    M("swapout.timed_swap_out_kb", "KB", PM_LOWER, "swapped out, system-wide (pswpout), while the allocator ran"),
    M("swapout.size_bytes", "bytes", PM_NEITHER, "memory allocated and written"),
    M("swapout.prefill_bytes", "bytes", PM_NEITHER, "memory filled before the timed part"),

    GROUP("shmio: run shmio, the wblg-disk benchmark: processes writing files between passes over SysV shared memory"),
    M("shmio.write_mb_per_s", "MB/s", PM_HIGHER, "written per second (the headline)"),
    M("shmio.passes", "count", PM_HIGHER, "passes over the shared memory segments"),
    M("shmio.bytes_written", "bytes", PM_NEITHER, "written to the files"),
    M("shmio.bytes_read", "bytes", PM_NEITHER, "read from the files (--read-pct)"),
    M("shmio.bytes_on_disk", "bytes", PM_NEITHER, "the files' sizes at the end (bytes_written is checked against them)"),
    M("shmio.processes", "count", PM_NEITHER, "processes that started"),

    GROUP("usemem: run usemem, vm-scalability's usemem"),
    M("usemem.mb_per_s", "MB/s", PM_HIGHER, "bytes swept / wall time from the start gate to the last worker's end (the headline)"),
    M("usemem.elapsed_s", "s", PM_LOWER, "that wall time"),
    M("usemem.worker_mb_per_s_min", "MB/s", PM_HIGHER, "the slowest worker's rate"),
    M("usemem.worker_mb_per_s_mean", "MB/s", PM_HIGHER, "the workers' mean rate"),
    M("usemem.worker_mb_per_s_max", "MB/s", PM_HIGHER, "the fastest worker's rate"),
    M("usemem.fill_mb_per_s", "MB/s", PM_HIGHER, "the untimed fill before read sweeps"),
    M("usemem.workers", "count", PM_NEITHER, "procs x threads"),
    M("usemem.size_bytes", "bytes", PM_NEITHER, "each worker's mapping"),
    M("usemem.bytes", "bytes", PM_NEITHER, "bytes swept, all workers"),
    M("usemem.pages_touched", "pages", PM_NEITHER, "pages swept, all workers"),
    M("usemem.passes_min", "count", PM_NEITHER, "the fewest passes any worker finished"),
    M("usemem.verified_pages", "pages", PM_NEITHER, "pages checked word by word at the end"),
    M("usemem.bad_pages", "pages", PM_LOWER, "pages that held a wrong word (the run fails)"),

    GROUP("pagefault: run pagefault, will-it-scale's page_fault1/2/3"),
    M("pagefault.faults_per_s", "faults/s", PM_HIGHER, "pages faulted per second, all threads (the headline)"),
    M("pagefault.per_thread_per_s", "faults/s", PM_HIGHER, "the same per thread"),
    M("pagefault.elapsed_s", "s", PM_NEITHER, "the timed part (set by --duration)"),
    M("pagefault.threads", "count", PM_NEITHER, "threads of this phase"),
    M("pagefault.pages_touched", "pages", PM_NEITHER, "pages written, one byte each"),
    M("pagefault.mappings", "count", PM_NEITHER, "mmap + munmap rounds"),
    M("pagefault.minor_faults", "faults", PM_NEITHER, "the kernel's minor faults over the timed part"),
    M("pagefault.major_faults", "faults", PM_LOWER, "major faults over the timed part"),
    M("pagefault.faults_per_page", "ratio", PM_NEITHER, "(minor + major) / pages: 1 or more for anonymous and private file mappings"),

    GROUP("stutter: run stutter, mmtests' stutterp"),
    M("stutter.hog_mb_per_s", "MB/s", PM_HIGHER, "the hog's write rate while the probe runs"),
    M("stutter.hog_sweeps", "count", PM_NEITHER, "the hog's passes over its memory"),
    M("stutter.hog_bytes", "bytes", PM_NEITHER, "the hog's memory"),
    M("stutter.fill_s", "s", PM_LOWER, "the hog's first fill"),
    M("stutter.rounds", "count", PM_NEITHER, "probe rounds"),
    LATENCY("stutter.latency", "a probe round: map, touch and unmap --probe-size (the headline is p99)"),

    GROUP("filestream: run filestream, a file streamed beside an anonymous set"),
    M("filestream.read_mb_per_s", "MB/s", PM_HIGHER, "the stream's read rate (the headline)"),
    M("filestream.elapsed_s", "s", PM_LOWER, "the timed stream"),
    M("filestream.anon_pages_per_s", "pages/s", PM_HIGHER, "anonymous pages touched per second meanwhile"),
    M("filestream.file_bytes", "bytes", PM_NEITHER, "the file's size"),
    M("filestream.anon_bytes", "bytes", PM_NEITHER, "the anonymous set's size"),
    M("filestream.bytes_read", "bytes", PM_NEITHER, "read from the file"),
    M("filestream.passes", "count", PM_NEITHER, "passes over the file"),
    M("filestream.anon_pages_touched", "pages", PM_NEITHER, "anonymous pages touched"),
    M("filestream.bad_blocks", "blocks", PM_LOWER, "4K blocks that held another offset's data (the run fails)"),
};
const size_t metric_docs_n = sizeof metric_docs / sizeof metric_docs[0];

/* A pattern's "<word>" matches one or more of [a-z0-9_]; everything else
 * matches itself. */
static int matches(const char *pat, const char *s)
{
    while (*pat) {
        if (*pat == '<') {
            const char *end = strchr(pat, '>');
            if (!end)
                return 0;
            size_t n = 0;
            while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
                n++;
            /* The word is greedy but may give back what the rest needs. */
            for (; n > 0; n--)
                if (matches(end + 1, s + n))
                    return 1;
            return 0;
        }
        if (*pat++ != *s++)
            return 0;
    }
    return *s == '\0';
}

const struct metric_doc *metric_doc_find(const char *name)
{
    for (size_t i = 0; i < metric_docs_n; i++)
        if (metric_docs[i].name && matches(metric_docs[i].name, name))
            return &metric_docs[i];
    return NULL;
}

const char *metric_doc_check(const char *name, const char *unit, enum metric_dir dir)
{
    static char why[256];
    const struct metric_doc *d = metric_doc_find(name);
    if (!d)
        snprintf(why, sizeof why, "metric %s is not in the catalogue (lib/metric_doc.c)", name);
    else if (strcmp(d->unit, unit) != 0 || d->dir != dir)
        snprintf(why, sizeof why, "metric %s is stored as %s, %s; the catalogue (lib/metric_doc.c) says %s, %s", name,
                 unit, metric_dir_name(dir), d->unit, metric_dir_name(d->dir));
    else
        return NULL;
    return why;
}

static const char *better(enum metric_dir d)
{
    return d == PM_HIGHER ? "higher" : d == PM_LOWER ? "lower" : "-";
}

/* Words wrapped at 110 columns, continuation lines under the text. */
static void wrapped(FILE *f, const char *text, size_t col, size_t indent)
{
    const char *p = text;
    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t w = sp ? (size_t)(sp - p) : strlen(p);
        if (col + 1 + w > 110 && col > indent) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (p != text) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)w, p);
        col += w;
        p += w;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

void metric_doc_print(FILE *f)
{
    enum { NAME_W = 31, UNIT_W = 9, DIR_W = 8, TEXT_COL = 2 + NAME_W + 2 + UNIT_W + DIR_W };
    fprintf(f, "\n  %-*s  %-*s%-*s%s\n", NAME_W, "metric", UNIT_W, "unit", DIR_W, "better", "what it is");
    for (size_t i = 0; i < metric_docs_n; i++) {
        const struct metric_doc *d = &metric_docs[i];
        if (d->group) {
            const char *colon = strchr(d->group, ':');
            size_t n = colon ? (size_t)(colon - d->group) : strlen(d->group);
            fprintf(f, "\n%.*s metrics:\n", (int)n, d->group);
            if (colon)
                wrapped(f, colon + 2, 0, 0);
            continue;
        }
        fprintf(f, "  %-*s  %-*s%-*s", NAME_W, d->name, UNIT_W, d->unit, DIR_W, better(d->dir));
        wrapped(f, d->meaning, TEXT_COL, TEXT_COL);
    }
}
