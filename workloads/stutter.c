/* mmtests' stutterp idea: how long does a small, interactive allocation
 * take while something else eats the memory? A hog (--hog, by default the
 * cap plus a quarter) writes its memory over and over, so reclaim never
 * rests; once it has filled it, a probe maps --probe-size, touches every
 * page, unmaps, and sleeps --probe-gap, for --duration, timing each round.
 * Reported: the probe's latency percentiles (p99 is the headline) and the
 * hog's throughput. The closest one number to "how does the desktop feel
 * while something eats memory". */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "workloads/latency.h"
#include "workloads/ready.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What this workload stores, declared once: help metrics, the man page
 * and the tests' strict check read it. */
enum { STUTTER_HOG_MB_PER_S, STUTTER_HOG_SWEEPS, STUTTER_HOG_BYTES, STUTTER_FILL_S, STUTTER_ROUNDS,
    STUTTER_LATENCY };
static const struct metric_def stutter_defs[] = {
    [STUTTER_HOG_MB_PER_S] = METRIC("stutter.hog_mb_per_s", "MB/s", PM_HIGHER,
                  "the hog's write rate while the probe runs"),
    [STUTTER_HOG_SWEEPS] = METRIC("stutter.hog_sweeps", "count", PM_NEITHER, "the hog's passes over its memory"),
    [STUTTER_HOG_BYTES] = METRIC("stutter.hog_bytes", "bytes", PM_NEITHER, "the hog's memory"),
    [STUTTER_FILL_S] = METRIC("stutter.fill_s", "s", PM_LOWER, "the hog's first fill"),
    [STUTTER_ROUNDS] = METRIC("stutter.rounds", "count", PM_NEITHER, "probe rounds"),
    [STUTTER_LATENCY] = LATENCY_METRIC("stutter.latency",
                          "a probe round: map, touch and unmap --probe-size (the headline is p99)"),
};
static const struct metric_group stutter_metrics = METRIC_GROUP(
    "stutter: run stutter, mmtests' stutterp",
    stutter_defs);

struct stutter_state {
    uint64_t hog, probe_size, duration_ns, gap_ns;
    bool hog_default;            /* --hog was not given: the cap's size decides */
};

#define SO(field) offsetof(struct stutter_state, field)
static const struct opt stutter_options[] = {
    { .name = "hog", .type = OPT_SIZE, .offset = SO(hog), .metavar = "SIZE", .flags = OPT_PCT_MEM, .min = 4096,
      .max = 1e18, .extra = "at least 4K",
      .help = "memory the hog keeps writing (default: the cap plus a quarter, at least 64M more)" },
    { .name = "probe-size", .type = OPT_SIZE, .offset = SO(probe_size), .metavar = "SIZE", .def = "4M", .min = 4096,
      .max = 1e12, .extra = "at least 4K", .help = "what the probe maps and touches each round" },
    { .name = "duration", .type = OPT_DURATION, .offset = SO(duration_ns), .metavar = "D", .def = "10s", .min = 1e6,
      .max = 1e13, .extra = "at least 1ms", .help = "how long the probe runs, once the hog has filled its memory" },
    { .name = "probe-gap", .type = OPT_DURATION, .offset = SO(gap_ns), .metavar = "D", .def = "10ms", .min = 0,
      .max = 6e10, .extra = "0 to 60s", .help = "the probe's sleep between rounds (an interactive task's think time)" },
    { .type = OPT_END },
};

static int stutter_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct stutter_state *st = state;
    if (!st->hog) {
        if (!lim->mem_cap)
            return pm_errf(err, "--hog: give the hog's size, or a --mem-cap for it to be sized from (the cap plus a quarter)");
        uint64_t margin = lim->mem_cap / 4 > (64ull << 20) ? lim->mem_cap / 4 : 64ull << 20;
        st->hog = lim->mem_cap + margin;
        st->hog_default = true;
    }
    return wl_check_fits(lim, st->hog + st->probe_size, "--hog + --probe-size", err);
}

static void stutter_describe(void *state, char *buf, size_t len)
{
    struct stutter_state *st = state;
    char hog[32], probe[32];
    pm_fmt_size(hog, sizeof hog, st->hog);
    pm_fmt_size(probe, sizeof probe, st->probe_size);
    snprintf(buf, len, "--hog %s%s --probe-size %s --duration %.3gs --probe-gap %.3gms", hog,
             st->hog_default ? " (the cap plus a quarter)" : "", probe, (double)st->duration_ns / 1e9,
             (double)st->gap_ns / 1e6);
}

