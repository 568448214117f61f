/* /proc/vmstat: swap traffic (2.4's /proc/stat swap line where vmstat has
 * none), the VM's event counters, and reclaim derived from them. */
#include "collectors/source.h"
#include <stdio.h>
#include <string.h>
#include "collectors/proc_parse.h"

enum { SWAP_IN_KB, SWAP_OUT_KB, SWAP_IO_KB, SWAP_IN_KBPS_MIN, SWAP_IN_KBPS_MAX, SWAP_OUT_KBPS_MIN,
    SWAP_OUT_KBPS_MAX, ZSWAP_IN_KB, ZSWAP_OUT_KB, ZSWAP_STORED_MAX_KB };
static const struct metric_def swap_defs[] = {
    [SWAP_IN_KB] = METRIC("swap.in_kb", "KB", PM_LOWER, "swapped in over the run (the reports' swpin)"),
    [SWAP_OUT_KB] = METRIC("swap.out_kb", "KB", PM_LOWER, "swapped out over the run (swpout)"),
    [SWAP_IO_KB] = METRIC("swap.io_kb", "KB", PM_LOWER, "in + out (swapio)"),
    [SWAP_IN_KBPS_MIN] = METRIC("swap.in_kbps_min", "KB/s", PM_LOWER,
                  "the slowest swap-in rate of any sampling interval"),
    [SWAP_IN_KBPS_MAX] = METRIC("swap.in_kbps_max", "KB/s", PM_LOWER,
                  "the fastest swap-in rate of any sampling interval"),
    [SWAP_OUT_KBPS_MIN] = METRIC("swap.out_kbps_min", "KB/s", PM_LOWER,
                  "the slowest swap-out rate of any sampling interval"),
    [SWAP_OUT_KBPS_MAX] = METRIC("swap.out_kbps_max", "KB/s", PM_LOWER,
                  "the fastest swap-out rate of any sampling interval"),
    [ZSWAP_IN_KB] = METRIC("zswap.in_kb", "KB", PM_LOWER, "loaded back from zswap's pool (vmstat zswpin)"),
    [ZSWAP_OUT_KB] = METRIC("zswap.out_kb", "KB", PM_LOWER, "stored into zswap's pool (vmstat zswpout)"),
    [ZSWAP_STORED_MAX_KB] = METRIC("zswap.stored_max_kb", "KB", PM_NEITHER,
                  "zswap's pool at its largest (meminfo Zswapped, 5.19 on)"),
};
static const struct metric_group swap_metrics = METRIC_GROUP(
    "swap: pages swapped, times the page size (/proc/vmstat pswpin and pswpout; 2.4's /proc/stat swap line; pgpgin and pgpgout are never substituted)",
    swap_defs);

enum { VMSTAT_PGFAULT, VMSTAT_PGMAJFAULT, VMSTAT_OOM_KILL, VMSTAT_PGSCAN_KSWAPD, VMSTAT_PGSCAN_DIRECT,
    VMSTAT_PGSTEAL_KSWAPD, VMSTAT_PGSTEAL_DIRECT, VMSTAT_PGSCAN_TOTAL, VMSTAT_PGSTEAL_TOTAL,
    VMSTAT_ALLOCSTALL, VMSTAT_WORKINGSET_REFAULT_ANON, VMSTAT_WORKINGSET_REFAULT_FILE,
    VMSTAT_WORKINGSET_ACTIVATE_ANON, VMSTAT_WORKINGSET_ACTIVATE_FILE, VMSTAT_WORKINGSET_RESTORE_ANON,
    VMSTAT_WORKINGSET_RESTORE_FILE, VMSTAT_THP_FAULT_ALLOC, VMSTAT_THP_FAULT_FALLBACK, VMSTAT_COMPACT_STALL,
    VMSTAT_COMPACT_FAIL, VMSTAT_COMPACT_SUCCESS, VMSTAT_SWAP_RA, VMSTAT_SWAP_RA_HIT, VMSTAT_ZSWPWB,
    VMSTAT_PGREFILL, VMSTAT_PGACTIVATE, VMSTAT_PGDEACTIVATE };
