/* The 2001 mtest01 swap-out bandwidth test (Andrea Arcangeli): with memory pre-filled by stopped
 * processes holding touched anonymous pages (swap-bench-pause), time an
 * mtest01 -b SIZE -w that allocates SIZE in chunks and writes it. What
 * the heartbeat records meanwhile is that report's "vmstat skips beats". */
#include <errno.h>
#include <stddef.h>
#include "lib/timeutil.h"
#include <sys/prctl.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/fileio.h"
#include "lib/units.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What this workload stores, declared once: help metrics, the man page
 * and the tests' strict check read it. */
enum { SWAPOUT_MB_PER_S, SWAPOUT_ELAPSED_S, SWAPOUT_TIMED_SWAP_OUT_KB, SWAPOUT_SIZE_BYTES,
    SWAPOUT_PREFILL_BYTES };
static const struct metric_def swapout_defs[] = {
    [SWAPOUT_MB_PER_S] = METRIC("swapout.mb_per_s", "MB/s", PM_HIGHER,
                  "size / the timed allocation's seconds (the headline)"),
    [SWAPOUT_ELAPSED_S] = METRIC("swapout.elapsed_s", "s", PM_LOWER, "the timed allocation"),
    [SWAPOUT_TIMED_SWAP_OUT_KB] = METRIC("swapout.timed_swap_out_kb", "KB", PM_LOWER,
                  "swapped out, system-wide (pswpout), while the allocator ran"),
    [SWAPOUT_SIZE_BYTES] = METRIC("swapout.size_bytes", "bytes", PM_NEITHER, "memory allocated and written"),
    [SWAPOUT_PREFILL_BYTES] = METRIC("swapout.prefill_bytes", "bytes", PM_NEITHER,
                  "memory filled before the timed part"),
};
static const struct metric_group swapout_metrics = METRIC_GROUP(
    "swapout: run swapout, mtest01's swap-out bandwidth",
    swapout_defs);

#define MAX_HOLDERS 64

enum touch_mode { TOUCH_EVERY_BYTE, TOUCH_PER_PAGE };

struct swapout_state {
    uint64_t size, chunk, prefill;
    unsigned prefill_procs;
    unsigned touch;                  /* enum touch_mode */
};

static const char *const touch_words[] = { "every-byte", "per-page", NULL };

#define SO(field) offsetof(struct swapout_state, field)
static const struct opt swapout_options[] = {
    { .name = "size", .type = OPT_SIZE, .offset = SO(size), .metavar = "SIZE", .def = "512M", .flags = OPT_PCT_MEM,
      .min = 4096, .max = 1e18, .extra = "at least 4K",
      .help = "memory the timed allocator allocates and writes (mtest01 -b)" },
    { .name = "chunk", .type = OPT_SIZE, .offset = SO(chunk), .metavar = "SIZE", .def = "1M", .flags = OPT_PCT_MEM,
      .min = 4096, .max = 1e18, .extra = "at least 4K", .help = "allocation size of each step" },
    { .name = "touch", .type = OPT_CHOICE, .offset = SO(touch), .metavar = "MODE", .def = "every-byte",
      .words = touch_words, .noun = "touch mode",
      .help = "every-byte writes all of it, per-page one word per page" },
    { .name = "prefill", .type = OPT_SIZE, .offset = SO(prefill), .metavar = "SIZE", .def = "0", .flags = OPT_PCT_MEM,
      .extra = "0 for none", .help = "memory held by stopped processes before the timed part" },
    { .name = "prefill-procs", .type = OPT_UINT, .offset = SO(prefill_procs), .metavar = "N", .def = "3",
      .min = 1, .max = MAX_HOLDERS, .noun = "process count",
      .help = "how many stopped processes hold the prefill (the swap-out report used 3)" },
    { .type = OPT_END },
};