static atomic_bool hog_stop;

static void on_term(int sig)
{
    (void)sig;
    atomic_store(&hog_stop, true);
}

/* "pressmark __stutter-hog SIZE": write one word per page over SIZE, again
 * and again; "filled" on fd 4 after the first sweep; on SIGTERM, its pages
 * written and time. */
static int hog_main(int argc, char **argv)
{
    uint64_t size;
    if (argc != 2 || pm_parse_uint(argv[1], 4096, UINT64_MAX, &size) < 0)
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct sigaction sa = { .sa_handler = on_term };
    sigaction(SIGTERM, &sa, NULL);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (size_t)(size / page);
    char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "pressmark stutter hog: cannot map %llu bytes: %s\n", (unsigned long long)size, strerror(errno));
        return 1;
    }
    uint64_t t0 = pm_now_ns(), written = 0, sweeps = 0;
    while (!atomic_load(&hog_stop)) {
        for (size_t i = 0; i < pages && !atomic_load(&hog_stop); i++) {
            *(volatile uint64_t *)(p + i * page) = written++ ^ 0x5eed;
        }
        if (sweeps++ == 0 && write(4, "filled\n", 7) != 7)
            return 1;
    }
    char line[128];
    int n = snprintf(line, sizeof line, "hog pages %llu ns %llu sweeps %llu\n", (unsigned long long)written,
                     (unsigned long long)(pm_now_ns() - t0), (unsigned long long)sweeps);
    return write(4, line, (size_t)n) == n ? 0 : 1;
}

/* "pressmark __stutter-probe SIZE DURATION_NS GAP_NS": rounds of map,
 * touch, unmap, each timed; progress and the histogram on fd 4. */
static int probe_main(int argc, char **argv)
{
    uint64_t size, duration, gap;
    if (argc != 4 || pm_parse_uint(argv[1], 4096, UINT64_MAX, &size) < 0 ||
        pm_parse_uint(argv[2], 1, UINT64_MAX, &duration) < 0 || pm_parse_uint(argv[3], 0, UINT64_MAX, &gap) < 0)
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    static struct wl_latency lat;
    wl_latency_init(&lat);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t start = pm_now_ns(), reported = start, rounds = 0;
    while (pm_now_ns() - start < duration) {
        uint64_t t0 = pm_now_ns();
        char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr, "pressmark stutter probe: mmap: %s\n", strerror(errno));
            return 1;
        }
        for (size_t off = 0; off < size; off += page)
            *(volatile char *)(p + off) = 1;
        munmap(p, size);
        uint64_t t1 = pm_now_ns();
        wl_latency_record(&lat, t1 - t0);
        rounds++;
        if (t1 - reported >= 500000000ull) {
            char line[160];
            int n = wl_latency_progress(&lat, rounds, t1 - reported, line, sizeof line);
            reported = t1;
            /* Never block on a full pipe: the next line says it again. */
            struct pollfd pf = { .fd = 4, .events = POLLOUT };
            if (poll(&pf, 1, 0) == 1 && write(4, line, (size_t)n) != n)
                return 1;
        }
        if (gap) {
            struct timespec ts = { (time_t)(gap / 1000000000ull), (long)(gap % 1000000000ull) };
            nanosleep(&ts, NULL);
        }
    }
    char extra[64];
    snprintf(extra, sizeof extra, "rounds %llu", (unsigned long long)rounds);
    return wl_latency_report(&lat, 4, extra) == 0 ? 0 : 1;
}

