/* pm_wait_deadline (lib/spawn.c) against real processes: an exit's
 * status kept exact, the deadline's first signal and the grace's
 * SIGKILL, a process group with a grandchild, a stop hook asked by a
 * flag and by taken signals, rusage filled. No check is about how long
 * anything took: a wait that did not end would hang the test instead. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "tests/tap.h"

#define MS 1000000ull

/* sh -c script in a process group of its own; its first line of output
 * in line. Every script prints one at once (a pid, "ready"): reading it
 * is knowing the script got that far (a trap set, a grandchild started). */
static pid_t start(const char *script, char *line, size_t len)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        tap_diag("Bail out! pipe: %s", strerror(errno));
        exit(1);
    }
    char *argv[] = { "sh", "-c", (char *)script, NULL };
    struct pm_spawn sp = { .argv = argv, .out = p[1], .new_group = true };
    pid_t pid;
    struct pm_err err;
    if (pm_spawn(&sp, &pid, &err) < 0) {
        tap_diag("Bail out! %s", err.msg);
        exit(1);
    }
    close(p[1]);
    size_t o = 0;
    while (o + 1 < len && read(p[0], line + o, 1) == 1 && line[o] != '\n')
        o++;
    line[o] = '\0';
    close(p[0]);
    return pid;
}

/* Has pid ended (gone, or a zombie no one reaped yet)? Waited for up to
 * ten seconds: a SIGKILLed process takes a moment to go. */
static bool ended(pid_t pid)
{
    for (int i = 0; i < 1000; i++) {
        char path[64], stat[256] = "";
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return true;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = '\0';
        const char *paren = strrchr(stat, ')');
        if (paren && paren[1] == ' ' && paren[2] == 'Z')
            return true;
        struct timespec ts = { 0, 10 * MS };
        nanosleep(&ts, NULL);
    }
    return false;
}

static bool killed_by(int status, int sig)
{
    return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

static void exits_at_once(void)
{
    char line[64];
    pid_t pid = start("echo ready; exit 7", line, sizeof line);
    const struct pm_wait_opts w = { .deadline_ns = pm_now_ns() + 10000 * MS, .first_sig = SIGTERM,
                                    .grace_ns = 300 * MS, .group = true };
    struct pm_wait_result res;
    struct pm_err err;
    ok(pm_wait_deadline(pid, &w, &res, &err) == 0, "an exit is waited for");
    ok(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 7, "its status is kept exact (exit 7)");
    ok(!res.timed_out && !res.stopped, "neither timed out nor stopped");
    ok(res.ru.ru_maxrss > 0, "its rusage is filled (maxrss %ld kB)", res.ru.ru_maxrss);
}

static void rusage_counts_cpu(void)
{
    char line[64];
    pid_t pid = start("echo ready; i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done", line, sizeof line);
    const struct pm_wait_opts w = { 0 };
    struct pm_wait_result res;
    int r = pm_wait_deadline(pid, &w, &res, NULL);
    ok(r == 0 && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0, "a busy child exits 0 with no deadline");
    double cpu = (double)res.ru.ru_utime.tv_sec + (double)res.ru.ru_utime.tv_usec / 1e6 +
                 (double)res.ru.ru_stime.tv_sec + (double)res.ru.ru_stime.tv_usec / 1e6;
    ok(cpu > 0, "its CPU time is in the rusage (%.3f s)", cpu);
}

static void ends_on_term(void)
{
    char line[64];
    pid_t pid = start("echo ready; exec sleep 30", line, sizeof line);
    const struct pm_wait_opts w = { .deadline_ns = pm_now_ns() + 100 * MS, .first_sig = SIGTERM,
                                    .grace_ns = 30000 * MS, .group = true };
    struct pm_wait_result res;
    ok(pm_wait_deadline(pid, &w, &res, NULL) == 0, "a child past its deadline is waited for");
    ok(killed_by(res.status, SIGTERM), "one that ends on SIGTERM is killed by SIGTERM (status %#x)", res.status);
    ok(res.timed_out && !res.stopped, "timed out, not stopped");
}

static void ignores_term(bool wake)
{
    char line[64];
    pid_t pid = start("trap '' TERM; echo ready; exec sleep 30", line, sizeof line);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    const struct pm_wait_opts w = { .deadline_ns = pm_now_ns() + 100 * MS, .first_sig = SIGTERM,
                                    .grace_ns = 200 * MS, .group = true, .wake = wake ? &set : NULL };
    struct pm_wait_result res;
    ok(pm_wait_deadline(pid, &w, &res, NULL) == 0, "one that ignores SIGTERM is waited for (%s)",
       wake ? "woken by SIGCHLD" : "plain sleeps");
    ok(killed_by(res.status, SIGKILL), "and SIGKILLed after the grace (status %#x)", res.status);
    ok(res.timed_out, "timed out");
}

static void kill_at_once(void)
{
    char line[64];
    pid_t pid = start("echo ready; exec sleep 30", line, sizeof line);
    const struct pm_wait_opts w = { .deadline_ns = pm_now_ns() + 100 * MS, .group = true, .poll_ns = 10 * MS };
    struct pm_wait_result res;
    int r = pm_wait_deadline(pid, &w, &res, NULL);
    ok(r == 0 && killed_by(res.status, SIGKILL) && res.timed_out, "with no first signal the deadline SIGKILLs "
       "(status %#x)", res.status);
}

/* The group's leader ends at SIGTERM; its child, ignoring it, is still
 * killed before the leader is reaped. */
static void group_goes_whole(void)
{
    char line[64];
    pid_t pid = start("sh -c 'trap \"\" TERM; echo $$; exec sleep 30' & exec sleep 30", line, sizeof line);
    pid_t grandchild = (pid_t)atoi(line);
    const struct pm_wait_opts w = { .deadline_ns = pm_now_ns() + 100 * MS, .first_sig = SIGTERM,
                                    .grace_ns = 30000 * MS, .group = true };
    struct pm_wait_result res;
    int r = pm_wait_deadline(pid, &w, &res, NULL);
    ok(r == 0 && killed_by(res.status, SIGTERM), "the group's leader ends on SIGTERM (status %#x)", res.status);
    ok(grandchild > 0 && ended(grandchild), "its child that ignored SIGTERM is gone too (pid %d)", (int)grandchild);
}

/* A leader that exits by itself: its group is swept only when asked. */
static void sweep_or_not(bool sweep)
{
    char line[64];
    pid_t pid = start("sleep 30 & echo $!", line, sizeof line);
    pid_t grandchild = (pid_t)atoi(line);
    const struct pm_wait_opts w = { .group = true, .sweep = sweep };
    struct pm_wait_result res;
    int r = pm_wait_deadline(pid, &w, &res, NULL);
    ok(r == 0 && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0, "a leader that leaves a child behind exits 0 "
       "(%s)", sweep ? "swept" : "not swept");
    if (sweep) {
        ok(grandchild > 0 && ended(grandchild), "swept: what it left in its group is gone");
        return;
    }
    ok(grandchild > 0 && kill(grandchild, 0) == 0, "not swept: what it left in its group runs on");
    kill(grandchild, SIGKILL);
}

static atomic_bool flag;
static atomic_int taken;

static int stop_on_flag(void *arg, int sig)
{
    (void)arg, (void)sig;
    return atomic_load(&flag) ? PM_WAIT_STOP : PM_WAIT_GO_ON;
}

static void *raise_flag(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 150 * MS };
    nanosleep(&ts, NULL);
    atomic_store(&flag, true);
    return NULL;
}

