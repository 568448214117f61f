#include "harness/derive.h"
#include <stdio.h>
#include <string.h>

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
    rc |= metric_set_put(out, "stat.cpu.user_pct", user, "%", PM_NEITHER);
    rc |= metric_set_put(out, "stat.cpu.system_pct", sys, "%", PM_NEITHER);
    rc |= metric_set_put(out, "stat.cpu.idle_pct", idle, "%", PM_NEITHER);
    rc |= metric_set_put(out, "stat.cpu.iowait_pct", iowait, "%", PM_LOWER);
    rc |= metric_set_put(out, "stat.cpu.steal_pct", steal, "%", PM_LOWER);
    rc |= metric_set_put(out, "stat.cpu.util_pct", 100.0 - idle - iowait, "%", PM_NEITHER);
    if (user > 0)
        rc |= metric_set_put(out, "stat.cpu.sys_user_ratio", sys / user, "ratio", PM_LOWER);
    return rc;
}

static int put_delta(const struct series_table *t, struct metric_set *out, const char *series,
                     const char *metric, const char *unit, enum metric_dir dir)
{
    double d;
    if (!series_delta(t, series, &d))
        return 0;
    return metric_set_put(out, metric, d, unit, dir);
}

static int put_prefix_sum(const struct series_table *t, struct metric_set *out, const char *prefix,
                          const char *metric, const char *unit)
{
    double sum;
    if (series_delta_prefix(t, prefix, &sum) == 0)
        return 0;
    return metric_set_put(out, metric, sum, unit, PM_LOWER);
}

/* Swap traffic: /proc/vmstat's pswpin/pswpout (2.6 on), else 2.4's /proc/stat
 * "swap" line. Both count pages. pgpgin/pgpgout are not swap (they include
 * file I/O), so they are never substituted silently as the 2002 VolanoMark report had to. */
static int derive_swap(const struct series_table *t, long page_size, struct metric_set *out,
                       struct derive_notes *notes)
{
    double in, outp;
    double kb_per_page = (double)page_size / 1024.0;
    if (series_delta(t, "vmstat.pswpin", &in) && series_delta(t, "vmstat.pswpout", &outp)) {
        notes->swap_source = "/proc/vmstat pswpin, pswpout";
    } else if (series_delta(t, "stat.swap.in", &in) && series_delta(t, "stat.swap.out", &outp)) {
        notes->swap_source = "/proc/stat swap line";
    } else {
        notes->swap_source = "none (the kernel exports no swap counters)";
        return 0;
    }
    int rc = 0;
    rc |= metric_set_put(out, "swap.in_kb", in * kb_per_page, "KB", PM_LOWER);
    rc |= metric_set_put(out, "swap.out_kb", outp * kb_per_page, "KB", PM_LOWER);
    rc |= metric_set_put(out, "swap.io_kb", (in + outp) * kb_per_page, "KB", PM_LOWER);
    /* the wblg-disk report's vmstat table: swap in and out as min-max KB/s per tick. */
    double lo, hi;
    const char *in_name = strcmp(notes->swap_source, "/proc/stat swap line") == 0 ? "stat.swap.in" : "vmstat.pswpin";
    const char *out_name = strcmp(notes->swap_source, "/proc/stat swap line") == 0 ? "stat.swap.out" : "vmstat.pswpout";
    if (series_rate_range(t, in_name, &lo, &hi)) {
        rc |= metric_set_put(out, "swap.in_kbps_min", lo * kb_per_page, "KB/s", PM_LOWER);
        rc |= metric_set_put(out, "swap.in_kbps_max", hi * kb_per_page, "KB/s", PM_LOWER);
    }
    if (series_rate_range(t, out_name, &lo, &hi)) {
        rc |= metric_set_put(out, "swap.out_kbps_min", lo * kb_per_page, "KB/s", PM_LOWER);
        rc |= metric_set_put(out, "swap.out_kbps_max", hi * kb_per_page, "KB/s", PM_LOWER);
    }
    double zin, zout;
    if (series_delta(t, "vmstat.zswpin", &zin))
        rc |= metric_set_put(out, "zswap.in_kb", zin * kb_per_page, "KB", PM_LOWER);
    if (series_delta(t, "vmstat.zswpout", &zout))
        rc |= metric_set_put(out, "zswap.out_kb", zout * kb_per_page, "KB", PM_LOWER);
    return rc;
}

