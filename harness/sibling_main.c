/* The sibling hog's helper process: pressmark __sibling PROCS CGDIR CAP
 * SWAP SPEC. It enters the sibling cgroup first (so everything it starts
 * is charged there), then runs its workload pass after pass with a table
 * of run operations of its own (nothing stored, the headline kept), until
 * SIGTERM; then one line per pass on descriptor 4:
 *   pass START_NS END_NS STATUS HEADLINE   (CLOCK_MONOTONIC; "nan": none) */
#include "harness/sibling.h"
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "harness/run.h"
#include "lib/fileio.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "pressure/undo.h"

#define GRACE_NS 3000000000ull

struct pass {
    uint64_t t0, t1;
    char status[16];
    double value;
};

/* Converted to and from struct run_ctx *: the table first (workloads/run_api.c). */
struct sib_ctx {
    const struct run_ops *ops;
    const struct workload_ops *wl;
    const char *cgdir;
    char exe[PATH_MAX];
    char status[16];
    double value;
    int stop_sig;
    uint64_t spawn_ns;
};

static struct sib_ctx *sc(struct run_ctx *rc)
{
    return (struct sib_ctx *)(void *)rc;
}

static int pending_stop(struct sib_ctx *c)
{
    if (c->stop_sig)
        return c->stop_sig;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    struct timespec zero = { 0, 0 };
    int sig = sigtimedwait(&set, NULL, &zero);
    if (sig > 0)
        c->stop_sig = sig;
    return c->stop_sig;
}

/* A pass's first step: make itself the OOM killer's first choice. The
 * helper shares the pass's cgroup, and a hog that outgrows the cap is
 * OOM-killed there pass after pass: once a victim's memory is reaped the
 * killer takes the next largest task, and under a sanitizer the helper's
 * own RSS is as large as a starting pass's. A helper killed so ends the
 * hog for the rest of the run. (Raising one's own oom_score_adj needs no
 * privilege; the helper keeps 0, as the measured workload has.) A shell
 * and not a write to /proc/PID after the spawn: the pass would fork its
 * workers before that write. */
static const char pass_script[] =
    "echo 1000 > /proc/self/oom_score_adj || { echo \"pressmark: the sibling hog cannot make its pass the OOM "
    "killer's first choice\" >&2; exit 126; }; exec \"$@\"";

static int h_spawn_io(struct run_ctx *rc, char *const argv[], int pass_fd, int out_fd, pid_t *pid, struct pm_err *err)
{
    /* /bin/sh: not a PATH lookup (setpriv execvp's it) */
    char *const prelude[] = { "/bin/sh", "-c", (char *)pass_script, "sh" };
    char **wargv = pm_argv_prefixed(prelude, sizeof prelude / sizeof prelude[0], argv);
    char **envp = pm_env_without_secrets();
    if (!wargv || !envp) {
        free(wargv);
        free(envp);
        return pm_errf(err, "out of memory");
    }
    const struct pm_fd_map report = { pass_fd, 4 };
    struct pm_spawn sp = { .argv = wargv, .what = argv[0], .out = out_fd >= 0 ? out_fd : PM_FD_NULL,
                           .err = out_fd >= 0 ? out_fd : 0, .map = &report, .nmap = pass_fd >= 0 ? 1 : 0,
                           .new_group = true, .die_with_parent = true, .envp = envp };
    sc(rc)->spawn_ns = pm_now_ns();
    int r = pm_spawn(&sp, pid, err);
    free(wargv);
    free(envp);
    return r;
}

/* A server's process as another user, or its load generator outside the
 * cap, is the measured run's to have: the hog's workload runs whole
 * inside its own cgroup. */
static int h_spawn_env(struct run_ctx *rc, char *const argv[], char *const envp[], bool client, int pass_fd,
                       int out_fd, pid_t *pid, struct pm_err *err)
{
    (void)rc, (void)envp, (void)client, (void)pass_fd, (void)out_fd, (void)pid;
    return pm_errf(err, "%s: a sibling hog's workload cannot start a process as another user", argv[0]);
}

