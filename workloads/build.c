/* The 2004 objrmap-under-memory-pressure workload: `make -j J vmlinux` under a memory cap, measured by
 * wait4 on make (which has waited for every compiler it ran), shown as
 * GNU time's line. The default tree is generated so it runs anywhere;
 * --linux builds a real kernel (Debian's linux-source package, configured
 * by --kconfig), --tree your own. As that report 002 and kernbench do: a
 * priming build first (make clean; make TARGET; make clean), then for each
 * run make clean, sync, optionally drop the caches, optionally fill the cold
 * shmem (--cold-shmem, the zswap series' recipe), and the timed make, with
 * ccache told to stay out of it. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include "lib/spawn.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/fileio.h"
#include "lib/units.h"
#include "workloads/build_tree.h"
#include "workloads/coldshm.h"
#include "workloads/linux_source.h"
#include "workloads/plainmake.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What this workload stores, declared once: help metrics, the man page
 * and the tests' strict check read it. */
enum { BUILD_JOBS, BUILD_COLD_SHMEM, BUILD_COLD_FILL };
static const struct metric_def build_defs[] = {
    [BUILD_JOBS] = METRIC("build.jobs", "count", PM_NEITHER, "make's -j"),
    [BUILD_COLD_SHMEM] = METRIC("build.cold_shmem_mb", "MB", PM_NEITHER,
                                "--cold-shmem: shmem filled in the cap before the timed make, never touched again"),
    [BUILD_COLD_FILL] = METRIC("build.cold_shmem_fill_s", "s", PM_LOWER, "how long filling the cold shmem took"),
};
static const struct metric_group build_metrics = METRIC_GROUP(
    "build: run build, make -j on a generated tree (time.elapsed_s is the headline)",
    build_defs);


#define MAX_PHASES 16
#define MAX_MAKE_ARGS 32

struct build_state {
    struct tree_params tree;
    char user_tree[4096];
    char target[256];
    char *make_args[MAX_MAKE_ARGS];
    int nmake_args;
    char jobs_text[256];
    char phase_names[MAX_PHASES][16];
    long phase_jobs[MAX_PHASES];     /* 0: unlimited (make -j) */
    int nphases, phase;
    bool drop_caches, primed;
    char linux[16];                  /* --linux SERIES, "" for none */
    char kconfig[32];                /* --kconfig, "" for defconfig */
    char kernel[32];                 /* the --linux tree's own version */
    uint64_t cold_shmem;             /* bytes, 0: none */
    char dir[4096];                  /* the tree being built */
};

static long cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

static int parse_jobs(struct build_state *st, const char *text, struct pm_err *err)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    st->nphases = 0;
    for (char *save, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (st->nphases == MAX_PHASES)
            return pm_errf(err, "at most %d phases", MAX_PHASES);
        long j;
        uint64_t v;
        size_t n = strlen(w);
        if (strcmp(w, "half") == 0)
            j = cpus() / 2 > 0 ? cpus() / 2 : 1;
        else if (strcmp(w, "max") == 0)
            j = 0;
        else if (n > 1 && w[n - 1] == 'x') {
            w[n - 1] = '\0';
            if (pm_parse_uint(w, 1, 1024, &v) < 0)
                return pm_errf(err, "'%s' is not a job count (accepted: N, Nx, half, max, or a comma list of them)", text);
            j = (long)v * cpus();
            w[n - 1] = 'x';
        } else if (pm_parse_uint(w, 1, 100000, &v) == 0)
            j = (long)v;
        else
            return pm_errf(err, "'%s' is not a job count (accepted: N, Nx, half, max, or a comma list of them)", text);
        snprintf(st->phase_names[st->nphases], sizeof st->phase_names[0], "%s", w);
        st->phase_jobs[st->nphases++] = j;
    }
    if (st->nphases == 0)
        return pm_errf(err, "'%s' is not a job count (accepted: N, Nx, half, max, or a comma list of them)", text);
    snprintf(st->jobs_text, sizeof st->jobs_text, "%s", text);
    return 0;
}

static int set_jobs(void *state, const char *value, struct pm_err *err)
{
    return parse_jobs(state, value, err);
}

