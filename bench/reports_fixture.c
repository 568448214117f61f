/* The database bench/reports.sh times compare and report over: RUNS runs
 * of the swapout workload under each of three labels, TICKS ticks a run at
 * 1 s, every tick written through pressmark's own tick writer (the
 * sampler's, store/ticks.h), so that the fixture follows the stored format
 * wherever it goes instead of copying bytes of today's. The values are
 * made up but move as a run's do: counters that grow by a varying step
 * (swap, CPU, reclaim, PSI's stall totals), levels that wander (free
 * memory, heartbeat lateness), PSI's averages as reals with two decimals,
 * and most of a run's some 400 series changing now and then (as most of
 * /proc/vmstat does), which is what the changes-only encoding meets in a
 * real run. Each run ends with 60 metrics, the comparison's six a few per
 * cent apart between labels, and 60 settings of its environment.
 *
 * Run i's ticks are stream i % STREAMS of made-up values (default 7), so
 * that bench/reports.sh can read a few runs' samples back through the
 * sample view, in a small database made with the same arguments, and know
 * every run's: the view (today's decodes every tick of its database in
 * SQL) costs far too much to read a large one whole.
 * Usage: reports_fixture DB RUNS_PER_LABEL TICKS [SERIES [STREAMS]] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/kv.h"
#include "lib/machine.h"
#include "lib/metrics.h"
#include "lib/series.h"
#include "store/db.h"
#include "store/machines.h"
#include "store/runs.h"
#include "store/ticks.h"

#define NLABELS 3
#define TICK_NS 1000000000ull

/* The series the report derives its charts from come first (their
 * positions are fixed below); the rest are filler counters. */
enum {
    S_PSWPIN, S_PSWPOUT, S_USER, S_NICE, S_SYSTEM, S_IDLE, S_IOWAIT, S_IRQ, S_SOFTIRQ, S_STEAL,
    S_SCAN_ANON, S_SCAN_FILE, S_STEAL_ANON, S_STEAL_FILE, S_REFAULT_ANON, S_REFAULT_FILE,
    S_PSI_SOME, S_PSI_FULL, S_PGFAULT, S_PGMAJFAULT, S_CTXT, S_INTR,
    S_MEMFREE, S_MEMAVAIL, S_SWAPFREE, S_CACHED, S_BEAT,
    S_NAMED
};
static const char *const named[S_NAMED] = {
    "vmstat.pswpin", "vmstat.pswpout", "stat.cpu.user", "stat.cpu.nice", "stat.cpu.system", "stat.cpu.idle",
    "stat.cpu.iowait", "stat.cpu.irq", "stat.cpu.softirq", "stat.cpu.steal",
    "vmstat.pgscan_anon", "vmstat.pgscan_file", "vmstat.pgsteal_anon", "vmstat.pgsteal_file",
    "vmstat.workingset_refault_anon", "vmstat.workingset_refault_file",
    "psi.memory.some.total", "psi.memory.full.total", "vmstat.pgfault", "vmstat.pgmajfault", "stat.ctxt", "stat.intr",
    "meminfo.MemFree", "meminfo.MemAvailable", "meminfo.SwapFree", "meminfo.Cached", "heartbeat.late_max_us",
};
/* PSI's averages, the only real values a run stores. */
#define NREALS 18

/* xorshift64*: the same database every time for the same arguments. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* A whole number in [lo, hi]. */
static int64_t rng_in(uint64_t *s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

struct fixture {
    struct pm_db db;
    const char *path;
    int64_t machine_id;
    long runs_per_label, ticks, streams;
    size_t nseries;
    char (*names)[48];    /* every series' name, by position */
};

/* The names of a run's series: the report's, PSI's averages, filler. */
static int name_series(struct fixture *fx, struct pm_err *err)
{
    static const char *const res[] = { "cpu", "memory", "io" }, *const kind[] = { "some", "full" },
                             *const avg[] = { "avg10", "avg60", "avg300" };
    fx->names = calloc(fx->nseries, sizeof *fx->names);
    if (!fx->names)
        return pm_errf(err, "out of memory");
    size_t i = 0;
    for (; i < S_NAMED; i++)
        snprintf(fx->names[i], sizeof fx->names[i], "%s", named[i]);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 2; k++)
            for (int a = 0; a < 3; a++, i++)
                snprintf(fx->names[i], sizeof fx->names[i], "psi.%s.%s.%s", res[r], kind[k], avg[a]);
    for (size_t f = 0; i < fx->nseries; i++, f++)
        snprintf(fx->names[i], sizeof fx->names[i], "vmstat.bench_filler_%03zu", f);
    return 0;
}

