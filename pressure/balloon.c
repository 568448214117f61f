#include "pressure/balloon.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include "lib/spawn.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "pressure/undo.h"
#include "lib/units.h"


/* Send one command to the helper and wait for its answer. */
static int balloon_command(int cmd_fd, int reply_fd, const char *cmd, struct pm_err *err)
{
    size_t len = strlen(cmd);
    if (write(cmd_fd, cmd, len) != (ssize_t)len)
        return pm_errf(err, "balloon: lost the helper: %s", strerror(errno));
    char msg[256];
    ssize_t n;
    do {
        n = read(reply_fd, msg, sizeof msg - 1);
    } while (n < 0 && errno == EINTR);
    msg[n > 0 ? n : 0] = '\0';
    if (strncmp(msg, "ok", 2) != 0)
        return pm_errf(err, "balloon: %s", n > 0 ? msg : "the helper died before locking its memory");
    return 0;
}

int balloon_inflate(const char *exe, uint64_t cap, int *pid_out, int *cmd_fd_out, struct kv_list *meta,
                    struct pm_err *err)
{
    *pid_out = 0;
    *cmd_fd_out = -1;
    char capbuf[32], floorbuf[32];
    pm_fmt_size(capbuf, sizeof capbuf, cap);
    pm_fmt_size(floorbuf, sizeof floorbuf, PM_BALLOON_FLOOR);
    if (cap < PM_BALLOON_FLOOR)
        return pm_errf(err, "balloon: a cap of %s would leave the system below the safety floor of %s", capbuf, floorbuf);
    int64_t avail_kb = pm_meminfo_kb("MemAvailable");
    if (avail_kb < 0)
        return pm_errf(err, "balloon: /proc/meminfo has no MemAvailable");
    uint64_t avail = (uint64_t)avail_kb * 1024;
    pm_kv_set(meta, "cap.method", "balloon");
    pm_kv_setf(meta, "cap.limit_bytes", "%llu", (unsigned long long)cap);
    if (avail <= cap) {
        pm_kv_setf(meta, "cap.balloon_bytes", "0 (MemAvailable %llu already at or below the cap)", (unsigned long long)avail);
        return 0;
    }
    int reply[2], cmd[2];
    if (pipe2(reply, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    if (pipe2(cmd, O_CLOEXEC) < 0) {
        close(reply[0]);
        close(reply[1]);
        return pm_errf(err, "pipe: %s", strerror(errno));
    }
    char *argv[] = { (char *)exe, "__balloon", NULL };
    const struct pm_fd_map reply_fd = { reply[1], 3 };
    struct pm_spawn sp = { .argv = argv, .path = exe, .what = "balloon", .in = cmd[0], .map = &reply_fd, .nmap = 1 };
    pid_t pid;
    int e = pm_spawn(&sp, &pid, err);
    close(reply[1]);
    close(cmd[0]);
    if (e < 0) {
        close(reply[0]);
        close(cmd[1]);
        return -1;
    }
    char pidbuf[32];
    snprintf(pidbuf, sizeof pidbuf, "%d", (int)pid);
    if (undo_push(UNDO_PROCESS, pidbuf, "__balloon", err) < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(reply[0]);
        close(cmd[1]);
        return -1;
    }
    *pid_out = (int)pid;
    *cmd_fd_out = cmd[1];
    /* Locking memory also costs page tables and moves watermarks, so one
     * guess from MemAvailable lands a few percent off: measure and adjust
     * until MemAvailable is within 1% of the cap. */
    uint64_t held = 0;
    int64_t want = (int64_t)(avail - cap);
    for (int round = 0; round < 6; round++) {
        char c[48];
        snprintf(c, sizeof c, "%c%lld\n", want > 0 ? '+' : '-', (long long)(want > 0 ? want : -want));
        if (balloon_command(cmd[1], reply[0], c, err) < 0) {
            close(reply[0]);
            return -1;
        }
        held = (uint64_t)((int64_t)held + want);
        struct timespec ts = { 0, 100000000 };
        nanosleep(&ts, NULL);
        int64_t now_kb = pm_meminfo_kb("MemAvailable");
        want = now_kb * 1024 - (int64_t)cap;
        if (llabs(want) <= (int64_t)(cap / 100) || (want < 0 && (uint64_t)-want > held))
            break;
    }
    close(reply[0]);
    char sizebuf[32];
    pm_fmt_size(sizebuf, sizeof sizebuf, held);
    pm_kv_setf(meta, "cap.balloon_bytes", "%llu", (unsigned long long)held);
    pm_kv_setf(meta, "cap.balloon", "pid %d holds %s mlocked; MemAvailable was %lld kB before, %lld kB after",
            (int)pid, sizebuf, (long long)avail_kb, (long long)pm_meminfo_kb("MemAvailable"));
    return 0;
}

struct region {
    char *p;
    uint64_t len;
};

/* Grow by mapping and locking a new region (in slices, so a machine that
 * cannot hold it fails early and says how far it got); shrink by
 * unmapping from the newest region back. */
static int balloon_grow(struct region *r, int *n, uint64_t bytes, char *msg, size_t len)
{
    if (*n == 64) {
        snprintf(msg, len, "too many adjustments");
        return -1;
    }
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        snprintf(msg, len, "cannot map %llu bytes: %s", (unsigned long long)bytes, strerror(errno));
        return -1;
    }
    const uint64_t slice = 256ull << 20;
    for (uint64_t off = 0; off < bytes; off += slice) {
        uint64_t s = bytes - off < slice ? bytes - off : slice;
        if (mlock(p + off, s) < 0) {
            snprintf(msg, len, "mlock failed after %llu of %llu bytes: %s", (unsigned long long)off,
                     (unsigned long long)bytes, strerror(errno));
            munmap(p, bytes);
            return -1;
        }
    }
    r[(*n)++] = (struct region){ p, bytes };
    return 0;
}

static void balloon_shrink(struct region *r, int *n, uint64_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    while (bytes > 0 && *n > 0) {
        struct region *last = &r[*n - 1];
        uint64_t cut = bytes < last->len ? bytes / (uint64_t)page * (uint64_t)page : last->len;
        if (cut == 0)
            break;
        munmap(last->p + (last->len - cut), cut);
        last->len -= cut;
        bytes -= cut;
        if (last->len == 0)
            (*n)--;
    }
}

int balloon_helper_main(int status_fd)
{
    /* Gone with pressmark, even when pressmark is SIGKILLed; and, where
     * the kernel lets us, never the OOM killer's choice. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 1;
    pm_write_file("/proc/self/oom_score_adj", "-1000", NULL);
    struct region regions[64];
    int n = 0;
    char line[64], msg[256];
    FILE *in = fdopen(0, "r");
    if (!in)
        return 1;
    while (fgets(line, sizeof line, in)) {
        unsigned long long bytes = strtoull(line + 1, NULL, 10);
        if (line[0] == '+') {
            if (balloon_grow(regions, &n, bytes, msg, sizeof msg) < 0) {
                (void)!write(status_fd, msg, strlen(msg));
                return 1;
            }
        } else if (line[0] == '-') {
            balloon_shrink(regions, &n, bytes);
        }
        (void)!write(status_fd, "ok\n", 3);
    }
    /* pressmark closed the pipe: the run is over. */
    return 0;
}
