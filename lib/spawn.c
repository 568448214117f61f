#include "lib/spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/timeutil.h"

extern char **environ;

static int add_std(posix_spawn_file_actions_t *fa, int fd, int target)
{
    if (fd == PM_FD_INHERIT)
        return 0;
    if (fd == PM_FD_NULL)
        return posix_spawn_file_actions_addopen(fa, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0);
    return posix_spawn_file_actions_adddup2(fa, fd, target);
}

/* After the dup2s: every descriptor from 3 up that is not a target goes
 * (glibc ignores a close of one that is not open), then all above the
 * highest target at once. */
static int close_others(const struct pm_spawn *sp, posix_spawn_file_actions_t *fa)
{
    int top = STDERR_FILENO;
    for (size_t i = 0; i < sp->nmap; i++)
        top = sp->map[i].to > top ? sp->map[i].to : top;
    for (int fd = STDERR_FILENO + 1; fd < top; fd++) {
        bool target = false;
        for (size_t i = 0; i < sp->nmap; i++)
            target |= sp->map[i].to == fd;
        int e = target ? 0 : posix_spawn_file_actions_addclose(fa, fd);
        if (e)
            return e;
    }
    return posix_spawn_file_actions_addclosefrom_np(fa, top + 1);
}

static int file_actions(const struct pm_spawn *sp, posix_spawn_file_actions_t *fa)
{
    int e = posix_spawn_file_actions_init(fa);
    if (e)
        return e;
    if (sp->dir && (e = posix_spawn_file_actions_addchdir_np(fa, sp->dir)))
        return e;
    if ((e = add_std(fa, sp->in, STDIN_FILENO)) || (e = add_std(fa, sp->out, STDOUT_FILENO)) ||
        (e = add_std(fa, sp->err, STDERR_FILENO)))
        return e;
    for (size_t i = 0; i < sp->nmap; i++)
        if ((e = posix_spawn_file_actions_adddup2(fa, sp->map[i].from, sp->map[i].to)))
            return e;
    return sp->close_others ? close_others(sp, fa) : 0;
}

static int attributes(const struct pm_spawn *sp, posix_spawnattr_t *attr)
{
    int e = posix_spawnattr_init(attr);
    if (e)
        return e;
    sigset_t none, defs;
    sigemptyset(&none);
    sigemptyset(&defs);
    int reset[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE, SIGQUIT };
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        sigaddset(&defs, reset[i]);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if ((e = posix_spawnattr_setsigmask(attr, &none)) || (e = posix_spawnattr_setsigdefault(attr, &defs)))
        return e;
    /* (setsid makes the child its own group's leader too; setpgid after
     * it would fail) */
    if (sp->new_session) {
        flags |= POSIX_SPAWN_SETSID;
    } else if (sp->new_group) {
        if ((e = posix_spawnattr_setpgroup(attr, 0)))
            return e;
        flags |= POSIX_SPAWN_SETPGROUP;
    }
    return posix_spawnattr_setflags(attr, flags);
}

/* setpriv ties the child to pressmark with PR_SET_PDEATHSIG; it is a small
 * program (util-linux), where a helper of pressmark's own would cost the
 * child the loading of pressmark's libraries. */
static char **with_pdeathsig(const struct pm_spawn *sp)
{
    char *const prefix[] = { "setpriv", "--pdeathsig", "KILL", "--", sp->path ? (char *)sp->path : sp->argv[0] };
    return pm_argv_prefixed(prefix, sizeof prefix / sizeof prefix[0], sp->argv + 1);
}

