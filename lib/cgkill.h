#ifndef PM_CGKILL_H
#define PM_CGKILL_H
/* Killing the processes of a cgroup, and only those. A pid read from a
 * file is a number, not a process: the one it named may have ended and
 * its number gone to a process of someone else's (a system service run
 * as the same user as a run's server, say) by the time a signal is sent.
 * So every signal here goes through a pidfd, taken before the pid is
 * checked to be in the cgroup still: a pidfd names one process for
 * good, so a pid reused in between is never signalled. */
#include <stdbool.h>
#include <sys/types.h>

/* pidfd_open(2) and pidfd_send_signal(2) (Linux 5.3; glibc 2.36 has no
 * header for them): -1 with errno. */
int pm_pidfd_open(pid_t pid);
int pm_pidfd_signal(int pidfd, int sig);

/* One round over the cgroup directory dir: 0 when it holds no process
 * (or is not there), 1 when it held some and each was sent SIGKILL (v2's
 * cgroup.kill where the kernel has it, 5.14: a fork racing it dies too;
 * else each pid of cgroup.procs through its pidfd, signalled only when
 * the pid is listed there again after the pidfd was taken), -1 when
 * cgroup.procs cannot be read (errno). */
int pm_cgroup_kill_round(const char *dir);
/* Rounds 10 ms apart until dir holds no process, at most tries of them:
 * 0 when it is empty, -1 when processes were still there. */
int pm_cgroup_kill(const char *dir, int tries);

#endif
