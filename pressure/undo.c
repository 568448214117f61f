#include "pressure/undo.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/fileio.h"

#define MAX_ACTIONS 64

struct action {
    bool live;
    enum undo_kind kind;
    char a[512], b[512];
};

static struct action actions[MAX_ACTIONS];
static int nactions;
static int lock_fd = -1;
static char state_dir[512];

static const char *kind_names[] = { "file", "cgroup", "swapfile", "zram", "process", "rmdir", "subtree", "scratch" };

const char *undo_state_dir(void)
{
    if (state_dir[0])
        return state_dir;
    const char *env = getenv("PRESSMARK_STATE_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (env && *env)
        snprintf(state_dir, sizeof state_dir, "%s", env);
    else if (geteuid() == 0)
        snprintf(state_dir, sizeof state_dir, "/run/pressmark");
    else if (xdg && *xdg)
        snprintf(state_dir, sizeof state_dir, "%s/pressmark", xdg);
    else
        snprintf(state_dir, sizeof state_dir, "/tmp/pressmark-%u", (unsigned)geteuid());
    return state_dir;
}

static int ensure_state_dir(struct pm_err *err)
{
    const char *dir = undo_state_dir();
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    struct stat st;
    if (lstat(dir, &st) < 0)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    /* The journal names paths that are unlinked and processes that are
     * killed on recovery: nobody else may be able to write it. */
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
        return pm_errf(err, "%s: not a private directory of this user; refusing to keep state there", dir);
    return 0;
}

static void journal_path(char *buf, size_t len)
{
    snprintf(buf, len, "%s/journal", undo_state_dir());
}

/* Rewrite the whole journal (it is a few lines) and fsync it, so what is
 * on disk always lists every change still in force. */
static int journal_write(struct pm_err *err)
{
    char path[600], tmp[640];
    journal_path(path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    bool any = false;
    for (int i = 0; i < nactions; i++)
        any |= actions[i].live;
    if (!any) {
        if (unlink(path) < 0 && errno != ENOENT)
            return pm_errf(err, "%s: %s", path, strerror(errno));
        return 0;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", tmp, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return pm_errf(err, "%s: %s", tmp, strerror(errno));
    }
    for (int i = 0; i < nactions; i++)
        if (actions[i].live)
            fprintf(f, "%s\t%s\t%s\n", kind_names[actions[i].kind], actions[i].a, actions[i].b);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        int e = errno;
        fclose(f);
        return pm_errf(err, "%s: %s", tmp, strerror(e));
    }
    fclose(f);
    if (rename(tmp, path) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    return 0;
}

int undo_lock(const char *what, struct pm_err *err)
{
    if (ensure_state_dir(err) < 0)
        return -1;
    char path[600];
    snprintf(path, sizeof path, "%s/lock", undo_state_dir());
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        char holder[512] = "";
        ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        close(fd);
        return pm_errf(err, "another pressmark is running a workload on this machine (%s); "
                       "two runs at once would disturb each other's numbers: wait for it or stop it",
                       holder[0] ? holder : "pid unknown");
    }
    char who[512];
    int n = snprintf(who, sizeof who, "pid %d: %s\n", (int)getpid(), what);
    if (ftruncate(fd, 0) < 0 || pwrite(fd, who, (size_t)n, 0) != n) {
        close(fd);
        return pm_errf(err, "%s: %s", path, strerror(errno));
    }
    lock_fd = fd;
    return 0;
}

bool undo_run_in_progress(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/lock", undo_state_dir());
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

void undo_unlock(void)
{
    if (lock_fd >= 0) {
        if (ftruncate(lock_fd, 0) < 0) {
            /* The stale text only names a past holder; the flock is what counts. */
        }
        close(lock_fd);
        lock_fd = -1;
    }
}

int undo_push(enum undo_kind kind, const char *a, const char *b, struct pm_err *err)
{
    if (nactions == MAX_ACTIONS)
        return pm_errf(err, "too many environment changes in one run (%d)", MAX_ACTIONS);
    if (ensure_state_dir(err) < 0)
        return -1;
    struct action *ac = &actions[nactions];
    ac->live = true;
    ac->kind = kind;
    snprintf(ac->a, sizeof ac->a, "%s", a);
    snprintf(ac->b, sizeof ac->b, "%s", b ? b : "");
    nactions++;
    if (journal_write(err) < 0) {
        nactions--;
        return -1;
    }
    return nactions - 1;
}

void undo_done(int id)
{
    if (id < 0 || id >= nactions)
        return;
    actions[id].live = false;
    journal_write(NULL);
    while (nactions > 0 && !actions[nactions - 1].live)
        nactions--;
}

/* Kill whatever is left in a cgroup, then remove it; the kernel refuses
 * rmdir while tasks remain, and exiting tasks take a moment to leave. */
static int remove_cgroup(const char *dir, char *said, size_t len)
{
    char procs[600], kill_file[600];
    snprintf(kill_file, sizeof kill_file, "%s/cgroup.kill", dir);
    snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
    for (int attempt = 0; attempt < 200; attempt++) {
        if (rmdir(dir) == 0 || errno == ENOENT) {
            snprintf(said, len, "removed cgroup %s", dir);
            return 0;
        }
        if (errno != EBUSY)
            break;
        if (pm_write_file(kill_file, "1", NULL) < 0) {
            char buf[65536];
            if (pm_read_file(procs, buf, sizeof buf) == 0)
                for (char *p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
                    kill((pid_t)atoi(p), SIGKILL);
        }
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    snprintf(said, len, "could not remove cgroup %s: %s", dir, strerror(errno));
    return -1;
}

static int remove_zram(const char *id, char *said, size_t len)
{
    char dev[64], reset[128];
    snprintf(dev, sizeof dev, "/dev/zram%s", id);
    snprintf(reset, sizeof reset, "/sys/block/zram%s/reset", id);
    if (swapoff(dev) < 0 && errno != EINVAL && errno != ENOENT) {
        snprintf(said, len, "could not swapoff %s: %s", dev, strerror(errno));
        return -1;
    }
    if (pm_path_exists(reset)) {
        pm_write_file(reset, "1", NULL);
        if (pm_write_file("/sys/class/zram-control/hot_remove", id, NULL) < 0) {
            snprintf(said, len, "could not remove zram%s", id);
            return -1;
        }
    }
    snprintf(said, len, "removed swap device %s", dev);
    return 0;
}

int undo_apply(enum undo_kind kind, const char *a, const char *b, char *said, size_t len)
{
    struct pm_err err;
    switch (kind) {
    case UNDO_FILE:
        if (pm_write_file(a, b, &err) < 0) {
            snprintf(said, len, "could not restore %s: %s", a, err.msg);
            return -1;
        }
        snprintf(said, len, "restored %s to %s", a, b);
        return 0;
    case UNDO_CGROUP:
        return remove_cgroup(a, said, len);
    case UNDO_SWAPFILE:
        if (swapoff(a) < 0 && errno != EINVAL && errno != ENOENT) {
            snprintf(said, len, "could not swapoff %s: %s", a, strerror(errno));
            return -1;
        }
        if (unlink(a) < 0 && errno != ENOENT) {
            snprintf(said, len, "could not remove swap file %s: %s", a, strerror(errno));
            return -1;
        }
        snprintf(said, len, "removed swap file %s", a);
        return 0;
    case UNDO_ZRAM:
        return remove_zram(a, said, len);
    case UNDO_PROCESS: {
        /* A pid may have been reused since: kill only our own helper. */
        char path[64], cmdline[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", a);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof cmdline - 1) : -1;
        if (fd >= 0)
            close(fd);
        bool ours = false;
        for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(cmdline + i) + 1) {
            cmdline[n] = '\0';
            if (strcmp(cmdline + i, b) == 0)
                ours = true;
        }
        if (ours) {
            pid_t pid = (pid_t)atoi(a);
            kill(pid, SIGKILL);
            /* Wait until it is gone: a balloon frees gigabytes on exit, and
             * the next run must not start before they are back. */
            for (int i = 0; i < 6000; i++) {
                pid_t r = waitpid(pid, NULL, WNOHANG);
                if (r == pid || (r < 0 && kill(pid, 0) < 0 && errno == ESRCH))
                    break;
                struct timespec ts = { 0, 5000000 };
                nanosleep(&ts, NULL);
            }
            snprintf(said, len, "killed pressmark %s (pid %s)", b, a);
        } else {
            snprintf(said, len, "pressmark %s (pid %s) already gone", b, a);
        }
        return 0;
    }
    case UNDO_RMDIR:
        if (rmdir(a) < 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EBUSY) {
            snprintf(said, len, "could not remove %s: %s", a, strerror(errno));
            return -1;
        }
        snprintf(said, len, "removed %s", a);
        return 0;
    case UNDO_SUBTREE: {
        char path[600], value[64];
        snprintf(path, sizeof path, "%s/cgroup.subtree_control", a);
        snprintf(value, sizeof value, "-%s", b);
        if (pm_write_file(path, value, &err) < 0) {
            snprintf(said, len, "could not disable %s in %s: %s", b, path, err.msg);
            return -1;
        }
        snprintf(said, len, "disabled the %s controller for children of %s again", b, a);
        return 0;
    }
    case UNDO_SCRATCH: {
        /* Only files with the given prefix: never anything else there. */
        DIR *d = opendir(a);
        if (d) {
            struct dirent *e;
            size_t bl = strlen(b);
            while ((e = readdir(d)))
                if (bl && strncmp(e->d_name, b, bl) == 0 && !strchr(e->d_name, '/')) {
                    char path[1200];
                    snprintf(path, sizeof path, "%s/%s", a, e->d_name);
                    unlink(path);
                }
            closedir(d);
        }
        if (rmdir(a) < 0 && errno != ENOENT) {
            snprintf(said, len, "could not remove %s: %s", a, strerror(errno));
            return -1;
        }
        snprintf(said, len, "removed scratch directory %s", a);
        return 0;
    }
    }
    snprintf(said, len, "unknown action");
    return -1;
}

static void append(char *summary, size_t len, const char *said)
{
    size_t o = strlen(summary);
    if (o < len)
        snprintf(summary + o, len - o, "%s%s", o ? "; " : "", said);
}

int undo_all(char *summary, size_t len)
{
    int failures = 0;
    if (summary && len)
        summary[0] = '\0';
    for (int i = nactions - 1; i >= 0; i--) {
        if (!actions[i].live)
            continue;
        char said[1024];
        if (undo_apply(actions[i].kind, actions[i].a, actions[i].b, said, sizeof said) < 0)
            failures++;
        if (summary)
            append(summary, len, said);
        actions[i].live = false;
    }
    nactions = 0;
    journal_write(NULL);
    return failures ? -1 : 0;
}

int undo_recover(void)
{
    char path[600];
    journal_path(path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    /* Someone holding the lock is alive and owns this journal. */
    char lockpath[600];
    snprintf(lockpath, sizeof lockpath, "%s/lock", undo_state_dir());
    int fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
        if (fd >= 0)
            close(fd);
        fclose(f);
        return 0;
    }
    struct { enum undo_kind kind; char a[512], b[512]; } left[MAX_ACTIONS];
    int n = 0;
    char line[1100];
    while (n < MAX_ACTIONS && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *k = strtok(line, "\t"), *a = strtok(NULL, "\t"), *b = strtok(NULL, "\t");
        if (!k || !a)
            continue;
        for (int i = 0; i < (int)(sizeof kind_names / sizeof kind_names[0]); i++) {
            if (strcmp(k, kind_names[i]) == 0) {
                left[n].kind = (enum undo_kind)i;
                snprintf(left[n].a, sizeof left[n].a, "%s", a);
                snprintf(left[n].b, sizeof left[n].b, "%s", b ? b : "");
                n++;
                break;
            }
        }
    }
    fclose(f);
    for (int i = n - 1; i >= 0; i--) {
        char said[1024];
        undo_apply(left[i].kind, left[i].a, left[i].b, said, sizeof said);
        fprintf(stderr, "pressmark: a previous pressmark was killed mid-run; %s\n", said);
    }
    unlink(path);
    close(fd);
    return n;
}