/* Reclaim: since 4.8 node counters pgscan_kswapd, pgscan_direct, pgsteal_*;
 * before that per-zone pgscan_kswapd_normal and friends (summed); 2.6.x had
 * per-zone pgsteal_<zone> for both plus kswapd_steal for kswapd's share. */
static int derive_reclaim(const struct series_table *t, struct metric_set *out, struct derive_notes *notes)
{
    int rc = 0;
    rc |= put_prefix_sum(t, out, "vmstat.pgscan_kswapd", "vmstat.pgscan_kswapd", "pages");
    rc |= put_prefix_sum(t, out, "vmstat.pgscan_direct", "vmstat.pgscan_direct", "pages");
    double sum;
    if (series_delta_prefix(t, "vmstat.pgsteal_kswapd", &sum) > 0) {
        notes->steal_source = "pgsteal_kswapd, pgsteal_direct";
        rc |= put_prefix_sum(t, out, "vmstat.pgsteal_kswapd", "vmstat.pgsteal_kswapd", "pages");
        rc |= put_prefix_sum(t, out, "vmstat.pgsteal_direct", "vmstat.pgsteal_direct", "pages");
    } else {
        double kswapd, zones = 0, z;
        static const char *zone_names[] = { "dma", "dma32", "normal", "high", "movable" };
        int nz = 0;
        for (size_t i = 0; i < sizeof zone_names / sizeof zone_names[0]; i++) {
            char name[64];
            snprintf(name, sizeof name, "vmstat.pgsteal_%s", zone_names[i]);
            if (series_delta(t, name, &z)) {
                zones += z;
                nz++;
            }
        }
        if (nz && series_delta(t, "vmstat.kswapd_steal", &kswapd)) {
            notes->steal_source = "pgsteal_<zone> and kswapd_steal (2.6)";
            rc |= metric_set_put(out, "vmstat.pgsteal_kswapd", kswapd, "pages", PM_LOWER);
            rc |= metric_set_put(out, "vmstat.pgsteal_direct", zones - kswapd, "pages", PM_LOWER);
        }
    }
    rc |= put_prefix_sum(t, out, "vmstat.allocstall", "vmstat.allocstall", "count");
    /* Since 5.x the kernel counts reclaim caused by a cgroup's limit only
     * in pgscan_anon/_file and pgsteal_anon/_file (and in the cgroup's own
     * stats), not in the kswapd/direct split: the totals include it. */
    double a, f;
    if (series_delta(t, "vmstat.pgscan_anon", &a) && series_delta(t, "vmstat.pgscan_file", &f))
        rc |= metric_set_put(out, "vmstat.pgscan_total", a + f, "pages", PM_LOWER);
    if (series_delta(t, "vmstat.pgsteal_anon", &a) && series_delta(t, "vmstat.pgsteal_file", &f))
        rc |= metric_set_put(out, "vmstat.pgsteal_total", a + f, "pages", PM_LOWER);
    return rc;
}

static double got(const struct metric_set *ms, const char *name, bool *have)
{
    const struct metric *m = metric_set_find(ms, name);
    *have = m != NULL;
    return m ? m->value : 0;
}

static int put_pct(struct metric_set *out, const char *name, double part, double whole, enum metric_dir dir)
{
    return whole > 0 ? metric_set_put(out, name, part / whole * 100.0, "%", dir) : 0;
}