/* One tick's values: a second of a swapout run on a 2-CPU machine. */
static void step_values(int64_t *v, double *real, size_t n, uint64_t *rng, long k)
{
    int64_t out = rng_in(rng, 2000, 9000), in = rng_in(rng, 100, 1200);
    v[S_PSWPOUT] += out;
    v[S_PSWPIN] += in;
    int64_t user = rng_in(rng, 40, 80), sys = rng_in(rng, 20, 50), wait = rng_in(rng, 0, 15);
    v[S_USER] += user;
    v[S_SYSTEM] += sys;
    v[S_IOWAIT] += wait;
    v[S_IRQ] += rng_in(rng, 0, 2);
    v[S_SOFTIRQ] += rng_in(rng, 0, 4);
    v[S_IDLE] += 200 - user - sys - wait;
    v[S_SCAN_ANON] += out + rng_in(rng, 0, 3000);
    v[S_SCAN_FILE] += rng_in(rng, 0, 2000);
    v[S_STEAL_ANON] += out;
    v[S_STEAL_FILE] += rng_in(rng, 0, 800);
    v[S_REFAULT_ANON] += in;
    v[S_REFAULT_FILE] += rng_in(rng, 0, 300);
    int64_t some = rng_in(rng, 50000, 400000);
    v[S_PSI_SOME] += some;
    v[S_PSI_FULL] += some / 2;
    v[S_PGFAULT] += rng_in(rng, 20000, 60000);
    v[S_PGMAJFAULT] += in;
    v[S_CTXT] += rng_in(rng, 3000, 9000);
    v[S_INTR] += rng_in(rng, 2000, 6000);
    /* Levels wander in kB, within what a capped machine shows. */
    v[S_MEMFREE] = llabs(v[S_MEMFREE] + rng_in(rng, -4096, 4096) - 60000) % 120000 + 60000;
    v[S_MEMAVAIL] = v[S_MEMFREE] + rng_in(rng, 20000, 40000);
    v[S_SWAPFREE] -= (out - in) * 4;
    v[S_CACHED] = 30000 + rng_in(rng, 0, 2000);
    v[S_BEAT] = rng_in(rng, 20, 3000);
    /* PSI's averages follow the stall share, smoothed, with two decimals. */
    double share = (double)some / 1e4;
    static const double weight[3] = { 0.18, 0.033, 0.0066 };
    for (size_t i = 0; i < NREALS; i++)
        real[i] = round((real[i] + (share / (1 + (double)(i % 6 >= 3)) - real[i]) * weight[i % 3]) * 100) / 100;
    /* Filler counters: each changes on about one tick in eight. */
    for (size_t i = S_NAMED + NREALS; i < n; i++)
        if (rng_next(rng) % 8 == 0)
            v[i] += rng_in(rng, 1, 50 + (int64_t)(k % 7));
}

/* The table the tick writer reads, as the sampler fills it: every series
 * has a value at this tick (seen_tick == mark). */
static int fill_table(struct fixture *fx, struct series_table *t, const int64_t *v, const double *real, uint64_t mark,
                      struct pm_err *err)
{
    for (size_t i = 0; i < fx->nseries; i++) {
        struct series *se = series_table_get(t, fx->names[i], strlen(fx->names[i]));
        if (!se)
            return pm_errf(err, "out of memory for series");
        bool is_real = i >= S_NAMED && i < S_NAMED + NREALS;
        struct pm_value pv = is_real ? (struct pm_value){ .kind = PM_REAL, .r = real[i - S_NAMED] }
                                     : (struct pm_value){ .kind = PM_INT, .i = v[i] };
        series_record(se, pv);
        se->seen_tick = mark;
    }
    return 0;
}

/* A run's ticks, through tick_store's write(), as the sampler hands them. */
static int write_ticks(struct fixture *fx, int64_t run_id, uint64_t seed, struct pm_err *err)
{
    int64_t *v = calloc(fx->nseries, sizeof *v);
    double real[NREALS] = { 0 };
    if (!v)
        return pm_errf(err, "out of memory");
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1;
    /* Counters start where a machine up for a while has them. */
    for (size_t i = 0; i < fx->nseries; i++)
        v[i] = rng_in(&rng, 1000000, 900000000);
    v[S_MEMFREE] = 100000;
    v[S_MEMAVAIL] = 130000;
    v[S_SWAPFREE] = 4000000000;
    v[S_CACHED] = 30000;
    v[S_BEAT] = 100;
    struct series_table t;
    series_table_init(&t);
    struct tick_store ts;
    int rc = tick_store_open(&ts, fx->path, run_id, err);
    bool opened = rc == 0;   /* (a failed open has closed what it opened) */
    for (long k = 0; rc == 0 && k < fx->ticks; k++) {
        if (k)
            step_values(v, real, fx->nseries, &rng, k);
        size_t first_new = t.n;
        rc = fill_table(fx, &t, v, real, (uint64_t)k + 1, err);
        if (rc == 0)
            rc = ts.base.write(&ts.base, (uint64_t)k, (uint64_t)k * TICK_NS, &t, first_new, (uint64_t)k + 1, err);
    }
    if (rc == 0)
        rc = ts.base.flush(&ts.base, err);
    if (opened)
        tick_store_close(&ts);
    series_table_free(&t);
    free(v);
    return rc;
}