static int set_tree(void *state, const char *value, struct pm_err *err)
{
    struct build_state *st = state;
    char mk[4200], mk2[4200];
    snprintf(mk, sizeof mk, "%s/Makefile", value);
    snprintf(mk2, sizeof mk2, "%s/makefile", value);
    if (!pm_path_exists(mk) && !pm_path_exists(mk2))
        return pm_errf(err, "'%s' has no Makefile (accepted: a directory make can build)", value);
    if (!realpath(value, st->user_tree))
        return pm_errf(err, "'%s': %s", value, strerror(errno));
    return 0;
}

static int check_target(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    if (!*value || value[0] == '-')
        return pm_errf(err, "'%s' is not a make target", value);
    return 0;
}

static int check_linux(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    return linux_source_check(value, err);
}

static int check_kconfig(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    return linux_source_check_kconfig(value, err);
}

static int add_make_arg(void *state, const char *value, struct pm_err *err)
{
    struct build_state *st = state;
    if (st->nmake_args == MAX_MAKE_ARGS)
        return pm_errf(err, "at most %d make arguments", MAX_MAKE_ARGS);
    st->make_args[st->nmake_args++] = (char *)value;
    return 0;
}

#define BO(field) offsetof(struct build_state, field)
static const struct opt build_options[] = {
    { .name = "jobs", .type = OPT_CALLBACK, .set = set_jobs, .metavar = "LIST", .def = "4x",
      .help = "make -j: N, Nx (N x CPUs), half (CPUs/2), max (no limit), or a list of phases: half,4x,max" },
    { .name = "files", .type = OPT_UINT, .offset = BO(tree.files), .metavar = "N", .def = "16", .min = 1,
      .max = 100000, .noun = "count", .help = "generated tree: translation units" },
    { .name = "unit-size", .type = OPT_UINT, .offset = BO(tree.unit_size), .metavar = "N", .def = "2000", .min = 1,
      .max = 100000, .noun = "count", .help = "generated tree: statements per unit (~50 KB of cc1 memory each at -O2)" },
    { .name = "headers", .type = OPT_UINT, .offset = BO(tree.headers), .metavar = "N", .def = "8", .min = 0,
      .max = 100000, .noun = "count", .help = "generated tree: heavy headers every unit includes" },
    { .name = "seed", .type = OPT_U64, .offset = BO(tree.seed), .metavar = "N", .def = "1", .noun = "seed",
      .help = "generated tree: the same seed, the same tree" },
    { .name = "tree", .type = OPT_CALLBACK, .set = set_tree, .metavar = "DIR",
      .help = "build this tree instead (with its own Makefile)" },
    { .name = "linux", .type = OPT_STRING, .offset = BO(linux), .size = sizeof(((struct build_state *)0)->linux),
      .set = check_linux, .metavar = "SERIES", .help = "build a real kernel: Debian's linux-source-SERIES (6.1), "
      "unpacked once into the cache, out of tree" },
    { .name = "kconfig", .type = OPT_STRING, .offset = BO(kconfig), .size = sizeof(((struct build_state *)0)->kconfig),
      .set = check_kconfig, .metavar = "TARGET", .help = "--linux's configuration: tinyconfig, allnoconfig or "
      "defconfig (the default), made once" },
    { .name = "cold-shmem", .type = OPT_SIZE, .offset = BO(cold_shmem), .metavar = "SIZE", .def = "0",
      .flags = OPT_DESCRIBE_SET, .help = "fill SIZE of shmem in the cap before each timed make and never touch it "
      "again (the zswap series' cold tmpfs file)" },
    { .name = "target", .type = OPT_STRING, .offset = BO(target), .size = sizeof(((struct build_state *)0)->target),
      .set = check_target, .metavar = "TARGET", .def = "vmlinux", .help = "make target" },
    { .name = "make-arg", .type = OPT_CALLBACK, .set = add_make_arg, .metavar = "ARG",
      .help = "an extra argument for make (repeatable)" },
    { .name = "drop-caches", .type = OPT_FLAG, .offset = BO(drop_caches),
      .help = "drop the page cache before each timed build (root)" },
    { .type = OPT_END },
};