/* Why the run was slow, in mmtests' vmstat summary's terms: how much of
 * what reclaim scanned it could take (efficiency), how much of the
 * scanning fell on the allocating tasks themselves (direct), how fast it
 * scanned (velocity, with the run's elapsed time when the caller put it),
 * and what came back: refaults of evicted pages that were still needed,
 * compaction stalls, THP fallbacks, swap readahead, zswap writeback. */
static int derive_reclaim_why(const struct series_table *t, struct metric_set *out)
{
    int rc = 0;
    bool h1, h2, h3, h4;
    double sk = got(out, "vmstat.pgscan_kswapd", &h1), tk = got(out, "vmstat.pgsteal_kswapd", &h2);
    if (h1 && h2)
        rc |= put_pct(out, "reclaim.kswapd_efficiency_pct", tk, sk, PM_HIGHER);
    double sd = got(out, "vmstat.pgscan_direct", &h3), td = got(out, "vmstat.pgsteal_direct", &h4);
    if (h3 && h4)
        rc |= put_pct(out, "reclaim.direct_efficiency_pct", td, sd, PM_HIGHER);
    if (h1 && h3)
        rc |= put_pct(out, "reclaim.direct_scan_pct", sd, sk + sd, PM_LOWER);
    /* The totals include reclaim forced by a cgroup's limit, which the
     * kswapd/direct split leaves out since 5.x; older kernels have only
     * the split. */
    double scan = got(out, "vmstat.pgscan_total", &h1), steal = got(out, "vmstat.pgsteal_total", &h2);
    if (!h1 || !h2) {
        scan = sk + sd;
        steal = tk + td;
    }
    rc |= put_pct(out, "reclaim.efficiency_pct", steal, scan, PM_HIGHER);
    double elapsed = got(out, "time.elapsed_s", &h3);
    if (h3 && elapsed > 0)
        rc |= metric_set_put(out, "reclaim.scan_velocity", scan / elapsed, "pages/s", PM_LOWER);
    static const struct { const char *key, *unit; enum metric_dir dir; } counts[] = {
        { "workingset_refault_anon", "pages", PM_LOWER }, { "workingset_refault_file", "pages", PM_LOWER },
        { "workingset_activate_anon", "pages", PM_LOWER }, { "workingset_activate_file", "pages", PM_LOWER },
        { "workingset_restore_anon", "pages", PM_LOWER }, { "workingset_restore_file", "pages", PM_LOWER },
        { "thp_fault_alloc", "count", PM_NEITHER }, { "thp_fault_fallback", "count", PM_LOWER },
        { "compact_stall", "count", PM_LOWER }, { "compact_fail", "count", PM_LOWER },
        { "compact_success", "count", PM_NEITHER }, { "swap_ra", "pages", PM_NEITHER },
        { "swap_ra_hit", "pages", PM_NEITHER }, { "zswpwb", "pages", PM_LOWER },
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char series[64];
        snprintf(series, sizeof series, "vmstat.%s", counts[i].key);
        rc |= put_delta(t, out, series, series, counts[i].unit, counts[i].dir);
    }
    /* Refaults: one counter before 5.9, anon and file since. */
    double a, f;
    if (series_delta(t, "vmstat.workingset_refault_anon", &a) && series_delta(t, "vmstat.workingset_refault_file", &f))
        rc |= metric_set_put(out, "reclaim.refaults", a + f, "pages", PM_LOWER);
    else if (series_delta(t, "vmstat.workingset_refault", &a))
        rc |= metric_set_put(out, "reclaim.refaults", a, "pages", PM_LOWER);
    /* The cgroup's own refaults (a new cgroup per run: its last value). */
    if (series_last(t, "memcg.memory.stat.workingset_refault_anon", &a) &&
        series_last(t, "memcg.memory.stat.workingset_refault_file", &f))
        rc |= metric_set_put(out, "memcg.refaults", a + f, "pages", PM_LOWER);
    /* zswap's pool at its largest (meminfo, since 5.19). */
    if (series_max(t, "meminfo.Zswapped", &a))
        rc |= metric_set_put(out, "zswap.stored_max_kb", a, "KB", PM_NEITHER);
    return rc;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* The monitors: fragmentation at its worst, zones below their watermarks,
 * the swap devices' I/O and its latency, the largest process, mTHP. */
static int derive_monitors(const struct series_table *t, struct metric_set *out)
{
    int rc = 0;
    double v;
    if (series_max(t, "buddyinfo.unusable_o9_permille", &v))
        rc |= metric_set_put(out, "frag.unusable_o9_max_pct", v / 10, "%", PM_LOWER);
    double below_low = -1, below_min = -1, rss = -1, swap = -1;
    double dsk[6] = { 0 };
    bool have_dsk = false;
    static const char *const dcols[] = { ".reads", ".writes", ".read_sectors", ".write_sectors", ".read_ms", ".write_ms" };
    static const char *const mstats[] = { "anon_fault_alloc", "anon_fault_fallback", "swpout", "swpout_fallback", "split" };
    double mthp[5] = { 0 };
    bool have_mthp = false;
    for (size_t i = 0; i < t->n; i++) {
        const char *name = t->v[i].name;
        double mx = t->v[i].max;
        if (strncmp(name, "zoneinfo.", 9) == 0) {
            if (ends_with(name, ".below_low") && mx > below_low)
                below_low = mx;
            if (ends_with(name, ".below_min") && mx > below_min)
                below_min = mx;
        } else if (strncmp(name, "procs.top", 9) == 0) {
            if (ends_with(name, ".rss_kb") && mx > rss)
                rss = mx;
            if (ends_with(name, ".swap_kb") && mx > swap)
                swap = mx;
        } else if (strncmp(name, "diskstats.", 10) == 0) {
            for (int k = 0; k < 6; k++)
                if (ends_with(name, dcols[k]) && series_delta(t, name, &v)) {
                    dsk[k] += v;
                    have_dsk = true;
                }
        } else if (strncmp(name, "mthp.", 5) == 0) {
            for (int k = 0; k < 5; k++) {
                char tail[40];
                snprintf(tail, sizeof tail, ".%s", mstats[k]);
                if (ends_with(name, tail) && series_delta(t, name, &v)) {
                    mthp[k] += v;
                    have_mthp = true;
                }
            }
        }
    }
    if (below_low >= 0) {
        rc |= metric_set_put(out, "zone.below_low_max_pages", below_low, "pages", PM_LOWER);
        rc |= metric_set_put(out, "zone.below_min_max_pages", below_min, "pages", PM_LOWER);
    }
    if (rss >= 0) {
        rc |= metric_set_put(out, "procs.rss_max_kb", rss, "KB", PM_NEITHER);
        rc |= metric_set_put(out, "procs.swap_max_kb", swap, "KB", PM_LOWER);
    }
    if (have_dsk) {
        rc |= metric_set_put(out, "swapdev.reads", dsk[0], "ops", PM_LOWER);
        rc |= metric_set_put(out, "swapdev.writes", dsk[1], "ops", PM_LOWER);
        rc |= metric_set_put(out, "swapdev.read_kb", dsk[2] / 2, "KB", PM_LOWER);
        rc |= metric_set_put(out, "swapdev.write_kb", dsk[3] / 2, "KB", PM_LOWER);
        /* The swap devices' I/O latency: time the requests took over their
         * count (iostat's await). A swap file shares its disk with other
         * files: this is the disk's, over the run. */
        if (dsk[0] + dsk[1] > 0)
            rc |= metric_set_put(out, "swapdev.await_ms", (dsk[4] + dsk[5]) / (dsk[0] + dsk[1]), "ms", PM_LOWER);
    }
    if (have_mthp)
        for (int k = 0; k < 5; k++) {
            char name[64];
            snprintf(name, sizeof name, "mthp.%s", mstats[k]);
            rc |= metric_set_put(out, name, mthp[k], "count", k == 0 ? PM_NEITHER : PM_LOWER);
        }
    return rc;
}

static int derive_psi(const struct series_table *t, struct metric_set *out)
{
    static const char *res[] = { "memory", "io", "cpu" };
    static const char *kinds[] = { "some", "full" };
    int rc = 0;
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 2; k++) {
            char series[64], metric[64];
            snprintf(series, sizeof series, "psi.%s.%s.total", res[r], kinds[k]);
            snprintf(metric, sizeof metric, "psi.%s.%s_s", res[r], kinds[k]);
            double us;
            if (series_delta(t, series, &us))
                rc |= metric_set_put(out, metric, us / 1e6, "s", PM_LOWER);
        }
    }
    return rc;
}