static void kill_holders(pid_t *pids, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (pids[i] > 0)
            kill(pids[i], SIGKILL);
    for (unsigned i = 0; i < n; i++)
        if (pids[i] > 0)
            while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
                ;
}

/* Start the holders and wait until each has touched its share and stopped. */
static int prefill(struct swapout_state *st, struct run_ctx *rc, pid_t *pids, struct pm_err *err)
{
    uint64_t each = st->prefill / st->prefill_procs;
    for (unsigned i = 0; i < st->prefill_procs; i++) {
        char bytes[32];
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)(i + 1 < st->prefill_procs ? each : st->prefill - each * i));
        char *argv[] = { (char *)run_exe(rc), "__hold", bytes, NULL };
        if (run_spawn(rc, argv, &pids[i], err) < 0)
            return -1;
        int ws;
        while (waitpid(pids[i], &ws, WUNTRACED) < 0)
            if (errno != EINTR)
                return pm_errf(err, "prefill: %s", strerror(errno));
        if (!WIFSTOPPED(ws)) {
            pids[i] = 0;
            run_set_status(rc, "failed", "prefill process %u of %u ended before holding its memory (%s %d)", i + 1,
                           st->prefill_procs, WIFSIGNALED(ws) ? "signal" : "status",
                           WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
            return 1;
        }
    }
    return 0;
}

static int swapout_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct swapout_state *st = state;
    pid_t holders[MAX_HOLDERS] = { 0 };
    if (st->prefill) {
        int p = prefill(st, rc, holders, err);
        if (p != 0) {
            kill_holders(holders, st->prefill_procs);
            return p < 0 ? -1 : 0;
        }
    }
    if (run_check_abort(rc)) {
        kill_holders(holders, st->prefill_procs);
        run_set_status(rc, "aborted", "interrupted during the prefill");
        return 0;
    }
    char size[32], chunk[32];
    snprintf(size, sizeof size, "%llu", (unsigned long long)st->size);
    snprintf(chunk, sizeof chunk, "%llu", (unsigned long long)st->chunk);
    char *argv[] = { (char *)run_exe(rc), "__swapout", size, chunk, st->touch == TOUCH_EVERY_BYTE ? "every-byte" : "per-page", NULL };
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        kill_holders(holders, st->prefill_procs);
        return pm_errf(err, "pipe: %s", strerror(errno));
    }
    int64_t out0 = pm_vmstat_value("pswpout");
    pid_t pid;
    int sp = run_spawn_fd(rc, argv, p[1], &pid, err);
    close(p[1]);
    if (sp < 0) {
        close(p[0]);
        kill_holders(holders, st->prefill_procs);
        return -1;
    }
    struct run_exit ex;
    int rc_wait = run_wait(rc, pid, &ex, err);
    int64_t out1 = pm_vmstat_value("pswpout");
    kill_holders(holders, st->prefill_procs);
    char line[96] = "";
    ssize_t n = read(p[0], line, sizeof line - 1);
    close(p[0]);
    line[n > 0 ? n : 0] = '\0';
    if (rc_wait < 0)
        return -1;
    run_rusage_metrics(rc, &ex);
    run_status_from_exit(rc, "the allocator", &ex);
    /* MB/s over the allocator's own timed loop (its start-up excluded);
     * time.elapsed_s keeps the whole process as wait4 saw it. */
    unsigned long long loop_ns = 0;
    double secs = sscanf(line, "elapsed_ns %llu", &loop_ns) == 1 && loop_ns ? (double)loop_ns / 1e9
                                                                          : (double)ex.elapsed_ns / 1e9;
    if (strcmp(rc_status(rc), "ok") == 0) {
        run_metric(rc, &swapout_defs[SWAPOUT_MB_PER_S], secs > 0 ? (double)st->size / 1048576.0 / secs : 0);
        run_metric(rc, &swapout_defs[SWAPOUT_ELAPSED_S], secs);
    }
    if (out0 >= 0 && out1 >= 0)
        run_metric(rc, &swapout_defs[SWAPOUT_TIMED_SWAP_OUT_KB], (double)(out1 - out0) * (double)sysconf(_SC_PAGESIZE) / 1024.0);
    run_metric(rc, &swapout_defs[SWAPOUT_SIZE_BYTES], (double)st->size);
    run_metric(rc, &swapout_defs[SWAPOUT_PREFILL_BYTES], (double)st->prefill);
    return 0;
}