int pm_spawn(const struct pm_spawn *sp, pid_t *pid, struct pm_err *err)
{
    const char *what = sp->what ? sp->what : sp->argv[0];
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int e = file_actions(sp, &fa);
    if (!e)
        e = attributes(sp, &attr);
    if (e) {
        posix_spawn_file_actions_destroy(&fa);
        return pm_errf(err, "%s: cannot set up the process: %s", what, strerror(e));
    }
    char *const *argv = sp->argv;
    char **wrapped = NULL;
    if (sp->die_with_parent && !(argv = wrapped = with_pdeathsig(sp)))
        e = ENOMEM;
    else if (sp->die_with_parent || !sp->path)
        e = posix_spawnp(pid, argv[0], &fa, &attr, argv, sp->envp ? sp->envp : environ);
    else
        e = posix_spawn(pid, sp->path, &fa, &attr, argv, sp->envp ? sp->envp : environ);
    free(wrapped);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (e == ENOENT && sp->die_with_parent)
        return pm_errf(err, "%s: setpriv (from util-linux) is needed", what);
    if (e)
        return pm_errf(err, "%s: %s%s%s", what, strerror(e), e == ENOENT && sp->missing_hint ? " " : "",
                       e == ENOENT && sp->missing_hint ? sp->missing_hint : "");
    return 0;
}

int pm_wait(pid_t pid, int *status, struct pm_err *err)
{
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR)
            return pm_errf(err, "waitpid: %s", strerror(errno));
    return 0;
}

void pm_wait_describe(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "was killed by SIG%s",
                 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    else
        snprintf(buf, len, "ended with wait status %#x", status);
}

/* Wait for sp's child: 0 when it exited with status 0, else -1 with err
 * saying how it ended. */
static int wait_exit_ok(const struct pm_spawn *sp, pid_t pid, struct pm_err *err)
{
    int status;
    if (pm_wait(pid, &status, err) < 0)
        return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char how[64];
    pm_wait_describe(status, how, sizeof how);
    return pm_errf(err, "%s %s", sp->what ? sp->what : sp->argv[0], how);
}

int pm_spawn_run(const struct pm_spawn *sp, struct pm_err *err)
{
    pid_t pid;
    if (pm_spawn(sp, &pid, err) < 0)
        return -1;
    return wait_exit_ok(sp, pid, err);
}

char **pm_argv_prefixed(char *const prefix[], size_t nprefix, char *const argv[])
{
    size_t argc = 0;
    while (argv[argc])
        argc++;
    char **v = calloc(nprefix + argc + 1, sizeof *v);
    if (!v)
        return NULL;
    memcpy(v, prefix, nprefix * sizeof *v);
    memcpy(v + nprefix, argv, argc * sizeof *v);
    return v;
}

char **pm_env_without_secrets(void)
{
    static const char *const secrets[] = { "PRESSMARK_PUSH_TOKEN=" };
    size_t n = 0;
    while (environ[n])
        n++;
    char **v = calloc(n + 1, sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool secret = false;
        for (size_t s = 0; s < sizeof secrets / sizeof secrets[0]; s++)
            secret |= strncmp(environ[i], secrets[s], strlen(secrets[s])) == 0;
        if (!secret)
            v[k++] = environ[i];
    }
    v[k] = NULL;
    return v;
}

int pm_spawn_capture(const struct pm_spawn *sp, char *buf, size_t len, struct pm_err *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    struct pm_spawn s = *sp;
    s.out = fds[1];
    pid_t pid;
    if (pm_spawn(&s, &pid, err) < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    close(fds[1]);
    /* Read to the end even past len, so the child never blocks on a full pipe. */
    size_t got = 0;
    char sink[4096];
    for (;;) {
        ssize_t n = got + 1 < len ? read(fds[0], buf + got, len - got - 1) : read(fds[0], sink, sizeof sink);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (got + 1 < len)
            got += (size_t)n;
    }
    close(fds[0]);
    if (len)
        buf[got] = '\0';
    return wait_exit_ok(sp, pid, err);
}

bool pm_child_ended(pid_t pid)
{
    siginfo_t si = { .si_pid = 0 };
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

#define WAIT_POLL_NS 100000000ull

/* sig to the child's group and to the child itself: a child that left
 * its group (setpgid) while others stay in it would otherwise never be
 * signalled, and a wait for it never end. Both numbers are still ours:
 * the child is not reaped yet, so no other process can have either. */
static void signal_child(pid_t pid, bool group, int sig)
{
    if (group)
        kill(-pid, sig);
    kill(pid, sig);
}

/* 1 when pid has ended, left unreaped (WNOWAIT) so that its group can
 * still be signalled by its number; 0 while it runs; -1 with err. */
static int child_gone(pid_t pid, bool block, struct pm_err *err)
{
    for (;;) {
        siginfo_t si = { .si_pid = 0 };
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | (block ? 0 : WNOHANG)) == 0)
            return si.si_pid == pid;
        if (errno != EINTR)
            return pm_errf(err, "waitid: %s", strerror(errno));
    }
}

