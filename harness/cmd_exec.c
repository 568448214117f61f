/* The first thing a workload process runs: it joins the run's cgroup and
 * makes itself killable by the OOM killer again (pressmark's -1000 would
 * otherwise be inherited), then becomes the workload. Doing this in a
 * helper keeps pressmark on posix_spawn with argv and never forks a
 * threaded process. Errors go back on the status fd for one clear line. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness/cli.h"
#include "harness/sysfs.h"

static void report(int fd, const char *what, const char *detail)
{
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%s%s", what, detail);
    if (fd >= 0 && n > 0)
        (void)!write(fd, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    else
        fprintf(stderr, "pressmark: %s\n", msg);
}

int cmd_exec_helper(int argc, char **argv)
{
    int status_fd = -1;
    const char *cgroup = NULL;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strncmp(argv[i], "--status-fd=", 12) == 0)
            status_fd = atoi(argv[i] + 12);
        else if (strncmp(argv[i], "--cgroup=", 9) == 0)
            cgroup = argv[i] + 9;
    }
    if (i + 1 >= argc) {
        report(status_fd, "internal: __exec needs -- COMMAND", "");
        return 127;
    }
    if (status_fd >= 0)
        fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    /* If pressmark dies (even by SIGKILL), the workload goes with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (cgroup) {
        char pid[32];
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        struct pm_err err;
        if (pm_write_file(cgroup, pid, &err) < 0) {
            report(status_fd, "cannot enter the run's cgroup: ", err.msg);
            return 127;
        }
    }
    struct pm_err err;
    if (pm_write_file("/proc/self/oom_score_adj", "0", &err) < 0 && errno != EACCES) {
        report(status_fd, err.msg, "");
        return 127;
    }
    char **cmd = argv + i + 1;
    execvp(cmd[0], cmd);
    char what[300];
    snprintf(what, sizeof what, "cannot execute %s: ", cmd[0]);
    report(status_fd, what, strerror(errno));
    return 127;
}