/* The run's end: 60 metrics (the comparison's six first), ok or failed. */
static int end_run(struct fixture *fx, const struct run_row *row, long i, uint64_t *rng, struct pm_err *err)
{
    static const struct { const char *name, *unit; enum metric_dir dir; double base; } six[] = {
        { "swapout.mb_per_s", "MB/s", PM_HIGHER, 500 }, { "stat.cpu.util_pct", "%", PM_NEITHER, 60 },
        { "stat.cpu.sys_user_ratio", "ratio", PM_LOWER, 0.5 }, { "swap.in_kb", "KB", PM_LOWER, 2.0e6 },
        { "swap.out_kb", "KB", PM_LOWER, 1.6e7 }, { "swap.io_kb", "KB", PM_LOWER, 1.8e7 },
    };
    struct metric_set ms = { 0 };
    struct kv_list meta = { 0 };
    int rc = 0;
    double label_step = 1 + 0.01 * (double)(i % NLABELS);
    for (size_t m = 0; m < 60 && rc == 0; m++) {
        double noise = 1 + (double)rng_in(rng, -200, 200) / 10000;
        char name[32];
        snprintf(name, sizeof name, "bench.m%zu", m + 1);
        rc = m < 6 ? metric_set_put(&ms, six[m].name, six[m].base * label_step * noise, six[m].unit, six[m].dir)
                   : metric_set_put(&ms, name, 500 * label_step * noise, "x", PM_HIGHER);
    }
    if (rc == 0 && (pm_kv_set(&meta, "cap.method", "none") < 0 || pm_kv_set(&meta, "swap.devices", "none") < 0 ||
                    pm_kv_set(&meta, "pressmark.version", "bench") < 0))
        rc = -1;
    /* A real run's environment: some 60 sysctls, the same for every run. */
    for (int k = 0; k < 57 && rc == 0; k++) {
        char key[48];
        snprintf(key, sizeof key, "sysctl.vm.bench_setting_%02d", k);
        rc = pm_kv_setf(&meta, key, "%d", k * 37 % 101) < 0 ? -1 : 0;
    }
    if (rc < 0) {
        metric_set_free(&ms);
        pm_kv_free(&meta);
        return pm_errf(err, "out of memory");
    }
    bool failed = i % 97 == 96;
    struct run_record rec = { .status = failed ? "failed" : "ok", .reason = failed ? "bench: a failed run" : NULL,
                              .ended_ns = row->started_ns + fx->ticks * (int64_t)TICK_NS, .metrics = &ms,
                              .meta = &meta };
    rc = store_run_end(&fx->db, row->id, &rec, err);
    metric_set_free(&ms);
    pm_kv_free(&meta);
    return rc;
}

static int make_runs(struct fixture *fx, struct pm_err *err)
{
    static const char *const labels[NLABELS] = { "A", "B", "C" };
    uint64_t rng = 42;
    for (long i = 0; i < fx->runs_per_label * NLABELS; i++) {
        struct run_row row = { .label = labels[i % NLABELS], .workload = "swapout", .params = "",
                               .interval_ns = TICK_NS };
        if (store_run_begin(&fx->db, fx->machine_id, &row, err) < 0 ||
            write_ticks(fx, row.id, (uint64_t)(i % fx->streams) + 1, err) < 0 ||
            end_run(fx, &row, i, &rng, err) < 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6) {
        fprintf(stderr, "usage: %s DB RUNS_PER_LABEL TICKS [SERIES [STREAMS]]\n", argv[0]);
        return 2;
    }
    struct fixture fx = { .path = argv[1], .runs_per_label = atol(argv[2]), .ticks = atol(argv[3]),
                          .nseries = argc > 4 ? (size_t)atol(argv[4]) : 390, .streams = argc > 5 ? atol(argv[5]) : 7 };
    if (fx.runs_per_label < 1 || fx.ticks < 2 || fx.nseries < S_NAMED + NREALS || fx.nseries > TICK_MAX_SERIES ||
        fx.streams < 1) {
        fprintf(stderr, "%s: RUNS_PER_LABEL at least 1, TICKS at least 2, SERIES %d to %d, STREAMS at least 1\n",
                argv[0], S_NAMED + NREALS, TICK_MAX_SERIES);
        return 2;
    }
    struct pm_err err;
    struct machine_info mi;
    int rc = pm_machine_read(&mi, &err);
    if (rc == 0)
        rc = name_series(&fx, &err);
    if (rc == 0 && (rc = store_db_open(&fx.db, fx.path, true, &err)) == 0) {
        fx.machine_id = store_machine(&fx.db, &mi, &err);
        rc = fx.machine_id < 0 ? -1 : make_runs(&fx, &err);
        store_db_close(&fx.db);
    }
    free(fx.names);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", argv[0], err.msg);
        return 1;
    }
    return 0;
}
