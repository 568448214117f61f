/* Every parser against text from several kernel generations. */
#include "collectors/proc_parse.h"
#include "lib/series.h"
#include "tests/tap.h"

static struct series_table tbl;

static int parse_file(proc_parse_fn fn, const char *path, const char *prefix)
{
    size_t len;
    char *buf = slurp(path, &len);
    struct table_sink ts;
    pm_table_sink_init(&ts, &tbl);
    int n = fn(buf, len, prefix, &ts.base);
    free(buf);
    return n;
}

static double last(const char *name)
{
    double v = NAN;
    series_last(&tbl, name, &v);
    return v;
}

static void reset(void)
{
    series_table_free(&tbl);
    series_table_init(&tbl);
}

int main(void)
{
    series_table_init(&tbl);

    /* 2.4: four cpu columns, page and swap lines, no procs_running. */
    int n = parse_file(parse_proc_stat, "tests/fixtures/stat-2.4.txt", "stat");
    is_num(n, 11, 0, "2.4 /proc/stat: 4 cpu columns + page(2) + swap(2) + intr + ctxt + processes");
    is_num(last("stat.cpu.user"), 1234, 0, "2.4 cpu user");
    is_num(last("stat.cpu.idle"), 98765, 0, "2.4 cpu idle");
    ok(!series_table_find(&tbl, "stat.cpu.iowait"), "2.4 has no iowait column");
    is_num(last("stat.page.in"), 123456, 0, "2.4 page in");
    is_num(last("stat.page.out"), 78901, 0, "2.4 page out");
    is_num(last("stat.swap.in"), 12, 0, "2.4 swap in");
    is_num(last("stat.swap.out"), 345, 0, "2.4 swap out");
    is_num(last("stat.intr"), 2345678, 0, "intr total only");
    is_num(last("stat.ctxt"), 3456789, 0, "ctxt");
    ok(!series_table_find(&tbl, "stat.cpu0.user"), "per-cpu lines are not taken for the aggregate");
    reset();

    n = parse_file(parse_proc_stat, "tests/fixtures/stat-2.6.9.txt", "stat");
    is_num(n, 12, 0, "2.6.9 /proc/stat: 7 cpu columns + intr ctxt processes procs_running procs_blocked");
    is_num(last("stat.cpu.softirq"), 456, 0, "2.6.9 softirq");
    ok(!series_table_find(&tbl, "stat.cpu.steal"), "2.6.9 has no steal");
    ok(!series_table_find(&tbl, "stat.swap.in"), "2.6 has no swap line");
    is_num(last("stat.procs_running"), 1, 0, "procs_running");
    reset();

    n = parse_file(parse_proc_stat, "tests/fixtures/stat-6.18.txt", "stat");
    is_num(n, 13, 0, "6.18 /proc/stat: 8 cpu columns (guest columns ignored) + 5 lines");
    is_num(last("stat.cpu.steal"), 7, 0, "6.18 steal");
    ok(parse_proc_stat("garbage\n", 8, "stat", &(struct table_sink){ .base.put = NULL }.base) == -1,
       "text without a cpu line is rejected");
    reset();

    n = parse_file(parse_keyed_lines, "tests/fixtures/vmstat-2.6.8.txt", "vmstat");
    is_num(n, 37, 0, "2.6.8 vmstat: every line a series");
    is_num(last("vmstat.kswapd_steal"), 4000, 0, "2.6.8 kswapd_steal by name");
    reset();
    n = parse_file(parse_keyed_lines, "tests/fixtures/vmstat-4.4.txt", "vmstat");
    is_num(n, 88, 0, "4.4 vmstat: every line a series");
    is_num(last("vmstat.pgscan_direct_throttle"), 5, 0, "4.4 pgscan_direct_throttle");
    reset();
    n = parse_file(parse_keyed_lines, "tests/fixtures/vmstat-6.18.txt", "vmstat");
    is_num(n, 192, 0, "6.18 vmstat: all 192 keys");
    ok(series_table_find(&tbl, "vmstat.zswpout") != NULL, "6.18 has zswpout");
    reset();

    n = parse_file(parse_keyed_lines, "tests/fixtures/meminfo-2.6.8.txt", "meminfo");
    is_num(n, 22, 0, "2.6.8 meminfo: 22 keys");
    is_num(last("meminfo.LowFree"), 6532, 0, "2.6.8 LowFree in kB (the 2002 VolanoMark report's timeline)");
    is_num(last("meminfo.SwapFree"), 663664, 0, "SwapFree");
    reset();
    n = parse_file(parse_keyed_lines, "tests/fixtures/meminfo-6.18.txt", "meminfo");
    is_num(n, 54, 0, "6.18 meminfo: 54 keys");
    ok(series_table_find(&tbl, "meminfo.HugePages_Total") != NULL, "keys without kB (HugePages_Total)");
    ok(series_table_find(&tbl, "meminfo.MemAvailable") != NULL, "MemAvailable");
    reset();

    n = parse_file(parse_psi, "tests/fixtures/psi-cpu-6.18.txt", "psi.cpu");
    is_num(n, 4, 0, "PSI: some and full, avg10 and total");
    is_num(last("psi.cpu.some.total"), 1712508, 0, "PSI total in microseconds");
    is_num(last("psi.cpu.some.avg10"), 0.05, 1e-9, "PSI avg10 is a real");
    reset();
    n = parse_file(parse_psi, "tests/fixtures/memcg2-memory.pressure-6.x.txt", "memcg.memory.pressure");
    is_num(n, 4, 0, "cgroup v2 memory.pressure");
    is_num(last("memcg.memory.pressure.full.avg10"), 10.0, 1e-9, "memory.pressure full avg10");
    ok(parse_psi("", 0, "psi", &(struct table_sink){ 0 }.base) == -1, "empty PSI text is rejected");
    reset();

    n = parse_file(parse_keyed_lines, "tests/fixtures/memcg1-memory.stat-6.18.txt", "memcg.memory.stat");
    is_num(n, 42, 0, "cgroup v1 memory.stat: 42 keys");
    ok(series_table_find(&tbl, "memcg.memory.stat.total_rss") != NULL, "v1 total_rss");
    reset();
    n = parse_file(parse_keyed_lines, "tests/fixtures/memcg1-oom_control-6.18.txt", "memcg.memory.oom_control");
    is_num(n, 3, 0, "v1 oom_control: oom_kill_disable under_oom oom_kill");
    ok(series_table_find(&tbl, "memcg.memory.oom_control.oom_kill") != NULL, "v1 oom_kill");
    reset();
    n = parse_file(parse_keyed_lines, "tests/fixtures/memcg2-memory.stat-6.x.txt", "memcg.memory.stat");
    is_num(n, 53, 0, "cgroup v2 memory.stat: 53 keys");
    is_num(last("memcg.memory.stat.anon"), 104857600, 0, "v2 anon bytes");
    reset();
    n = parse_file(parse_keyed_lines, "tests/fixtures/memcg2-memory.events-6.x.txt", "memcg.memory.events");
    is_num(n, 6, 0, "v2 memory.events");
    is_num(last("memcg.memory.events.oom_kill"), 1, 0, "v2 oom_kill event");
    reset();
    n = parse_file(parse_single_value, "tests/fixtures/memcg2-memory.current.txt", "memcg.memory.current");
    is_num(n, 1, 0, "single value file");
    is_num(last("memcg.memory.current"), 67108864, 0, "memory.current bytes under its own name");
    n = parse_file(parse_single_value, "tests/fixtures/memcg2-memory.max-unlimited.txt", "memcg.memory.max");
    is_num(n, 0, 0, "'max' is not a number and puts nothing");
    reset();

    /* buddyinfo: blocks per order per zone; free pages and the unusable
     * free space index for order 9, computed by hand from the fixture. */
    n = parse_file(parse_buddyinfo, "tests/fixtures/buddyinfo-6.18.txt", "buddyinfo");
    is_num(n, 3 * 11 + 2, 0, "buddyinfo: 11 orders in each of 3 zones, free pages, the index");
    is_num(last("buddyinfo.node0.Normal.order0"), 5125, 0, "Normal's order-0 blocks");
    is_num(last("buddyinfo.node0.DMA32.order10"), 752, 0, "DMA32's order-10 blocks");
    is_num(last("buddyinfo.free_pages"), 1598457, 0, "free pages over all zones: sum of blocks x 2^order");
    is_num(last("buddyinfo.unusable_o9_permille"), 85, 0, "unusable for order 9: (free - in blocks of order >= 9) / free");
    {
        struct table_sink none;
        pm_table_sink_init(&none, &tbl);
        ok(parse_buddyinfo("nothing\n", 8, "buddyinfo", &none.base) < 0, "text without zones is not buddyinfo");
    }
    reset();
    /* zoneinfo: each populated zone's free pages against its watermarks;
     * the empty Movable and Device zones (managed 0) say nothing. */
    n = parse_file(parse_zoneinfo, "tests/fixtures/zoneinfo-6.18.txt", "zoneinfo");
    is_num(n, 3 * 6, 0, "zoneinfo: 6 values for each of the 3 zones with pages");
    is_num(last("zoneinfo.node0.Normal.free"), 821700, 0, "Normal's free pages");
    is_num(last("zoneinfo.node0.Normal.low"), 11797, 0, "its low watermark (not a per-CPU pageset's high:)");
    is_num(last("zoneinfo.node0.DMA32.high"), 11130, 0, "DMA32's high watermark");
    is_num(last("zoneinfo.node0.Normal.below_low"), 0, 0, "plenty free: not below low");
    ok(series_table_find(&tbl, "zoneinfo.node0.Movable.min") == NULL, "an empty zone is left out");
    static const char low[] = "Node 0, zone   Normal\n  pages free     100\n        min      150\n"
                              "        low      200\n        high     250\n        managed  5000\n";
    struct table_sink ts;
    pm_table_sink_init(&ts, &tbl);
    parse_zoneinfo(low, sizeof low - 1, "z", &ts.base);
    is_num(last("z.node0.Normal.below_low"), 100, 0, "100 free under a low of 200: 100 below low");
    is_num(last("z.node0.Normal.below_min"), 50, 0, "and 50 below min");
    reset();

    /* The series table itself. */
    for (int i = 0; i < 5000; i++) {
        char name[32];
        int len = snprintf(name, sizeof name, "s.%d", i);
        struct series *s = series_table_get(&tbl, name, (size_t)len);
        series_record(s, (struct pm_value){ .kind = PM_INT, .i = i });
        series_record(s, (struct pm_value){ .kind = PM_INT, .i = i * 3 });
    }
    is_num(tbl.n, 5000, 0, "5000 distinct series survive rehashing");
    double d;
    ok(series_delta(&tbl, "s.4321", &d) && d == 8642, "delta of one series after rehashing");
    struct series *big = series_table_get(&tbl, "big", 3);
    series_record(big, (struct pm_value){ .kind = PM_INT, .i = (1ll << 60) });
    series_record(big, (struct pm_value){ .kind = PM_INT, .i = (1ll << 60) + 1 });
    ok(series_delta(&tbl, "big", &d) && d == 1, "a delta of 1 beyond 2^53 is kept exactly");
    series_table_free(&tbl);
    return done_testing();
}