static const struct metric_def vmstat_defs[] = {
    [VMSTAT_PGFAULT] = METRIC("vmstat.pgfault", "count", PM_LOWER, "page faults, system-wide"),
    [VMSTAT_PGMAJFAULT] = METRIC("vmstat.pgmajfault", "count", PM_LOWER, "major page faults, system-wide"),
    [VMSTAT_OOM_KILL] = METRIC("vmstat.oom_kill", "count", PM_LOWER, "OOM killer kills, system-wide"),
    [VMSTAT_PGSCAN_KSWAPD] = METRIC("vmstat.pgscan_kswapd", "pages", PM_LOWER, "pages kswapd scanned"),
    [VMSTAT_PGSCAN_DIRECT] = METRIC("vmstat.pgscan_direct", "pages", PM_LOWER,
                  "pages scanned in direct reclaim by allocating tasks"),
    [VMSTAT_PGSTEAL_KSWAPD] = METRIC("vmstat.pgsteal_kswapd", "pages", PM_LOWER,
                  "pages kswapd reclaimed (2.6: kswapd_steal)"),
    [VMSTAT_PGSTEAL_DIRECT] = METRIC("vmstat.pgsteal_direct", "pages", PM_LOWER,
                  "pages reclaimed in direct reclaim (2.6: pgsteal_<zone> - kswapd_steal)"),
    [VMSTAT_PGSCAN_TOTAL] = METRIC("vmstat.pgscan_total", "pages", PM_LOWER,
                  "pgscan_anon + pgscan_file: since 5.x the only global count that includes reclaim forced by a "
                  "cgroup's limit"),
    [VMSTAT_PGSTEAL_TOTAL] = METRIC("vmstat.pgsteal_total", "pages", PM_LOWER, "pgsteal_anon + pgsteal_file, likewise"),
    [VMSTAT_ALLOCSTALL] = METRIC("vmstat.allocstall", "count", PM_LOWER,
                  "entries into direct reclaim (allocstall_<zone> summed)"),
    [VMSTAT_WORKINGSET_REFAULT_ANON] = METRIC("vmstat.workingset_refault_anon", "pages", PM_LOWER,
                  "evicted anonymous pages faulted back in while still in the working set's reach"),
    [VMSTAT_WORKINGSET_REFAULT_FILE] = METRIC("vmstat.workingset_refault_file", "pages", PM_LOWER,
                  "evicted file pages read back in likewise"),
    [VMSTAT_WORKINGSET_ACTIVATE_ANON] = METRIC("vmstat.workingset_activate_anon", "pages", PM_LOWER,
                  "refaulted anonymous pages activated at once (they were hot)"),
    [VMSTAT_WORKINGSET_ACTIVATE_FILE] = METRIC("vmstat.workingset_activate_file", "pages", PM_LOWER,
                  "refaulted file pages activated at once"),
    [VMSTAT_WORKINGSET_RESTORE_ANON] = METRIC("vmstat.workingset_restore_anon", "pages", PM_LOWER,
                  "refaulted anonymous pages that had been active before eviction"),
    [VMSTAT_WORKINGSET_RESTORE_FILE] = METRIC("vmstat.workingset_restore_file", "pages", PM_LOWER,
                  "refaulted file pages that had been active before eviction"),
    [VMSTAT_THP_FAULT_ALLOC] = METRIC("vmstat.thp_fault_alloc", "count", PM_NEITHER,
                  "transparent huge pages allocated at fault"),
    [VMSTAT_THP_FAULT_FALLBACK] = METRIC("vmstat.thp_fault_fallback", "count", PM_LOWER,
                  "faults that wanted a huge page and got small ones"),
    [VMSTAT_COMPACT_STALL] = METRIC("vmstat.compact_stall", "count", PM_LOWER,
                  "allocations that stalled for direct compaction"),
    [VMSTAT_COMPACT_FAIL] = METRIC("vmstat.compact_fail", "count", PM_LOWER,
                  "direct compactions that did not free a page of the order wanted"),
    [VMSTAT_COMPACT_SUCCESS] = METRIC("vmstat.compact_success", "count", PM_NEITHER, "direct compactions that did"),
    [VMSTAT_SWAP_RA] = METRIC("vmstat.swap_ra", "pages", PM_NEITHER, "pages read ahead from swap"),
    [VMSTAT_SWAP_RA_HIT] = METRIC("vmstat.swap_ra_hit", "pages", PM_NEITHER,
                  "read-ahead swap pages that were then used"),
    [VMSTAT_ZSWPWB] = METRIC("vmstat.zswpwb", "pages", PM_LOWER, "pages zswap wrote back to the swap device"),
    /* Which LRU reclaim ran: the classic LRU deactivates pages from its
     * active lists (pgdeactivate); multi-gen LRU (MGLRU, on by default in
     * Debian's 6.12 kernels, off in their 6.1) ages generations instead,
     * and under a cgroup's limit counted none in t82's guests, where 6.1
     * counted thousands. pgrefill is counted by both (6.12's MGLRU too,
     * under global reclaim) and only for global reclaim. */
    [VMSTAT_PGREFILL] = METRIC("vmstat.pgrefill", "pages", PM_NEITHER,
                  "pages reclaim scanned on the active lists (global reclaim only)"),
    [VMSTAT_PGACTIVATE] = METRIC("vmstat.pgactivate", "pages", PM_NEITHER, "pages moved to an active list"),
    [VMSTAT_PGDEACTIVATE] = METRIC("vmstat.pgdeactivate", "pages", PM_NEITHER,
                  "pages moved from an active list to an inactive one (none under MGLRU's cgroup reclaim)"),
};
static const struct metric_group vmstat_metrics = METRIC_GROUP(
    "vmstat: /proc/vmstat, the change over the run (per-zone counters of older kernels summed)",
    vmstat_defs);