/* The ended child reaped with its figures. What it left running in its
 * group goes first when asked: until the reap its zombie keeps the
 * group's number from being given to anyone else's process. */
static int reap(pid_t pid, bool sweep, struct pm_wait_result *out, struct pm_err *err)
{
    if (sweep)
        kill(-pid, SIGKILL);
    pid_t r;
    while ((r = wait4(pid, &out->status, 0, &out->ru)) < 0 && errno == EINTR)
        ;
    return r == pid ? 0 : pm_errf(err, "wait4: %s", strerror(errno));
}

/* Where the ending of a child stands. */
struct ending {
    bool begun;                /* first_sig (or SIGKILL) sent */
    bool killed;               /* SIGKILL sent */
    uint64_t kill_at;          /* the grace's end; 0: none running */
};

/* One step of the ending, for what stop asked (ask) and the clock (now):
 * a kill asked for or due, else the first signal at a stop or the
 * deadline (SIGKILL when there is no first signal). A stop once the
 * ending has begun changes nothing: its grace runs on. */
static void end_step(pid_t pid, const struct pm_wait_opts *w, int ask, uint64_t now, struct ending *e,
                     struct pm_wait_result *out)
{
    bool kill_now = ask == PM_WAIT_KILL || (e->kill_at && now >= e->kill_at);
    bool due = w->deadline_ns && now >= w->deadline_ns;
    if (!e->begun && !kill_now && (ask == PM_WAIT_STOP || due)) {
        e->begun = true;
        out->timed_out = ask != PM_WAIT_STOP;
        if (w->first_sig) {
            signal_child(pid, w->group, w->first_sig);
            e->kill_at = now + w->grace_ns;
        } else {
            kill_now = true;
        }
    }
    if (kill_now) {
        signal_child(pid, w->group, SIGKILL);
        e->begun = e->killed = true;
        e->kill_at = 0;
    }
}

/* Sleep until the next thing to do (a look, the deadline, the grace's
 * end); a signal of wake ends it early and is returned, else 0. */
static int doze(const struct pm_wait_opts *w, const struct ending *e, uint64_t now)
{
    uint64_t until = now + (w->poll_ns ? w->poll_ns : WAIT_POLL_NS);
    if (w->deadline_ns && !e->begun && w->deadline_ns < until)
        until = w->deadline_ns;
    if (e->kill_at && e->kill_at < until)
        until = e->kill_at;
    struct timespec ts = pm_ns_to_timespec(until > now ? until - now : 0);
    if (!w->wake) {
        nanosleep(&ts, NULL);
        return 0;
    }
    int sig = sigtimedwait(w->wake, NULL, &ts);
    return sig > 0 ? sig : 0;
}

int pm_wait_deadline(pid_t pid, const struct pm_wait_opts *w, struct pm_wait_result *out, struct pm_err *err)
{
    memset(out, 0, sizeof *out);
    struct ending e = { 0 };
    int sig = 0;
    for (;;) {
        /* Nothing but its end is left to wait for once it is killed and
         * no signal is to be taken. */
        int gone = child_gone(pid, e.killed && !w->wake, err);
        if (gone < 0)
            return -1;
        int ask = w->stop && (!gone || sig) ? w->stop(w->arg, sig) : PM_WAIT_GO_ON;
        out->stopped |= ask != PM_WAIT_GO_ON;
        if (gone)
            return reap(pid, w->group && (w->sweep || e.begun), out, err);
        uint64_t now = pm_now_ns();
        end_step(pid, w, ask, now, &e, out);
        sig = e.killed && !w->wake ? 0 : doze(w, &e, now);
        if (sig == SIGCHLD)
            sig = 0;           /* it only wakes the wait: the next look sees the end */
    }
}