static void stopped_by_flag(void)
{
    char line[64];
    pid_t pid = start("echo ready; exec sleep 30", line, sizeof line);
    pthread_t t;
    pthread_create(&t, NULL, raise_flag, NULL);
    const struct pm_wait_opts w = { .first_sig = SIGTERM, .grace_ns = 30000 * MS, .group = true,
                                    .poll_ns = 20 * MS, .stop = stop_on_flag };
    struct pm_wait_result res;
    ok(pm_wait_deadline(pid, &w, &res, NULL) == 0, "a flag raised mid-wait ends the wait");
    pthread_join(t, NULL);
    ok(res.stopped && !res.timed_out, "stopped (aborted), not timed out");
    ok(killed_by(res.status, SIGTERM), "by the first signal (status %#x)", res.status);
}

/* run.c's hook: the first taken signal stops (the grace), the second
 * kills. *after_kill counts the looks at a child still running once the
 * kill was asked for. */
static int stop_then_kill(void *arg, int sig)
{
    int *after_kill = arg;
    if (sig == SIGUSR1)
        atomic_fetch_add(&taken, 1);
    int n = atomic_load(&taken);
    if (n >= 2 && sig != SIGUSR1)
        ++*after_kill;
    return n >= 2 ? PM_WAIT_KILL : n == 1 ? PM_WAIT_STOP : PM_WAIT_GO_ON;
}

static void *send_twice(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 100 * MS };
    nanosleep(&ts, NULL);
    kill(getpid(), SIGUSR1);
    while (atomic_load(&taken) < 1)
        nanosleep(&ts, NULL);
    kill(getpid(), SIGUSR1);
    return NULL;
}

static void stopped_by_signals(void)
{
    char line[64];
    pid_t pid = start("trap '' TERM; echo ready; exec sleep 30", line, sizeof line);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGUSR1);
    /* An earlier test's child's SIGCHLD may still be pending (its wait
     * took none): taken here, it would wake the wait one look early. */
    const struct timespec now = { 0, 0 };
    while (sigtimedwait(&set, NULL, &now) == SIGCHLD)
        ;
    int after_kill = 0;
    pthread_t t;
    pthread_create(&t, NULL, send_twice, NULL);
    const struct pm_wait_opts w = { .first_sig = SIGTERM, .grace_ns = 60000 * MS, .group = true,
                                    .poll_ns = 10000 * MS, .wake = &set, .stop = stop_then_kill,
                                    .arg = &after_kill };
    struct pm_wait_result res;
    ok(pm_wait_deadline(pid, &w, &res, NULL) == 0, "taken signals end the wait");
    pthread_join(t, NULL);
    ok(atomic_load(&taken) == 2, "the hook was handed both signals (%d)", atomic_load(&taken));
    ok(killed_by(res.status, SIGKILL) && res.stopped && !res.timed_out,
       "the second one's kill ended a child that ignored SIGTERM (status %#x)", res.status);
    ok(after_kill == 0, "no look after the kill but the one that saw the end (%d)", after_kill);
}

static void not_a_child(void)
{
    struct pm_wait_result res;
    struct pm_err err = { "" };
    const struct pm_wait_opts w = { 0 };
    int r = pm_wait_deadline(getppid(), &w, &res, &err);
    ok(r < 0 && strstr(err.msg, "waitid"), "a process that is not a child is an error: %s", err.msg);
}

int main(void)
{
    /* As pressmark does: the signals a wait takes are blocked in every
     * thread (harness_block_signals), the children start with none blocked. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    exits_at_once();
    rusage_counts_cpu();
    ends_on_term();
    ignores_term(false);
    ignores_term(true);
    kill_at_once();
    group_goes_whole();
    sweep_or_not(true);
    sweep_or_not(false);
    stopped_by_flag();
    stopped_by_signals();
    not_a_child();
    return done_testing();
}