enum { RECLAIM_EFFICIENCY_PCT, RECLAIM_KSWAPD_EFFICIENCY_PCT, RECLAIM_DIRECT_EFFICIENCY_PCT,
    RECLAIM_DIRECT_SCAN_PCT, RECLAIM_SCAN_VELOCITY, RECLAIM_REFAULTS };
static const struct metric_def reclaim_defs[] = {
    [RECLAIM_EFFICIENCY_PCT] = METRIC("reclaim.efficiency_pct", "%", PM_HIGHER,
                  "pages reclaimed / pages scanned, from the anon + file totals (includes cgroup-limit reclaim); "
                  "absent when nothing was scanned"),
    [RECLAIM_KSWAPD_EFFICIENCY_PCT] = METRIC("reclaim.kswapd_efficiency_pct", "%", PM_HIGHER,
                  "pgsteal_kswapd / pgscan_kswapd"),
    [RECLAIM_DIRECT_EFFICIENCY_PCT] = METRIC("reclaim.direct_efficiency_pct", "%", PM_HIGHER,
                  "pgsteal_direct / pgscan_direct"),
    [RECLAIM_DIRECT_SCAN_PCT] = METRIC("reclaim.direct_scan_pct", "%", PM_LOWER,
                  "direct reclaim's share of kswapd + direct scanning"),
    [RECLAIM_SCAN_VELOCITY] = METRIC("reclaim.scan_velocity", "pages/s", PM_LOWER,
                  "pages scanned per second of time.elapsed_s"),
    [RECLAIM_REFAULTS] = METRIC("reclaim.refaults", "pages", PM_LOWER,
                  "workingset_refault_anon + _file (one counter before 5.9)"),
};
static const struct metric_group reclaim_metrics = METRIC_GROUP(
    "reclaim: derived from the vmstat counters, in the terms of mmtests' reclaim summary",
    reclaim_defs);

static int put_delta(const struct series_table *t, struct metric_set *out, const char *series,
                     const struct metric_def *d)
{
    double v;
    if (!series_delta(t, series, &v))
        return 0;
    return metric_put(out, d, v);
}

static int put_prefix_sum(const struct series_table *t, struct metric_set *out, const char *prefix,
                          const struct metric_def *d)
{
    double sum;
    if (series_delta_prefix(t, prefix, &sum) == 0)
        return 0;
    return metric_put(out, d, sum);
}

static double got(const struct metric_set *ms, const struct metric_def *d, bool *have)
{
    const struct metric *m = metric_set_find(ms, d->name);
    *have = m != NULL;
    return m ? m->value : 0;
}

