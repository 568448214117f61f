#include "harness/balloon.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness/sysfs.h"
#include "harness/undo.h"
#include "harness/units.h"

extern char **environ;

int balloon_inflate(const char *exe, uint64_t cap, int *pid_out, struct kv_list *meta, struct pm_err *err)
{
    *pid_out = 0;
    char capbuf[32], floorbuf[32];
    pm_fmt_size(capbuf, sizeof capbuf, cap);
    pm_fmt_size(floorbuf, sizeof floorbuf, PM_BALLOON_FLOOR);
    if (cap < PM_BALLOON_FLOOR)
        return pm_errf(err, "balloon: a cap of %s would leave the system below the safety floor of %s", capbuf, floorbuf);
    int64_t avail_kb = pm_meminfo_kb("MemAvailable");
    if (avail_kb < 0)
        return pm_errf(err, "balloon: /proc/meminfo has no MemAvailable");
    uint64_t avail = (uint64_t)avail_kb * 1024;
    kv_set(meta, "cap.method", "balloon");
    kv_setf(meta, "cap.limit_bytes", "%llu", (unsigned long long)cap);
    if (avail <= cap) {
        kv_setf(meta, "cap.balloon_bytes", "0 (MemAvailable %llu already at or below the cap)", (unsigned long long)avail);
        return 0;
    }
    uint64_t size = avail - cap;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)size);
    char *argv[] = { (char *)exe, "__balloon", bytes, "3", NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 3);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int e = posix_spawn(&pid, exe, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(pfd[1]);
    if (e) {
        close(pfd[0]);
        return pm_errf(err, "balloon: %s", strerror(e));
    }
    char pidbuf[32];
    snprintf(pidbuf, sizeof pidbuf, "%d", (int)pid);
    if (undo_push(UNDO_PROCESS, pidbuf, "__balloon", err) < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(pfd[0]);
        return -1;
    }
    char msg[256];
    ssize_t n;
    do {
        n = read(pfd[0], msg, sizeof msg - 1);
    } while (n < 0 && errno == EINTR);
    close(pfd[0]);
    msg[n > 0 ? n : 0] = '\0';
    if (strncmp(msg, "ok", 2) != 0)
        return pm_errf(err, "balloon: %s", n > 0 ? msg : "the helper died before locking its memory");
    *pid_out = (int)pid;
    char sizebuf[32];
    pm_fmt_size(sizebuf, sizeof sizebuf, size);
    kv_setf(meta, "cap.balloon_bytes", "%llu", (unsigned long long)size);
    kv_setf(meta, "cap.balloon", "pid %d holds %s mlocked; MemAvailable was %llu kB", (int)pid, sizebuf,
            (unsigned long long)avail_kb);
    return 0;
}

int balloon_helper_main(uint64_t bytes, int status_fd)
{
    /* Gone with pressmark, even when pressmark is SIGKILLed; and never
     * the OOM killer's choice: killing it would lift the cap mid-run. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 1;
    pm_write_file("/proc/self/oom_score_adj", "-1000", NULL);
    char msg[256];
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        int n = snprintf(msg, sizeof msg, "cannot map %llu bytes: %s", (unsigned long long)bytes, strerror(errno));
        (void)!write(status_fd, msg, (size_t)n);
        return 1;
    }
    /* mlock in slices so a machine that cannot hold it fails early and
     * says how far it got. */
    const uint64_t slice = 256ull << 20;
    for (uint64_t off = 0; off < bytes; off += slice) {
        uint64_t n = bytes - off < slice ? bytes - off : slice;
        if (mlock((char *)p + off, n) < 0) {
            int m = snprintf(msg, sizeof msg, "mlock failed after %llu of %llu bytes: %s",
                             (unsigned long long)off, (unsigned long long)bytes, strerror(errno));
            (void)!write(status_fd, msg, (size_t)m);
            return 1;
        }
    }
    (void)!write(status_fd, "ok\n", 3);
    close(status_fd);
    for (;;)
        pause();
}
