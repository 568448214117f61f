/* A cgroup's processes killed through pidfds (cgkill.h). */
#include "lib/cgkill.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "lib/fileio.h"

/* The most pids one round takes (more are left for the next round). */
#define ROUND_MAX 1024

int pm_pidfd_open(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int pm_pidfd_signal(int pidfd, int sig)
{
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/* The pids of a cgroup.procs text, at most max, sorted; how many. */
static size_t parse_pids(char *text, pid_t *pids, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *p = strtok_r(text, "\n", &save); p && n < max; p = strtok_r(NULL, "\n", &save)) {
        char *end;
        long v = strtol(p, &end, 10);
        if (*end == '\0' && v > 0 && v <= INT_MAX)
            pids[n++] = (pid_t)v;
    }
    return n;
}

static int by_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

/* procs' pids into pids, sorted: how many, or -1 (errno). */
static long read_pids(const char *procs, pid_t *pids, size_t max)
{
    char buf[65536];
    if (pm_read_file(procs, buf, sizeof buf) < 0)
        return -1;
    size_t n = parse_pids(buf, pids, max);
    qsort(pids, n, sizeof *pids, by_pid);
    return (long)n;
}

int pm_cgroup_kill_round(const char *dir)
{
    char procs[PATH_MAX + 32], kill_file[PATH_MAX + 32];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
    snprintf(kill_file, sizeof kill_file, "%s/cgroup.kill", dir);
    pid_t first[ROUND_MAX], again[ROUND_MAX];
    long n = read_pids(procs, first, ROUND_MAX);
    if (n < 0)
        return errno == ENOENT ? 0 : -1;
    if (n == 0)
        return 0;
    if (pm_write_file(kill_file, "1", NULL) == 0)
        return 1;
    /* Each pidfd before the second look: a pid listed in it then is, if
     * the pidfd's process still lives, that process, in the cgroup; if it
     * has ended meanwhile, the signal reaches nobody. */
    int fds[ROUND_MAX];
    for (long i = 0; i < n; i++)
        fds[i] = pm_pidfd_open(first[i]);
    long m = read_pids(procs, again, ROUND_MAX);
    for (long i = 0; i < n; i++) {
        if (fds[i] < 0)
            continue;
        /* ESRCH: it ended by itself, which is what the signal wants. */
        if (m > 0 && bsearch(&first[i], again, (size_t)m, sizeof *again, by_pid))
            (void)pm_pidfd_signal(fds[i], SIGKILL);
        close(fds[i]);
    }
    return 1;
}

int pm_cgroup_kill(const char *dir, int tries)
{
    for (int i = 0; i < tries; i++) {
        int r = pm_cgroup_kill_round(dir);
        if (r == 0)
            return 0;
        if (r < 0)
            return -1;
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    return pm_cgroup_kill_round(dir) == 0 ? 0 : -1;
}