static int put_pct(struct metric_set *out, const struct metric_def *d, double part, double whole)
{
    return whole > 0 ? metric_put(out, d, part / whole * 100.0) : 0;
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
    rc |= metric_put(out, &swap_defs[SWAP_IN_KB], in * kb_per_page);
    rc |= metric_put(out, &swap_defs[SWAP_OUT_KB], outp * kb_per_page);
    rc |= metric_put(out, &swap_defs[SWAP_IO_KB], (in + outp) * kb_per_page);
    /* the wblg-disk report's vmstat table: swap in and out as min-max KB/s per tick. */
    double lo, hi;
    const char *in_name = strcmp(notes->swap_source, "/proc/stat swap line") == 0 ? "stat.swap.in" : "vmstat.pswpin";
    const char *out_name = strcmp(notes->swap_source, "/proc/stat swap line") == 0 ? "stat.swap.out" : "vmstat.pswpout";
    if (series_rate_range(t, in_name, &lo, &hi)) {
        rc |= metric_put(out, &swap_defs[SWAP_IN_KBPS_MIN], lo * kb_per_page);
        rc |= metric_put(out, &swap_defs[SWAP_IN_KBPS_MAX], hi * kb_per_page);
    }
    if (series_rate_range(t, out_name, &lo, &hi)) {
        rc |= metric_put(out, &swap_defs[SWAP_OUT_KBPS_MIN], lo * kb_per_page);
        rc |= metric_put(out, &swap_defs[SWAP_OUT_KBPS_MAX], hi * kb_per_page);
    }
    double zin, zout;
    if (series_delta(t, "vmstat.zswpin", &zin))
        rc |= metric_put(out, &swap_defs[ZSWAP_IN_KB], zin * kb_per_page);
    if (series_delta(t, "vmstat.zswpout", &zout))
        rc |= metric_put(out, &swap_defs[ZSWAP_OUT_KB], zout * kb_per_page);
    return rc;
}
/* Reclaim: since 4.8 node counters pgscan_kswapd, pgscan_direct, pgsteal_*;
 * before that per-zone pgscan_kswapd_normal and friends (summed); 2.6.x had
 * per-zone pgsteal_<zone> for both plus kswapd_steal for kswapd's share. */
