/* What a workload may ask of its run, in terms of the harness's table of
 * operations (struct run_ops): spawning and waiting are the harness's;
 * what can be said with them (a helper's report, GNU time's fields, a
 * status from an exit, a histogram's percentiles) is said here, once. */
#include "workloads/workload.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* GNU time's fields of every run (run_rusage_metrics). */
enum { TIME_ELAPSED_S, TIME_USER_S, TIME_SYS_S, TIME_CPU_PCT, TIME_MAJFLT, TIME_MINFLT, TIME_NVCSW,
    TIME_NIVCSW, TIME_MAXRSS_KB, TIME_INBLOCK, TIME_OUBLOCK };
static const struct metric_def time_defs[] = {
    [TIME_ELAPSED_S] = METRIC("time.elapsed_s", "s", PM_LOWER,
                  "wall time from the workload's start to the end of its last process"),
    [TIME_USER_S] = METRIC("time.user_s", "s", PM_LOWER,
                  "CPU time in user mode of the workload and its waited-for children"),
    [TIME_SYS_S] = METRIC("time.sys_s", "s", PM_LOWER,
                  "CPU time in the kernel of the workload and its waited-for children"),
    [TIME_CPU_PCT] = METRIC("time.cpu_pct", "%", PM_NEITHER,
                  "(user + sys) / elapsed, as GNU time's %CPU (200 is two CPUs busy)"),
    [TIME_MAJFLT] = METRIC("time.majflt", "count", PM_LOWER, "major page faults (needed I/O: swap-in or file read)"),
    [TIME_MINFLT] = METRIC("time.minflt", "count", PM_LOWER, "minor page faults (no I/O)"),
    [TIME_NVCSW] = METRIC("time.nvcsw", "count", PM_NEITHER, "voluntary context switches (waits)"),
    [TIME_NIVCSW] = METRIC("time.nivcsw", "count", PM_NEITHER, "involuntary context switches (preemptions)"),
    [TIME_MAXRSS_KB] = METRIC("time.maxrss_kb", "KB", PM_LOWER, "largest resident set of any one of its processes"),
    [TIME_INBLOCK] = METRIC("time.inblock", "count", PM_NEITHER, "file system inputs, 512-byte blocks"),
    [TIME_OUBLOCK] = METRIC("time.oublock", "count", PM_NEITHER, "file system outputs, 512-byte blocks"),
};
const struct metric_group run_time_metrics = METRIC_GROUP(
    "time: the workload's processes, from wait4()'s rusage and the wall clock (every run)",
    time_defs);

/* struct run_ctx begins with its table (harness/run.c): a pointer to a
 * structure, converted, points to its first member (C11 6.7.2.1). */
static const struct run_ops *ops(struct run_ctx *rc)
{
    return *(const struct run_ops *const *)(void *)rc;
}

int run_spawn(struct run_ctx *rc, char *const argv[], pid_t *pid, struct pm_err *err)
{
    return ops(rc)->spawn_io(rc, argv, -1, -1, pid, err);
}

int run_spawn_fd(struct run_ctx *rc, char *const argv[], int pass_fd, pid_t *pid, struct pm_err *err)
{
    return ops(rc)->spawn_io(rc, argv, pass_fd, -1, pid, err);
}

int run_spawn_io(struct run_ctx *rc, char *const argv[], int pass_fd, int out_fd, pid_t *pid, struct pm_err *err)
{
    return ops(rc)->spawn_io(rc, argv, pass_fd, out_fd, pid, err);
}

int run_wait(struct run_ctx *rc, pid_t pid, struct run_exit *ex, struct pm_err *err)
{
    return ops(rc)->wait(rc, pid, ex, err);
}

int run_spawn_env(struct run_ctx *rc, char *const argv[], char *const envp[], bool client, int pass_fd, int out_fd,
                  pid_t *pid, struct pm_err *err)
{
    return ops(rc)->spawn_env(rc, argv, envp, client, pass_fd, out_fd, pid, err);
}

int run_wait_until(struct run_ctx *rc, pid_t pid, uint64_t deadline_ns, struct run_exit *ex, struct pm_err *err)
{
    return ops(rc)->wait_until(rc, pid, deadline_ns, ex, err);
}

int run_helper(struct run_ctx *rc, char *const argv[], const char *what, char *report, size_t len,
               struct pm_err *err)
{
    report[0] = '\0';
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    pid_t pid;
    int sp = run_spawn_fd(rc, argv, p[1], &pid, err);
    close(p[1]);
    struct run_exit ex;
    if (sp < 0 || run_wait(rc, pid, &ex, err) < 0) {
        close(p[0]);
        return -1;
    }
    /* Read after the wait: a helper writes its report, smaller than the
     * pipe, as it ends. */
    ssize_t n = read(p[0], report, len - 1);
    close(p[0]);
    report[n > 0 ? n : 0] = '\0';
    run_rusage_metrics(rc, &ex);
    run_status_from_exit(rc, what, &ex);
    return 0;
}

void run_metric(struct run_ctx *rc, const struct metric_def *m, double value)
{
    ops(rc)->metric(rc, m->name, value, m->unit, m->dir);
}

void run_live_count(struct run_ctx *rc, uint64_t count, const char *unit)
{
    ops(rc)->live_count(rc, count, unit);
}

void run_gauge(struct run_ctx *rc, const char *name, double value)
{
    ops(rc)->gauge(rc, name, value);
}