/* The helper processes the runs start: pressmark's own binary, called as
 * "pressmark __hold" and "pressmark __swapout". */
/* Fill memory the way a program's data fills it: every 8-byte word
 * different, so zram and zswap cannot store the page as "same-filled"
 * for free, yet compressible as real data is. */
static void touch(char *p, size_t len, size_t stride, uint64_t seed)
{
    if (stride == 0) {
        uint64_t *w = (uint64_t *)p;
        for (size_t i = 0; i < len / sizeof *w; i++)
            w[i] = seed + i;
    } else {
        for (size_t off = 0; off < len; off += stride)
            *(uint64_t *)(p + off) = seed + off;
    }
}

/* The swap-out report's swap-bench-pause: hold touched anonymous memory, then stop. */
static int hold_main(int argc, char **argv)
{
    uint64_t bytes;
    if (argc != 2 || pm_parse_uint(argv[1], 1, UINT64_MAX, &bytes) < 0)
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* The timed allocator, not the holders, is what the OOM killer should
     * take when the cap is too small: that is the run's result. */
    pm_write_file("/proc/self/oom_score_adj", "-900", NULL);
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "pressmark hold: cannot map %llu bytes: %s\n", (unsigned long long)bytes, strerror(errno));
        return 1;
    }
    touch(p, bytes, 0, 0x5eed);
    raise(SIGSTOP);
    for (;;)
        pause();
}

/* LTP's mtest01 -b SIZE -w: allocate SIZE in chunks and write every chunk. */
static int swapout_main(int argc, char **argv)
{
    uint64_t size, chunk;
    if (argc != 4 || pm_parse_uint(argv[1], 1, UINT64_MAX, &size) < 0 || pm_parse_uint(argv[2], 4096, UINT64_MAX, &chunk) < 0)
        return 2;
    bool every_byte = strcmp(argv[3], "every-byte") == 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* The timed part is the allocating and writing, as in mtest01: this
     * process's own start-up (loading pressmark's libraries) is not. */
    uint64_t t0 = pm_now_ns();
    uint64_t done = 0;
    while (done < size) {
        uint64_t n = size - done < chunk ? size - done : chunk;
        char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr, "FAIL ... %llu bytes allocated: %s\n", (unsigned long long)done, strerror(errno));
            return 1;
        }
        touch(p, n, every_byte ? 0 : page, done);
        done += n;
    }
    uint64_t t1 = pm_now_ns();
    printf("PASS ... %llu bytes allocated.\n", (unsigned long long)done);
    char line[96];
    int n = snprintf(line, sizeof line, "elapsed_ns %llu\n", (unsigned long long)(t1 - t0));
    if (fcntl(4, F_GETFD) >= 0 && write(4, line, (size_t)n) != n)
        return 1;
    return 0;
}

static const struct wl_helper swapout_helpers[] = {
    { "__hold", hold_main },
    { "__swapout", swapout_main },
    { NULL, NULL },
};

const struct workload_ops workload_swapout = {
    .metrics = &swapout_metrics,
    .name = "swapout",
    .summary = "mtest01 swap-out bandwidth (2.4.14pre3aa3, 2001): mtest01 -b SIZE -w with memory pre-filled by stopped processes",
    .headline = MN_swapout_mb_per_s,
    .headline_title = "MB/s",
    .options = swapout_options,
    .state_size = sizeof(struct swapout_state),
    .run = swapout_run,
    .helpers = swapout_helpers,
};