static int derive_reclaim(const struct series_table *t, struct metric_set *out, struct derive_notes *notes)
{
    int rc = 0;
    rc |= put_prefix_sum(t, out, "vmstat.pgscan_kswapd", &vmstat_defs[VMSTAT_PGSCAN_KSWAPD]);
    rc |= put_prefix_sum(t, out, "vmstat.pgscan_direct", &vmstat_defs[VMSTAT_PGSCAN_DIRECT]);
    double sum;
    if (series_delta_prefix(t, "vmstat.pgsteal_kswapd", &sum) > 0) {
        notes->steal_source = "pgsteal_kswapd, pgsteal_direct";
        rc |= put_prefix_sum(t, out, "vmstat.pgsteal_kswapd", &vmstat_defs[VMSTAT_PGSTEAL_KSWAPD]);
        rc |= put_prefix_sum(t, out, "vmstat.pgsteal_direct", &vmstat_defs[VMSTAT_PGSTEAL_DIRECT]);
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
            rc |= metric_put(out, &vmstat_defs[VMSTAT_PGSTEAL_KSWAPD], kswapd);
            rc |= metric_put(out, &vmstat_defs[VMSTAT_PGSTEAL_DIRECT], zones - kswapd);
        }
    }
    rc |= put_prefix_sum(t, out, "vmstat.allocstall", &vmstat_defs[VMSTAT_ALLOCSTALL]);
    /* Since 5.x the kernel counts reclaim caused by a cgroup's limit only
     * in pgscan_anon/_file and pgsteal_anon/_file (and in the cgroup's own
     * stats), not in the kswapd/direct split: the totals include it. */
    double a, f;
    if (series_delta(t, "vmstat.pgscan_anon", &a) && series_delta(t, "vmstat.pgscan_file", &f))
        rc |= metric_put(out, &vmstat_defs[VMSTAT_PGSCAN_TOTAL], a + f);
    if (series_delta(t, "vmstat.pgsteal_anon", &a) && series_delta(t, "vmstat.pgsteal_file", &f))
        rc |= metric_put(out, &vmstat_defs[VMSTAT_PGSTEAL_TOTAL], a + f);
    return rc;
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
    double sk = got(out, &vmstat_defs[VMSTAT_PGSCAN_KSWAPD], &h1);
    double tk = got(out, &vmstat_defs[VMSTAT_PGSTEAL_KSWAPD], &h2);
    if (h1 && h2)
        rc |= put_pct(out, &reclaim_defs[RECLAIM_KSWAPD_EFFICIENCY_PCT], tk, sk);
    double sd = got(out, &vmstat_defs[VMSTAT_PGSCAN_DIRECT], &h3);
    double td = got(out, &vmstat_defs[VMSTAT_PGSTEAL_DIRECT], &h4);
    if (h3 && h4)
        rc |= put_pct(out, &reclaim_defs[RECLAIM_DIRECT_EFFICIENCY_PCT], td, sd);
    if (h1 && h3)
        rc |= put_pct(out, &reclaim_defs[RECLAIM_DIRECT_SCAN_PCT], sd, sk + sd);
    /* The totals include reclaim forced by a cgroup's limit, which the
     * kswapd/direct split leaves out since 5.x; older kernels have only
     * the split. */
    double scan = got(out, &vmstat_defs[VMSTAT_PGSCAN_TOTAL], &h1);
    double steal = got(out, &vmstat_defs[VMSTAT_PGSTEAL_TOTAL], &h2);
    if (!h1 || !h2) {
        scan = sk + sd;
        steal = tk + td;
    }
    rc |= put_pct(out, &reclaim_defs[RECLAIM_EFFICIENCY_PCT], steal, scan);
    /* The run's elapsed time, when the harness put it first (the workload's
     * time group declares it, a layer above this one). */
    const struct metric *el = metric_set_find(out, "time.elapsed_s");
    double elapsed = el ? el->value : 0;
    h3 = el != NULL;
    if (h3 && elapsed > 0)
        rc |= metric_put(out, &reclaim_defs[RECLAIM_SCAN_VELOCITY], scan / elapsed);
    /* Counters taken as they are, each the change over the run. */
    static const struct { const char *series; int def; } counts[] = {
        { "vmstat.workingset_refault_anon", VMSTAT_WORKINGSET_REFAULT_ANON },
        { "vmstat.workingset_refault_file", VMSTAT_WORKINGSET_REFAULT_FILE },
        { "vmstat.workingset_activate_anon", VMSTAT_WORKINGSET_ACTIVATE_ANON },
        { "vmstat.workingset_activate_file", VMSTAT_WORKINGSET_ACTIVATE_FILE },
        { "vmstat.workingset_restore_anon", VMSTAT_WORKINGSET_RESTORE_ANON },
        { "vmstat.workingset_restore_file", VMSTAT_WORKINGSET_RESTORE_FILE },
        { "vmstat.thp_fault_alloc", VMSTAT_THP_FAULT_ALLOC },
        { "vmstat.thp_fault_fallback", VMSTAT_THP_FAULT_FALLBACK },
        { "vmstat.compact_stall", VMSTAT_COMPACT_STALL },
        { "vmstat.compact_fail", VMSTAT_COMPACT_FAIL },
        { "vmstat.compact_success", VMSTAT_COMPACT_SUCCESS },
        { "vmstat.swap_ra", VMSTAT_SWAP_RA },
        { "vmstat.swap_ra_hit", VMSTAT_SWAP_RA_HIT },
        { "vmstat.zswpwb", VMSTAT_ZSWPWB },
        { "vmstat.pgrefill", VMSTAT_PGREFILL },
        { "vmstat.pgactivate", VMSTAT_PGACTIVATE },
        { "vmstat.pgdeactivate", VMSTAT_PGDEACTIVATE },
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        rc |= put_delta(t, out, counts[i].series, &vmstat_defs[counts[i].def]);
    /* Refaults: one counter before 5.9, anon and file since. */
    double a, f;
    if (series_delta(t, "vmstat.workingset_refault_anon", &a) && series_delta(t, "vmstat.workingset_refault_file", &f))
        rc |= metric_put(out, &reclaim_defs[RECLAIM_REFAULTS], a + f);
    else if (series_delta(t, "vmstat.workingset_refault", &a))
        rc |= metric_put(out, &reclaim_defs[RECLAIM_REFAULTS], a);
    /* zswap's pool at its largest (meminfo, since 5.19). */
    if (series_max(t, "meminfo.Zswapped", &a))
        rc |= metric_put(out, &swap_defs[ZSWAP_STORED_MAX_KB], a);
    return rc;
}
/* The vmstat source's metrics: swap traffic, the counters taken as they
 * are, and reclaim in mmtests' terms. */
static int vmstat_derive(const struct series_table *t, long page_size, struct metric_set *out,
                         struct derive_notes *notes)
{
    int rc = derive_swap(t, page_size, out, notes);
    rc |= put_delta(t, out, "vmstat.pgmajfault", &vmstat_defs[VMSTAT_PGMAJFAULT]);
    rc |= put_delta(t, out, "vmstat.pgfault", &vmstat_defs[VMSTAT_PGFAULT]);
    rc |= derive_reclaim(t, out, notes);
    rc |= derive_reclaim_why(t, out);
    rc |= put_delta(t, out, "vmstat.oom_kill", &vmstat_defs[VMSTAT_OOM_KILL]);
    return rc;
}

static void vmstat_init(struct source_set *ss, const struct source_opts *o)
{
    source_add_file(ss, "vmstat", o->proc_root, "vmstat", "vmstat", parse_keyed_lines);
}

static const struct metric_group *const vmstat_groups[] = { &swap_metrics, &vmstat_metrics, &reclaim_metrics, NULL };
const struct source_def source_vmstat = {
    .init = vmstat_init, .derive = vmstat_derive, .metrics = vmstat_groups,
};