static int build_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct build_state *st = state;
    if (st->linux[0] && st->user_tree[0])
        return pm_errf(err, "--linux and --tree: give one tree to build");
    if (st->kconfig[0] && !st->linux[0])
        return pm_errf(err, "--kconfig '%s': needs --linux (it configures a kernel tree)", st->kconfig);
    if (st->cold_shmem && !lim->mem_cap)
        return pm_errf(err, "--cold-shmem: needs --mem-cap (the cold shmem is the cap's, beside the build)");
    if (st->cold_shmem && st->cold_shmem < 4096)
        return pm_errf(err, "--cold-shmem: %llu bytes is less than a page (accepted: 0 for none, or 4K and up)",
                       (unsigned long long)st->cold_shmem);
    return st->cold_shmem ? wl_check_fits(lim, st->cold_shmem, "--cold-shmem", err) : 0;
}

static int build_phases(void *state)
{
    return ((struct build_state *)state)->nphases;
}

static void build_set_phase(void *state, int i, char *suffix, size_t len)
{
    struct build_state *st = state;
    st->phase = i;
    if (st->phase_jobs[i])
        snprintf(suffix, len, "j%ld", st->phase_jobs[i]);
    else
        snprintf(suffix, len, "jmax");
}

static bool stop_asked(void *rc)
{
    return run_check_abort(rc);
}

/* make outside the cap (priming, cleaning), journalled by the directory
 * its processes name: a kernel's key directory (source and build
 * directory both), else the tree. */
static int run_make_plain(struct build_state *st, struct run_ctx *rc, char *const argv[], int log,
                          struct pm_err *err)
{
    char word[4096];
    snprintf(word, sizeof word, "%s", st->dir);
    char *slash = strrchr(word, '/');
    if (st->linux[0] && slash && slash != word)
        *slash = '\0';
    struct wl_stop stop = { stop_asked, rc };
    return wl_make_plain(argv, log, word, &stop, err);
}

static int open_log(struct build_state *st, char *path, size_t len)
{
    snprintf(path, len, "%s/.pressmark-build.log", st->dir);
    return pm_open_output(path, O_TRUNC);
}

/* The last lines of the build log: what make and the compiler said. */
static void log_tail(const char *path, char *out, size_t len)
{
    char buf[65536];
    out[0] = '\0';
    if (pm_read_file(path, buf, sizeof buf) < 0)
        return;
    size_t n = strlen(buf);
    int lines = 0;
    size_t start = n;
    while (start > 0 && lines < 6)
        if (buf[--start] == '\n')
            lines++;
    snprintf(out, len, "%s", buf + start + (buf[start] == '\n'));
    for (char *p = out; *p; p++)
        if (*p == '\n')
            *p = '|';
}

static int build_prepare(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct build_state *st = state;
    if (st->user_tree[0])
        snprintf(st->dir, sizeof st->dir, "%s", st->user_tree);
    else if (st->linux[0]) {
        struct wl_stop stop = { stop_asked, rc };
        if (linux_source_ensure(st->linux, st->kconfig[0] ? st->kconfig : "defconfig", st->dir, sizeof st->dir,
                                st->kernel, sizeof st->kernel, &stop, run_say(rc), err) < 0)
            return -1;
    } else if (wl_build_tree_ensure(&st->tree, st->dir, sizeof st->dir, run_say(rc), err) < 0)
        return -1;
    char primed[4200], target[sizeof st->target];
    snprintf(primed, sizeof primed, "%s/.pressmark-primed", st->dir);
    if (st->primed || (st->linux[0] && pm_read_file(primed, target, sizeof target) == 0 &&
                       strcmp(target, st->target) == 0))
        return 0;
    /* The priming build: make clean; make TARGET; make clean. A tree that
     * does not build is reported now, before any run is stored. */
    char log[4200];
    int fd = open_log(st, log, sizeof log);
    if (fd < 0)
        return pm_errf(err, "%s: %s", log, strerror(errno));
    char jobs[32];
    snprintf(jobs, sizeof jobs, "-j%ld", cpus());
    char *clean[] = { "make", "-C", st->dir, "clean", NULL };
    char *argv[8 + MAX_MAKE_ARGS] = { "make", "-C", st->dir, jobs, "CCACHE_DISABLE=1", st->target };
    for (int i = 0; i < st->nmake_args; i++)
        argv[6 + i] = st->make_args[i];
    int r = run_make_plain(st, rc, clean, fd, err);
    if (r == 0)
        r = run_make_plain(st, rc, argv, fd, err);
    if (r == 0)
        r = run_make_plain(st, rc, clean, fd, err);
    close(fd);
    if (r < 0)
        return -1;
    st->primed = true;       /* a broken tree is still primed: the runs say why it fails */
    /* A kernel's build directory is primed for a target once, for every
     * pressmark after (a suite prepares each of its runs): minutes a run
     * otherwise. */
    char mark[4200];
    snprintf(mark, sizeof mark, "%s/.pressmark-primed", st->dir);
    FILE *m = r == 0 && st->linux[0] ? pm_create_file(mark) : NULL;
    if (r == 0 && st->linux[0] && (!m || fprintf(m, "%s\n", st->target) < 0 || fclose(m) != 0))
        return pm_errf(err, "%s: %s", mark, strerror(errno));
    return 0;
}