/* The pass's side of a wait: SIGTERM, SIGINT or SIGHUP (the run's
 * sibling_stop) is kept, and ends this pass and every one after it. */
static int h_stop(void *arg, int sig)
{
    struct sib_ctx *c = arg;
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
        c->stop_sig = sig;
    return pending_stop(c) ? PM_WAIT_STOP : PM_WAIT_GO_ON;
}

/* Wait for the pass's process; a stop or the deadline (0: none) ends it
 * (SIGTERM, then SIGKILL), and what it left in its group goes with it. */
static int h_wait_until(struct run_ctx *rc, pid_t pid, uint64_t deadline_ns, struct run_exit *ex, struct pm_err *err)
{
    struct sib_ctx *c = sc(rc);
    memset(ex, 0, sizeof *ex);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    const struct pm_wait_opts w = { .deadline_ns = deadline_ns, .first_sig = SIGTERM, .grace_ns = GRACE_NS,
                                    .group = true, .sweep = true, .poll_ns = 100000000ull, .wake = &set,
                                    .stop = h_stop, .arg = c };
    struct pm_wait_result res;
    if (pm_wait_deadline(pid, &w, &res, err) < 0)
        return -1;
    ex->wstatus = res.status;
    ex->ru = res.ru;
    ex->elapsed_ns = pm_now_ns() - c->spawn_ns;
    ex->timed_out = res.timed_out;
    ex->aborted = c->stop_sig != 0;
    return 0;
}

static int h_wait(struct run_ctx *rc, pid_t pid, struct run_exit *ex, struct pm_err *err)
{
    return h_wait_until(rc, pid, 0, ex, err);
}

static void h_metric(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir)
{
    (void)unit, (void)dir;
    if (sc(rc)->wl->headline && strcmp(name, sc(rc)->wl->headline) == 0)
        sc(rc)->value = value;
}

static void h_live_count(struct run_ctx *rc, uint64_t count, const char *unit)
{
    (void)rc, (void)count, (void)unit;
}

static void h_gauge(struct run_ctx *rc, const char *name, double value)
{
    (void)rc, (void)name, (void)value;
}

static int h_keep_hist(struct run_ctx *rc, const char *name, const struct loghist *h)
{
    (void)rc, (void)name, (void)h;
    return 0;
}

static void h_meta(struct run_ctx *rc, const char *key, const char *value)
{
    (void)rc, (void)key, (void)value;
}

static void h_user_metric(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir)
{
    h_metric(rc, name, value, unit, dir);
}

/* A hog's texts are kept nowhere: nothing of a hog's is stored but its headline. */
static int h_keep_text(struct run_ctx *rc, const char *what, const char *data, size_t len, bool cut)
{
    (void)rc, (void)what, (void)data, (void)len, (void)cut;
    return 0;
}

static void h_set_status(struct run_ctx *rc, const char *status, const char *reason)
{
    (void)reason;
    snprintf(sc(rc)->status, sizeof sc(rc)->status, "%s", status);
}

static const char *h_status(struct run_ctx *rc)
{
    return sc(rc)->status;
}

static const char *h_exe(struct run_ctx *rc)
{
    return sc(rc)->exe;
}

static int h_abort_signal(struct run_ctx *rc)
{
    return pending_stop(sc(rc));
}

static const char *h_cgroup(struct run_ctx *rc)
{
    return sc(rc)->cgdir;
}

/* A hog starts no client (h_spawn_env refuses). */
static const char *h_client_cgroup(struct run_ctx *rc)
{
    (void)rc;
    return NULL;
}

static uint64_t h_timeout_ns(struct run_ctx *rc)
{
    (void)rc;
    return 0;
}

/* The hog is a process of its own: what its workload says goes to its
 * stderr, the run's. */
static FILE *h_say(struct run_ctx *rc)
{
    (void)rc;
    return stderr;
}