int run_latency(struct run_ctx *rc, const struct metric_def *m, const struct loghist *h, struct pm_err *err)
{
    double v[LAT_MEMBERS] = {
        [LAT_SAMPLES] = (double)h->count,
        [LAT_P50] = loghist_percentile(h, 50) / 1e3,
        [LAT_P90] = loghist_percentile(h, 90) / 1e3,
        [LAT_P99] = loghist_percentile(h, 99) / 1e3,
        [LAT_P999] = loghist_percentile(h, 99.9) / 1e3,
        [LAT_MAX] = (double)h->max / 1e3,
        [LAT_MEAN] = h->count ? (double)(h->sum / (long double)h->count) / 1e3 : 0,
    };
    /* An empty histogram has its count and nothing else. */
    for (size_t i = 0; i < (h->count ? LAT_MEMBERS : 1); i++) {
        const struct latency_member_def *lm = &metric_latency_members[i];
        char name[96];
        snprintf(name, sizeof name, "%s%s", m->name, lm->suffix);
        ops(rc)->metric(rc, name, v[i], lm->unit, lm->dir);
    }
    if (ops(rc)->keep_hist(rc, m->name, h) < 0)
        return pm_errf(err, "out of memory keeping %s", m->name);
    return 0;
}

void run_meta(struct run_ctx *rc, const char *key, const char *value)
{
    ops(rc)->meta(rc, key, value);
}

void run_user_metric(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir)
{
    ops(rc)->user_metric(rc, name, value, unit, dir);
}

void run_declared_metric(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir)
{
    ops(rc)->metric(rc, name, value, unit, dir);
}

int run_keep_text(struct run_ctx *rc, const char *what, const char *data, size_t len, bool cut)
{
    return ops(rc)->keep_text(rc, what, data, len, cut);
}

void run_set_status(struct run_ctx *rc, const char *status, const char *fmt, ...)
{
    char reason[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    ops(rc)->set_status(rc, status, reason);
}

void run_rusage_metrics(struct run_ctx *rc, const struct run_exit *ex)
{
    double user = (double)ex->ru.ru_utime.tv_sec + (double)ex->ru.ru_utime.tv_usec / 1e6;
    double sys = (double)ex->ru.ru_stime.tv_sec + (double)ex->ru.ru_stime.tv_usec / 1e6;
    double elapsed = (double)ex->elapsed_ns / 1e9;
    run_metric(rc, &time_defs[TIME_ELAPSED_S], elapsed);
    run_metric(rc, &time_defs[TIME_USER_S], user);
    run_metric(rc, &time_defs[TIME_SYS_S], sys);
    run_metric(rc, &time_defs[TIME_CPU_PCT], elapsed > 0 ? (user + sys) / elapsed * 100.0 : 0);
    run_metric(rc, &time_defs[TIME_MAJFLT], (double)ex->ru.ru_majflt);
    run_metric(rc, &time_defs[TIME_MINFLT], (double)ex->ru.ru_minflt);
    run_metric(rc, &time_defs[TIME_NVCSW], (double)ex->ru.ru_nvcsw);
    run_metric(rc, &time_defs[TIME_NIVCSW], (double)ex->ru.ru_nivcsw);
    run_metric(rc, &time_defs[TIME_MAXRSS_KB], (double)ex->ru.ru_maxrss);
    run_metric(rc, &time_defs[TIME_INBLOCK], (double)ex->ru.ru_inblock);
    run_metric(rc, &time_defs[TIME_OUBLOCK], (double)ex->ru.ru_oublock);
}

void run_status_from_exit(struct run_ctx *rc, const char *what, const struct run_exit *ex)
{
    /* Aborted: run_wait noted the signal, so nothing pending is taken here. */
    int sig = ex->aborted ? ops(rc)->abort_signal(rc) : 0;
    if (ex->aborted)
        run_set_status(rc, "aborted", "interrupted by %s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "a signal");
    else if (ex->timed_out)
        run_set_status(rc, "failed", "%s did not finish within the timeout of %.1f s", what,
                       (double)ops(rc)->timeout_ns(rc) / 1e9);
    else if (WIFEXITED(ex->wstatus) && WEXITSTATUS(ex->wstatus) == 0)
        run_set_status(rc, "ok", "%s", "");
    else if (WIFEXITED(ex->wstatus))
        run_set_status(rc, "failed", "%s exited with status %d", what, WEXITSTATUS(ex->wstatus));
    else if (WIFSIGNALED(ex->wstatus))
        run_set_status(rc, "failed", "%s was killed by SIG%s", what,
                       sigabbrev_np(WTERMSIG(ex->wstatus)) ? sigabbrev_np(WTERMSIG(ex->wstatus)) : "?");
    else
        run_set_status(rc, "failed", "%s ended with wait status %#x", what, ex->wstatus);
}

const char *rc_status(struct run_ctx *rc)
{
    return ops(rc)->status(rc);
}

const char *run_exe(struct run_ctx *rc)
{
    return ops(rc)->exe(rc);
}

FILE *run_say(struct run_ctx *rc)
{
    return ops(rc)->say(rc);
}

bool run_check_abort(struct run_ctx *rc)
{
    return ops(rc)->abort_signal(rc) != 0;
}

const char *run_cgroup(struct run_ctx *rc)
{
    return ops(rc)->cgroup(rc);
}

const char *run_client_cgroup(struct run_ctx *rc)
{
    return ops(rc)->client_cgroup(rc);
}