/* make clean outside the cap, sync, and the caches dropped when asked. */
static int before_make(struct build_state *st, struct run_ctx *rc, int fd, struct pm_err *err)
{
    char *clean[] = { "make", "-C", st->dir, "clean", NULL };
    if (run_make_plain(st, rc, clean, fd, err) < 0)
        return -1;
    sync();
    return st->drop_caches ? pm_write_file("/proc/sys/vm/drop_caches", "3", err) : 0;
}

/* The timed make in the cap, its figures and verdict the run's. ccache
 * stays out of it: a command-line variable is in every recipe's
 * environment, and CCACHE_DISABLE makes a ccache in PATH run the compiler
 * itself. */
static int timed_make(struct build_state *st, struct run_ctx *rc, int fd, const char *log, char *jobs,
                      struct pm_err *err)
{
    char *argv[8 + MAX_MAKE_ARGS] = { "make", "-C", st->dir, jobs, "CCACHE_DISABLE=1", st->target };
    for (int i = 0; i < st->nmake_args; i++)
        argv[6 + i] = st->make_args[i];
    pid_t pid;
    run_gauge(rc, "workload.phase", 2);
    if (run_spawn_io(rc, argv, -1, fd, &pid, err) < 0)
        return -1;
    struct run_exit ex;
    if (run_wait(rc, pid, &ex, err) < 0)
        return -1;
    run_rusage_metrics(rc, &ex);
    run_status_from_exit(rc, "make", &ex);
    char tail[1024];
    if (strcmp(rc_status(rc), "failed") == 0 && WIFEXITED(ex.wstatus)) {
        log_tail(log, tail, sizeof tail);
        run_set_status(rc, "failed", "make exited with status %d: %s", WEXITSTATUS(ex.wstatus), tail);
    } else if (strcmp(rc_status(rc), "ok") == 0) {
        char target[4400];
        snprintf(target, sizeof target, "%s/%s", st->dir, st->target);
        if (!pm_path_exists(target) && !st->user_tree[0])
            run_set_status(rc, "failed", "make succeeded but %s is missing", target);
    }
    return 0;
}