static const struct run_ops sibling_ops = {
    .spawn_io = h_spawn_io, .spawn_env = h_spawn_env, .wait = h_wait,
    .wait_until = h_wait_until, .metric = h_metric, .live_count = h_live_count, .gauge = h_gauge,
    .keep_hist = h_keep_hist, .meta = h_meta, .user_metric = h_user_metric, .keep_text = h_keep_text,
    .set_status = h_set_status, .status = h_status, .exe = h_exe,
    .abort_signal = h_abort_signal, .cgroup = h_cgroup, .client_cgroup = h_client_cgroup,
    .timeout_ns = h_timeout_ns, .say = h_say,
};

/* Passes until a stop; a failed pass is followed by a short pause so a
 * hog that cannot run does not spin. */
static int run_passes(struct sib_ctx *c, const struct sibling_spec *sp, struct pass **passes, size_t *n)
{
    size_t cap = 0;
    while (!pending_stop(c)) {
        snprintf(c->status, sizeof c->status, "ok");
        c->value = NAN;
        struct pm_err err = { "" };
        uint64_t t0 = pm_now_ns();
        if (sp->wl->run(sp->state, (struct run_ctx *)(void *)c, &err) < 0)
            snprintf(c->status, sizeof c->status, "failed");
        uint64_t t1 = pm_now_ns();
        if (c->stop_sig)
            break;                 /* the pass cut off: not one that ended */
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            struct pass *np = realloc(*passes, ncap * sizeof *np);
            if (!np)
                return -1;
            *passes = np;
            cap = ncap;
        }
        struct pass *p = &(*passes)[(*n)++];
        *p = (struct pass){ .t0 = t0, .t1 = t1, .value = c->value };
        snprintf(p->status, sizeof p->status, "%s", c->status);
        if (strcmp(c->status, "ok") != 0) {
            struct timespec ts = pm_ns_to_timespec(100000000ull);
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

static int report(const struct pass *passes, size_t n)
{
    FILE *f = fdopen(4, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < n; i++)
        fprintf(f, "pass %llu %llu %s %.17g\n", (unsigned long long)passes[i].t0, (unsigned long long)passes[i].t1,
                passes[i].status, passes[i].value);
    return fclose(f) == 0 ? 0 : -1;
}

int sibling_helper_main(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    harness_block_signals();
    /* The journal is the run's, rewritten whole by its pressmark: a hog's
     * workload writing it would drop what the run journalled. */
    undo_forbid("the undo journal is the measured run's own: a hog's workload may not keep changes in it");
    struct pm_err err;
    /* First into its cgroup, so its workload is charged there; and not
     * the observer's OOM standing, whatever pressmark's is. */
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    if (pm_write_file(argv[1], pid, &err) < 0) {
        fprintf(stderr, "pressmark: the sibling hog cannot enter its cgroup: %s\n", err.msg);
        return 126;
    }
    if (pm_write_file("/proc/self/oom_score_adj", "0", &err) < 0)
        fprintf(stderr, "pressmark: the sibling hog: %s\n", err.msg);
    struct wl_limits lim = { .mem_cap = strtoull(argv[3], NULL, 10), .swap_planned = strtoull(argv[4], NULL, 10) };
    struct sibling_spec sp;
    if (sibling_spec_parse(argv[5], &lim, &sp, &err) < 0) {
        fprintf(stderr, "pressmark: the sibling hog: %s\n", err.msg);
        return 2;
    }
    struct sib_ctx c = { .ops = &sibling_ops, .wl = sp.wl, .cgdir = argv[2] };
    ssize_t n = readlink("/proc/self/exe", c.exe, sizeof c.exe - 1);
    c.exe[n > 0 ? n : 0] = '\0';
    struct pass *passes = NULL;
    size_t npasses = 0;
    int rc = 0;
    if (sp.wl->prepare && sp.wl->prepare(sp.state, (struct run_ctx *)(void *)&c, &err) < 0) {
        fprintf(stderr, "pressmark: the sibling hog: %s\n", err.msg);
        rc = 1;
    } else if (run_passes(&c, &sp, &passes, &npasses) < 0) {
        rc = 1;
    }
    if (sp.wl->cleanup)
        sp.wl->cleanup(sp.state);
    if (report(passes, npasses) < 0)
        rc = 1;
    free(passes);
    sibling_spec_free(&sp);
    return rc;
}