/* The cgroup's own view: peak usage (what a cap has to hold), and the
 * cgroup-local OOM kills and limit hits, which the system counters dilute. */
static int derive_memcg(const struct series_table *t, struct metric_set *out)
{
    int rc = 0;
    double v;
    if (series_max(t, "memcg.memory.current", &v) || series_max(t, "memcg.memory.usage_in_bytes", &v))
        rc |= metric_set_put(out, "memcg.usage_max_bytes", v, "bytes", PM_LOWER);
    if (series_max(t, "memcg.memory.swap.current", &v))
        rc |= metric_set_put(out, "memcg.swap_max_bytes", v, "bytes", PM_LOWER);
    if (series_last(t, "memcg.memory.events.oom_kill", &v) ||
        series_last(t, "memcg.memory.oom_control.oom_kill", &v))
        rc |= metric_set_put(out, "memcg.oom_kill", v, "count", PM_LOWER);
    if (series_last(t, "memcg.memory.events.max", &v) || series_last(t, "memcg.memory.failcnt", &v))
        rc |= metric_set_put(out, "memcg.limit_hits", v, "count", PM_LOWER);
    /* v2 counts the cgroup's own reclaim; v1's memory.stat has no such key. */
    if (series_last(t, "memcg.memory.stat.pgscan", &v))
        rc |= metric_set_put(out, "memcg.pgscan", v, "pages", PM_LOWER);
    if (series_last(t, "memcg.memory.stat.pgsteal", &v))
        rc |= metric_set_put(out, "memcg.pgsteal", v, "pages", PM_LOWER);
    if (series_last(t, "memcg.memory.stat.pgmajfault", &v) || series_last(t, "memcg.memory.stat.total_pgmajfault", &v))
        rc |= metric_set_put(out, "memcg.pgmajfault", v, "count", PM_LOWER);
    return rc;
}

int derive_metrics(const struct series_table *t, long page_size, struct metric_set *out,
                   struct derive_notes *notes)
{
    struct derive_notes unused;
    if (!notes)
        notes = &unused;
    memset(notes, 0, sizeof *notes);
    int rc = 0;
    rc |= derive_cpu(t, out);
    rc |= put_delta(t, out, "stat.ctxt", "stat.ctxt", "count", PM_NEITHER);
    rc |= put_delta(t, out, "stat.intr", "stat.intr", "count", PM_NEITHER);
    rc |= derive_swap(t, page_size, out, notes);
    rc |= put_delta(t, out, "vmstat.pgmajfault", "vmstat.pgmajfault", "count", PM_LOWER);
    rc |= put_delta(t, out, "vmstat.pgfault", "vmstat.pgfault", "count", PM_LOWER);
    rc |= derive_reclaim(t, out, notes);
    rc |= derive_reclaim_why(t, out);
    rc |= put_delta(t, out, "vmstat.oom_kill", "vmstat.oom_kill", "count", PM_LOWER);
    rc |= derive_psi(t, out);
    rc |= derive_memcg(t, out);
    rc |= derive_monitors(t, out);
    return rc ? -1 : 0;
}