static int build_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct build_state *st = state;
    char log[4200];
    int fd = open_log(st, log, sizeof log);
    if (fd < 0)
        return pm_errf(err, "%s: %s", log, strerror(errno));
    if (before_make(st, rc, fd, err) < 0) {
        close(fd);
        if (!run_check_abort(rc))
            return -1;
        run_set_status(rc, "aborted", "interrupted before the timed make");
        return 0;
    }
    struct coldshm cold = { 0 };
    if (st->cold_shmem) {
        double fill_s;
        run_gauge(rc, "workload.phase", 1);
        int c = coldshm_start(rc, st->cold_shmem, &cold, &fill_s, err);
        if (c != 0) {
            close(fd);
            return c < 0 ? -1 : 0;
        }
        run_metric(rc, &build_defs[BUILD_COLD_SHMEM], (double)st->cold_shmem / (1024.0 * 1024.0));
        run_metric(rc, &build_defs[BUILD_COLD_FILL], fill_s);
    }
    char jobs[32];
    long j = st->phase_jobs[st->phase];
    if (j)
        snprintf(jobs, sizeof jobs, "-j%ld", j);
    else
        snprintf(jobs, sizeof jobs, "-j");
    int r = timed_make(st, rc, fd, log, jobs, err);
    close(fd);
    if (coldshm_stop(rc, &cold) && strcmp(rc_status(rc), "ok") == 0)
        run_set_status(rc, "failed", "the cold shmem holder ended during the make (killed in the cap?)");
    if (r < 0)
        return -1;
    run_metric(rc, &build_defs[BUILD_JOBS], (double)j);
    char phase[64];
    snprintf(phase, sizeof phase, "%s (make %s)", st->phase_names[st->phase], jobs);
    run_meta(rc, "build.phase", phase);
    run_meta(rc, "build.tree", st->dir);
    if (st->kernel[0])
        run_meta(rc, "build.kernel", st->kernel);
    return 0;
}

static void describe_base(struct build_state *st, char *buf, size_t len);

static void build_describe(void *state, char *buf, size_t len)
{
    struct build_state *st = state;
    describe_base(st, buf, len);
    /* Make arguments change what is built: they are part of the configuration. */
    for (int i = 0; i < st->nmake_args; i++) {
        size_t o = strlen(buf);
        snprintf(buf + o, len - o, " --make-arg '%s'", st->make_args[i]);
    }
    if (st->cold_shmem) {
        size_t o = strlen(buf);
        uint64_t c = st->cold_shmem;
        snprintf(buf + o, len - o, " --cold-shmem %llu%s", (unsigned long long)(c % (1u << 20) ? c : c >> 20),
                 c % (1u << 20) ? "" : "M");
    }
}

static void describe_base(struct build_state *st, char *buf, size_t len)
{
    long j = st->phase_jobs[st->phase];
    char jobs[32];
    if (j)
        snprintf(jobs, sizeof jobs, "%ld", j);
    else
        snprintf(jobs, sizeof jobs, "max");
    if (st->user_tree[0])
        snprintf(buf, len, "--tree %s --target %s --jobs %s (make -j%s)%s", st->user_tree, st->target,
                 st->phase_names[st->phase], j ? jobs : "", st->drop_caches ? " --drop-caches" : "");
    else if (st->linux[0])
        snprintf(buf, len, "--linux %s%s%s%s --kconfig %s --target %s --jobs %s (make -j%s)%s", st->linux,
                 st->kernel[0] ? " (" : "", st->kernel, st->kernel[0] ? ")" : "",
                 st->kconfig[0] ? st->kconfig : "defconfig", st->target, st->phase_names[st->phase], j ? jobs : "",
                 st->drop_caches ? " --drop-caches" : "");
    else
        snprintf(buf, len, "--files %u --unit-size %u --headers %u --seed %llu --jobs %s (make -j%s)%s", st->tree.files,
                 st->tree.unit_size, st->tree.headers, (unsigned long long)st->tree.seed, st->phase_names[st->phase],
                 j ? jobs : "", st->drop_caches ? " --drop-caches" : "");
}

static const struct wl_helper build_helpers[] = {
    { COLDSHM_HELPER, coldshm_main },
    { NULL, NULL },
};

const struct workload_ops workload_build = {
    .metrics = &build_metrics,
    .name = "build",
    .summary = "make -j vmlinux on a small-memory machine (objrmap under memory pressure, 2004): a generated C tree, "
               "a real kernel (--linux 6.1), or --tree DIR --target T",
    .headline = MN_time_elapsed_s,
    .headline_title = "elapsed",
    .options = build_options,
    .state_size = sizeof(struct build_state),
    .check = build_check,
    .prepare = build_prepare,
    .helpers = build_helpers,
    .run = build_run,
    .describe = build_describe,
    .phases = build_phases,
    .set_phase = build_set_phase,
};
