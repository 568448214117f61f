/* Run-end metrics from two snapshots per kernel generation. Every expected
 * value below is the hand-computed difference between the fixture pair. */
#include "collectors/proc_parse.h"
#include <math.h>
#include "collectors/sources.h"
#include "tests/tap.h"

static void feed(struct series_table *t, proc_parse_fn fn, const char *path, const char *prefix)
{
    size_t len;
    char *buf = slurp(path, &len);
    struct table_sink ts;
    pm_table_sink_init(&ts, t);
    fn(buf, len, prefix, &ts.base);
    free(buf);
}

static double m(const struct metric_set *ms, const char *name)
{
    const struct metric *x = metric_set_find(ms, name);
    return x ? x->value : NAN;
}

int main(void)
{
    struct series_table t;
    struct metric_set ms = { 0 };
    struct derive_notes notes;

    /* 6.18: node-wide reclaim counters, per-zone allocstall, zswap, PSI. */
    series_table_init(&t);
    feed(&t, parse_proc_stat, "tests/fixtures/stat-6.18.txt", "stat");
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-6.18.txt", "vmstat");
    feed(&t, parse_psi, "tests/fixtures/psi-memory-6.18.txt", "psi.memory");
    feed(&t, parse_proc_stat, "tests/fixtures/stat-6.18-b.txt", "stat");
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-6.18-b.txt", "vmstat");
    feed(&t, parse_psi, "tests/fixtures/psi-memory-6.18-b.txt", "psi.memory");
    ok(derive_metrics(&t, 4096, &ms, &notes) == 0, "6.18: derive");
    is_num(m(&ms, "stat.cpu.user_pct"), 10, 1e-9, "6.18: %%user = 100 of 1000 jiffies");
    is_num(m(&ms, "stat.cpu.system_pct"), 15, 1e-9, "6.18: %%sys");
    is_num(m(&ms, "stat.cpu.idle_pct"), 70, 1e-9, "6.18: %%idle");
    is_num(m(&ms, "stat.cpu.iowait_pct"), 5, 1e-9, "6.18: %%iowait");
    is_num(m(&ms, "stat.cpu.util_pct"), 25, 1e-9, "6.18: %%CPU = 100 - idle - iowait");
    is_num(m(&ms, "stat.cpu.sys_user_ratio"), 1.5, 1e-9, "6.18: %%sys/%%user");
    is_num(m(&ms, "stat.ctxt"), 5000, 0, "6.18: context switches");
    is_num(m(&ms, "swap.in_kb"), 400, 0, "6.18: swap-in 100 pages = 400 KB");
    is_num(m(&ms, "swap.out_kb"), 10000, 0, "6.18: swap-out 2500 pages = 10,000 KB");
    is_num(m(&ms, "swap.io_kb"), 10400, 0, "6.18: swap-io");
    is_str(notes.swap_source, "/proc/vmstat pswpin, pswpout", "6.18: swap from vmstat");
    is_num(m(&ms, "zswap.in_kb"), 16, 0, "6.18: zswpin separately");
    is_num(m(&ms, "zswap.out_kb"), 40, 0, "6.18: zswpout separately");
    is_num(m(&ms, "vmstat.pgscan_kswapd"), 5000, 0, "6.18: pgscan_kswapd");
    is_num(m(&ms, "vmstat.pgscan_direct"), 700, 0, "6.18: pgscan_direct excludes pgscan_direct_throttle");
    is_num(m(&ms, "vmstat.pgsteal_kswapd"), 4000, 0, "6.18: pgsteal_kswapd excludes khugepaged");
    is_num(m(&ms, "vmstat.pgsteal_direct"), 600, 0, "6.18: pgsteal_direct");
    is_num(m(&ms, "vmstat.allocstall"), 5, 0, "6.18: allocstall summed over zones");
    is_num(m(&ms, "vmstat.pgmajfault"), 150, 0, "6.18: pgmajfault");
    is_num(m(&ms, "vmstat.oom_kill"), 1, 0, "6.18: oom_kill");
    is_num(m(&ms, "vmstat.pgscan_total"), 700, 0, "6.18: pgscan total = anon + file (includes cgroup-limit reclaim)");
    is_num(m(&ms, "vmstat.pgsteal_total"), 300, 0, "6.18: pgsteal total = anon + file");
    is_num(m(&ms, "psi.memory.some_s"), 2.5, 1e-9, "6.18: PSI memory some in seconds");
    /* Why: efficiency, direct share, what came back. */
    is_num(m(&ms, "reclaim.kswapd_efficiency_pct"), 80, 1e-9, "6.18: kswapd efficiency = 4000 stolen / 5000 scanned");
    is_num(m(&ms, "reclaim.direct_efficiency_pct"), 600.0 / 700 * 100, 1e-9, "6.18: direct efficiency 600/700");
    is_num(m(&ms, "reclaim.direct_scan_pct"), 700.0 / 5700 * 100, 1e-9, "6.18: direct share of scanning 700/5700");
    is_num(m(&ms, "reclaim.efficiency_pct"), 300.0 / 700 * 100, 1e-9, "6.18: overall efficiency from the anon+file totals");
    ok(isnan(m(&ms, "reclaim.scan_velocity")), "6.18: no velocity without the run's elapsed time");
    is_num(m(&ms, "reclaim.refaults"), 150, 0, "6.18: refaults = 120 anon + 30 file");
    is_num(m(&ms, "vmstat.workingset_activate_anon"), 40, 0, "6.18: activations anon");
    is_num(m(&ms, "vmstat.workingset_restore_file"), 2, 0, "6.18: restores file");
    is_num(m(&ms, "vmstat.compact_stall"), 3, 0, "6.18: compaction stalls");
    is_num(m(&ms, "vmstat.compact_fail"), 1, 0, "6.18: compaction failures");
    is_num(m(&ms, "vmstat.thp_fault_fallback"), 2, 0, "6.18: THP fault fallbacks");
    is_num(m(&ms, "vmstat.swap_ra"), 50, 0, "6.18: swap readahead");
    is_num(m(&ms, "vmstat.zswpwb"), 4, 0, "6.18: zswap written back");
    is_num(m(&ms, "vmstat.pgrefill"), 250, 0, "6.18: active lists scanned (classic LRU)");
    is_num(m(&ms, "vmstat.pgactivate"), 100, 0, "6.18: activations");
    is_num(m(&ms, "vmstat.pgdeactivate"), 30, 0, "6.18: deactivations");
    /* With the run's elapsed time the velocity follows. */
    metric_set_put(&ms, "time.elapsed_s", 2, "s", PM_LOWER);
    ok(derive_metrics(&t, 4096, &ms, &notes) == 0, "6.18: derive again with the elapsed time");
    is_num(m(&ms, "reclaim.scan_velocity"), 350, 1e-9, "6.18: scan velocity = 700 pages / 2 s");

    is_num(m(&ms, "psi.memory.full_s"), 1.25, 1e-9, "6.18: PSI memory full in seconds");
    const struct metric *x = metric_set_find(&ms, "swap.out_kb");
    ok(x && strcmp(x->unit, "KB") == 0 && strcmp(x->direction, "lower") == 0, "swap-out is KB, lower is better");
    metric_set_free(&ms);
    series_table_free(&t);

    /* 6.18, nothing scanned (the same snapshot twice): the totals are 0 and
     * no efficiency or direct share is made of them (show prints '-'). */
    series_table_init(&t);
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-6.18.txt", "vmstat");
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-6.18.txt", "vmstat");
    ok(derive_metrics(&t, 4096, &ms, &notes) == 0, "6.18, nothing scanned: derive");
    is_num(m(&ms, "vmstat.pgscan_total"), 0, 0, "6.18, nothing scanned: pgscan total 0");
    ok(!metric_set_find(&ms, "reclaim.efficiency_pct") && !metric_set_find(&ms, "reclaim.kswapd_efficiency_pct") &&
       !metric_set_find(&ms, "reclaim.direct_efficiency_pct") && !metric_set_find(&ms, "reclaim.direct_scan_pct"),
       "6.18, nothing scanned: no efficiency and no direct share (a share of nothing)");
    metric_set_free(&ms);
    series_table_free(&t);

    /* 2.4: swap from /proc/stat's swap line; no iowait column; no PSI. */
    series_table_init(&t);
    feed(&t, parse_proc_stat, "tests/fixtures/stat-2.4.txt", "stat");
    feed(&t, parse_proc_stat, "tests/fixtures/stat-2.4-b.txt", "stat");
    ok(derive_metrics(&t, 4096, &ms, &notes) == 0, "2.4: derive");
    is_num(m(&ms, "stat.cpu.user_pct"), 20, 1e-9, "2.4: %%user");
    is_num(m(&ms, "stat.cpu.system_pct"), 30, 1e-9, "2.4: %%sys");
    is_num(m(&ms, "stat.cpu.util_pct"), 50, 1e-9, "2.4: %%CPU");
    is_num(m(&ms, "stat.cpu.sys_user_ratio"), 1.5, 1e-9, "2.4: %%sys/%%user");
    is_num(m(&ms, "swap.in_kb"), 1200, 0, "2.4: swap in 300 pages");
    is_num(m(&ms, "swap.out_kb"), 16000, 0, "2.4: swap out 4000 pages");
    is_num(m(&ms, "swap.io_kb"), 17200, 0, "2.4: swap io");
    is_str(notes.swap_source, "/proc/stat swap line", "2.4: swap from /proc/stat");
    ok(!metric_set_find(&ms, "psi.memory.some_s"), "2.4: no PSI metric invented");
    ok(!metric_set_find(&ms, "vmstat.pgscan_kswapd"), "2.4: no reclaim metric invented");
    metric_set_free(&ms);
    series_table_free(&t);

    /* 2.6.8: per-zone scan counters, pgsteal per zone with kswapd_steal. */
    series_table_init(&t);
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-2.6.8.txt", "vmstat");
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-2.6.8-b.txt", "vmstat");
    ok(derive_metrics(&t, 4096, &ms, &notes) == 0, "2.6.8: derive");
    is_num(m(&ms, "swap.in_kb"), 4000, 0, "2.6.8: swap in");
    is_num(m(&ms, "swap.out_kb"), 12000, 0, "2.6.8: swap out");
    is_num(m(&ms, "vmstat.pgscan_kswapd"), 5100, 0, "2.6.8: pgscan_kswapd over zones");
    is_num(m(&ms, "vmstat.pgscan_direct"), 2000, 0, "2.6.8: pgscan_direct over zones");
    is_num(m(&ms, "vmstat.pgsteal_kswapd"), 3000, 0, "2.6.8: pgsteal_kswapd from kswapd_steal");
    is_num(m(&ms, "vmstat.pgsteal_direct"), 2100, 0, "2.6.8: pgsteal_direct = zones - kswapd_steal");
    is_str(notes.steal_source, "pgsteal_<zone> and kswapd_steal (2.6)", "2.6.8: steal source noted");
    is_num(m(&ms, "vmstat.allocstall"), 25, 0, "2.6.8: allocstall");
    is_num(m(&ms, "vmstat.pgmajfault"), 300, 0, "2.6.8: pgmajfault");
    ok(!metric_set_find(&ms, "vmstat.oom_kill"), "2.6.8: no oom_kill counter, no metric");
    metric_set_free(&ms);
    series_table_free(&t);

    /* 4.4: per-zone pgsteal_kswapd_* and a single allocstall. */
    series_table_init(&t);
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-4.4.txt", "vmstat");
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-4.4-b.txt", "vmstat");
    ok(derive_metrics(&t, 4096, &ms, &notes) == 0, "4.4: derive");
    is_num(m(&ms, "swap.out_kb"), 4000, 0, "4.4: swap out");
    is_num(m(&ms, "vmstat.pgsteal_kswapd"), 2000, 0, "4.4: pgsteal_kswapd over dma32 and normal");
    is_num(m(&ms, "vmstat.pgsteal_direct"), 50, 0, "4.4: pgsteal_direct");
    is_num(m(&ms, "vmstat.pgscan_kswapd"), 3000, 0, "4.4: pgscan_kswapd");
    is_num(m(&ms, "vmstat.pgscan_direct"), 0, 0, "4.4: throttle is not a zone");
    is_num(m(&ms, "vmstat.allocstall"), 4, 0, "4.4: allocstall");
    metric_set_free(&ms);
    series_table_free(&t);

    /* 64 KiB pages (arm64, ppc64) scale swap KB. */
    series_table_init(&t);
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-4.4.txt", "vmstat");
    feed(&t, parse_keyed_lines, "tests/fixtures/vmstat-4.4-b.txt", "vmstat");
    derive_metrics(&t, 65536, &ms, NULL);
    is_num(m(&ms, "swap.out_kb"), 64000, 0, "1000 pages of 64 KiB = 64,000 KB");
    metric_set_free(&ms);
    series_table_free(&t);

    /* cgroup: peak from the largest sample, OOM kills from the last. */
    series_table_init(&t);
    struct table_sink ts;
    pm_table_sink_init(&ts, &t);
    long long usage[] = { 1000, 67108864, 5000 };
    for (int i = 0; i < 3; i++)
        ts.base.put(&ts.base, "memcg.memory.current", 20, (struct pm_value){ .kind = PM_INT, .i = usage[i] });
    feed(&t, parse_keyed_lines, "tests/fixtures/memcg2-memory.events-6.x.txt", "memcg.memory.events");
    derive_metrics(&t, 4096, &ms, NULL);
    is_num(m(&ms, "memcg.usage_max_bytes"), 67108864, 0, "cgroup peak usage is the largest sample");
    is_num(m(&ms, "memcg.oom_kill"), 1, 0, "cgroup OOM kills");
    is_num(m(&ms, "memcg.limit_hits"), 1234, 0, "cgroup limit hits (memory.events max)");
    metric_set_free(&ms);
    series_table_free(&t);

    /* cgroup v1: the swap peak from memory.stat's total_swap, the largest
     * sample, not the last (swap-ins bring it down by the run's end). */
    series_table_init(&t);
    pm_table_sink_init(&ts, &t);
    long long swapped[] = { 0, 52428800, 4096 };
    for (int i = 0; i < 3; i++)
        ts.base.put(&ts.base, "memcg.memory.stat.total_swap", 28, (struct pm_value){ .kind = PM_INT, .i = swapped[i] });
    derive_metrics(&t, 4096, &ms, NULL);
    is_num(m(&ms, "memcg.swap_max_bytes"), 52428800, 0, "v1: the cgroup's swap peak is total_swap's largest sample");
    metric_set_free(&ms);
    series_table_free(&t);
    return done_testing();
}