static int stutter_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct stutter_state *st = state;
    char a[3][32];
    snprintf(a[0], sizeof a[0], "%llu", (unsigned long long)st->hog);
    char *hargv[] = { (char *)run_exe(rc), "__stutter-hog", a[0], NULL };
    int hp[2], pp[2];
    if (pipe2(hp, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    pid_t hog;
    int sp = run_spawn_fd(rc, hargv, hp[1], &hog, err);
    close(hp[1]);
    if (sp < 0) {
        close(hp[0]);
        return -1;
    }
    uint64_t f0 = pm_now_ns();
    struct run_exit hex;
    if (wl_wait_ready(rc, hp[0], hog, "filled") != 0) {
        kill(hog, SIGKILL);
        int w = run_wait(rc, hog, &hex, err);
        close(hp[0]);
        if (w < 0)
            return -1;
        run_rusage_metrics(rc, &hex);
        run_status_from_exit(rc, "the hog", &hex);
        if (strcmp(rc_status(rc), "ok") == 0 || (hex.aborted && strcmp(rc_status(rc), "aborted") != 0))
            run_set_status(rc, hex.aborted ? "aborted" : "failed", "the hog ended before it had filled its memory");
        return 0;
    }
    run_metric(rc, &stutter_defs[STUTTER_FILL_S], (double)(pm_now_ns() - f0) / 1e9);
    snprintf(a[0], sizeof a[0], "%llu", (unsigned long long)st->probe_size);
    snprintf(a[1], sizeof a[1], "%llu", (unsigned long long)st->duration_ns);
    snprintf(a[2], sizeof a[2], "%llu", (unsigned long long)st->gap_ns);
    char *pargv[] = { (char *)run_exe(rc), "__stutter-probe", a[0], a[1], a[2], NULL };
    if (pipe2(pp, O_CLOEXEC) < 0) {
        kill(hog, SIGKILL);
        run_wait(rc, hog, &hex, err);
        close(hp[0]);
        return pm_errf(err, "pipe: %s", strerror(errno));
    }
    pid_t probe;
    sp = run_spawn_fd(rc, pargv, pp[1], &probe, err);
    close(pp[1]);
    if (sp < 0) {
        close(pp[0]);
        kill(hog, SIGKILL);
        run_wait(rc, hog, &hex, err);
        close(hp[0]);
        return -1;
    }
    struct wl_reader rr;
    wl_reader_start(&rr, pp[0], rc, "rounds/s");
    struct run_exit pex;
    int w = run_wait(rc, probe, &pex, err);
    wl_reader_stop(&rr);
    close(pp[0]);
    /* The hog's figures cover the probe's time and its own fill. */
    kill(hog, SIGTERM);
    int hw = run_wait(rc, hog, &hex, err);
    char line[160] = "";
    ssize_t n = read(hp[0], line, sizeof line - 1);
    close(hp[0]);
    line[n > 0 ? n : 0] = '\0';
    if (w < 0 || hw < 0) {
        wl_reader_free(&rr);
        return -1;
    }
    run_rusage_metrics(rc, &pex);
    run_status_from_exit(rc, "the probe", &pex);
    if (strcmp(rc_status(rc), "ok") == 0)
        run_status_from_exit(rc, "the hog", &hex);
    unsigned long long pages = 0, ns = 0, sweeps = 0, rounds = 0;
    if (sscanf(line, "hog pages %llu ns %llu sweeps %llu", &pages, &ns, &sweeps) == 3 && ns) {
        double mb = (double)pages * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
        run_metric(rc, &stutter_defs[STUTTER_HOG_MB_PER_S], mb / ((double)ns / 1e9));
        run_metric(rc, &stutter_defs[STUTTER_HOG_SWEEPS], (double)sweeps);
    }
    run_metric(rc, &stutter_defs[STUTTER_HOG_BYTES], (double)st->hog);
    if (sscanf(rr.latstat_extra, "rounds %llu", &rounds) == 1)
        run_metric(rc, &stutter_defs[STUTTER_ROUNDS], (double)rounds);
    int rcl = 0;
    if (rr.lat_done && rr.lat.count)
        rcl = run_latency(rc, &stutter_defs[STUTTER_LATENCY], &rr.lat, err);
    else if (strcmp(rc_status(rc), "ok") == 0)
        run_set_status(rc, "failed", "the probe reported no latencies");
    wl_reader_free(&rr);
    return rcl;
}

static const struct wl_helper stutter_helpers[] = {
    { "__stutter-hog", hog_main },
    { "__stutter-probe", probe_main },
    { NULL, NULL },
};

static const char *const stutter_compare_also[] = { MN_stutter_hog_mb_per_s, NULL };

const struct workload_ops workload_stutter = {
    .metrics = &stutter_metrics,
    .name = "stutter",
    .summary = "mmtests' stutterp: a small probe maps, touches and unmaps while a hog keeps memory full; probe latency",
    .headline = MN_stutter_latency_p99_us,
    .headline_title = "p99 us",
    .compare_also = stutter_compare_also,
    .options = stutter_options,
    .state_size = sizeof(struct stutter_state),
    .check = stutter_check,
    .run = stutter_run,
    .describe = stutter_describe,
    .helpers = stutter_helpers,
};
