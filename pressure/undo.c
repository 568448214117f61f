#include "pressure/undo.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/cgkill.h"
#include "lib/fileio.h"
#include "lib/rmtree.h"
#include "lib/spawn.h"
#include "pressure/swap.h"
#include "pressure/undo_line.h"

#define MAX_ACTIONS 64

struct action {
    bool live;
    enum undo_kind kind;
    char a[UNDO_FIELD_MAX], b[UNDO_FIELD_MAX];
};

static struct action actions[MAX_ACTIONS];
static int nactions;
static int lock_fd = -1;
/* A process that holds the lock may take it again (a bisection holds it
 * across the suites it runs): only the outermost unlock lets it go. */
static int lock_depth;
/* How long a starting run waits for the run lock. */
#define LOCK_WAIT_MS 2000
static char state_dir[512];


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

/* The journal tells recovery what to write, kill and remove, as root: it
 * is kept and acted on only where nobody but this user (and, for reading,
 * root) can write. */
static int check_private(const char *path, bool dir, bool root_ok, char *why, size_t len)
{
    struct stat st;
    if (lstat(path, &st) < 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    if ((dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) || (st.st_uid != geteuid() && !(root_ok && st.st_uid == 0)) ||
        (st.st_mode & 022)) {
        snprintf(why, len, "%s is not a private %s of this user (owner %u, mode %04o)", path, dir ? "directory" : "file",
                 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

static int ensure_state_dir(struct pm_err *err)
{
    const char *dir = undo_state_dir();
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    char why[700];
    if (check_private(dir, true, false, why, sizeof why) < 0)
        return pm_errf(err, "%s; refusing to keep state there", why);
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
    for (int i = 0; i < nactions; i++) {
        char line[4 * UNDO_FIELD_MAX + 32];
        if (actions[i].live && undo_line_format(line, sizeof line, actions[i].kind, actions[i].a, actions[i].b) > 0)
            fputs(line, f);
    }
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

/* The run lock, exclusive, without waiting: -1 when another holds it. */
static int try_lock(int fd)
{
    return flock(fd, LOCK_EX | LOCK_NB);
}

int undo_lock(const char *what, struct pm_err *err)
{
    if (lock_fd >= 0) {
        lock_depth++;
        return 0;
    }
    if (ensure_state_dir(err) < 0)
        return -1;
    char path[600];
    snprintf(path, sizeof path, "%s/lock", undo_state_dir());
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    /* Every command checks for a killed run's leftovers under this lock
     * (undo_recover) for a moment: a run starting then waits for it, and
     * is refused only when a run holds the lock for LOCK_WAIT_MS. */
    int waited = 0;
    while (try_lock(fd) < 0 && waited < LOCK_WAIT_MS) {
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
        waited += 10;
    }
    if (waited >= LOCK_WAIT_MS) {
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
    if (lock_depth > 0) {
        lock_depth--;
        return;
    }
    if (lock_fd >= 0) {
        if (ftruncate(lock_fd, 0) < 0) {
            /* The stale text only names a past holder; the flock is what counts. */
        }
        close(lock_fd);
        lock_fd = -1;
    }
}

/* Why this process may not journal, or NULL (undo_forbid). */
static const char *forbidden;

void undo_forbid(const char *why)
{
    forbidden = why;
}

int undo_push(enum undo_kind kind, const char *a, const char *b, struct pm_err *err)
{
    if (forbidden)
        return pm_errf(err, "%s", forbidden);
    if (nactions == MAX_ACTIONS)
        return pm_errf(err, "too many environment changes in one run (%d)", MAX_ACTIONS);
    if (ensure_state_dir(err) < 0)
        return -1;
    if (strlen(a) >= UNDO_FIELD_MAX || (b && strlen(b) >= UNDO_FIELD_MAX))
        return pm_errf(err, "cannot journal a change to %.64s...: longer than %d bytes", a, UNDO_FIELD_MAX - 1);
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
    int e = 0;
    for (int attempt = 0; attempt < 200; attempt++) {
        if (rmdir(dir) == 0 || (e = errno) == ENOENT) {
            snprintf(said, len, "removed cgroup %s", dir);
            return 0;
        }
        if (e != EBUSY)
            break;
        /* By pidfd: a pid of cgroup.procs reused meanwhile by a process
         * outside the cgroup is never signalled (lib/cgkill.h). A list
         * that cannot be read leaves the next rmdir to say why. */
        (void)pm_cgroup_kill_round(dir);
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    snprintf(said, len, "could not remove cgroup %s: %s", dir, strerror(e));
    return -1;
}

/* A module pressmark loaded (zram, brd): unloaded with what it alone
 * pulled in (zsmalloc); one already gone is no failure, nor is one loaded
 * again since by someone else (another identity), which is left alone.
 * A module busy a moment after its disk was unmounted (udev reading the
 * disk) is tried again for up to 2 s. */
static int unload_module(const char *name, const char *ident, char *said, size_t len)
{
    char sys[64];
    snprintf(sys, sizeof sys, "/sys/module/%s", name);
    struct stat st;
    if (lstat(sys, &st) < 0) {
        snprintf(said, len, "module %s was already unloaded", name);
        return 0;
    }
    if (!undo_module_load_is(ident, (unsigned long long)st.st_ino)) {
        snprintf(said, len, "module %s is not the load pressmark made (%s; it is inode %llu now): left alone", name,
                 ident, (unsigned long long)st.st_ino);
        return 0;
    }
    char *argv[] = { "modprobe", "-r", (char *)name, NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = PM_FD_NULL, .err = PM_FD_NULL };
    struct pm_err e;
    for (int tries = 1; pm_spawn_run(&sp, &e) < 0; tries++) {
        if (!pm_path_exists(sys))
            break;
        if (tries == 20) {
            snprintf(said, len, "could not unload module %s: %s", name, e.msg);
            return -1;
        }
        struct timespec ts = { 0, 100000000 };
        nanosleep(&ts, NULL);
    }
    snprintf(said, len, "unloaded module %s", name);
    return 0;
}

/* A ramdisk's file system (pressure/ramdisk.h): unmounted at once, so
 * that brd can go after it; lazily only when something still holds it
 * (the module's line then stays, and says why). The mount point itself
 * is never followed if it became a link. */
static int unmount_ramdisk(const char *a, char *said, size_t len)
{
    if (umount2(a, UMOUNT_NOFOLLOW) == 0) {
        snprintf(said, len, "unmounted the ramdisk at %s", a);
        return 0;
    }
    if (errno == EINVAL || errno == ENOENT) {
        snprintf(said, len, "the ramdisk at %s was not mounted", a);
        return 0;
    }
    int e = errno;
    if (e == EBUSY && umount2(a, MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
        snprintf(said, len, "detached the ramdisk at %s, still busy", a);
        return 0;
    }
    snprintf(said, len, "could not unmount the ramdisk at %s: %s", a, strerror(e));
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

/* Swapoff first, so its pages are back in memory before the file goes;
 * a file that is already off (or gone) is no failure. */
static int remove_swapfile(const char *path, char *said, size_t len)
{
    if (swapoff(path) < 0 && errno != EINVAL && errno != ENOENT) {
        snprintf(said, len, "could not swapoff %s: %s", path, strerror(errno));
        return -1;
    }
    if (unlink(path) < 0 && errno != ENOENT) {
        snprintf(said, len, "could not remove swap file %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(said, len, "removed swap file %s", path);
    return 0;
}

/* A pid may have been reused since: it is ours only when its command line
 * has the word we journalled. A process already gone is not ours. */
static bool pid_is_ours(const char *pid, const char *word)
{
    char path[64], cmdline[4096];
    snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof cmdline - 1) : -1;
    if (fd >= 0)
        close(fd);
    bool ours = false;
    for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(cmdline + i) + 1) {
        cmdline[n] = '\0';
        if (strcmp(cmdline + i, word) == 0)
            ours = true;
    }
    return ours;
}

/* Does a word of /proc/PID/cmdline contain word? */
static bool cmdline_mentions(const char *pid, const char *word)
{
    char path[64], cmdline[8192];
    snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof cmdline - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return false;
    cmdline[n] = '\0';
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(cmdline + i) + 1)
        if (strstr(cmdline + i, word))
            return true;
    return false;
}

/* What is left of a helper's process group once its leader is gone (a
 * kernel build's sub-makes and compilers, orphaned when pressmark and the
 * make it started died): its members whose command line mentions word.
 * While any member lives, no other process or group can have its id. */
static int kill_group_rest(pid_t pgid, const char *word)
{
    DIR *d = opendir("/proc");
    int killed = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], buf[1024];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        if (pm_read_file(path, buf, sizeof buf) < 0)
            continue;
        const char *p = strrchr(buf, ')');
        int pgrp;
        if (p && sscanf(p + 1, " %*c %*d %d", &pgrp) == 1 && pgrp == pgid && cmdline_mentions(e->d_name, word) &&
            kill((pid_t)atoi(e->d_name), SIGKILL) == 0)
            killed++;
    }
    if (d)
        closedir(d);
    return killed;
}

/* Kill only our own helper, and never report failure: a helper that is
 * gone is what undoing it wants. The pidfd is taken before the command
 * line is read: if the pid names another process by then, the pidfd's
 * own has ended and the signal reaches nobody. */
static int stop_helper(const char *a, const char *b, char *said, size_t len)
{
    pid_t pid = (pid_t)atoi(a);
    int pfd = pid > 0 ? pm_pidfd_open(pid) : -1;
    bool ours = pfd >= 0 && pid_is_ours(a, b);
    if (ours) {
        /* ESRCH: it ended meanwhile, as wanted. */
        (void)pm_pidfd_signal(pfd, SIGKILL);
        /* Wait until it is gone (its pidfd is readable then): a balloon
         * frees gigabytes on exit, and the next run must not start
         * before they are back. */
        struct pollfd p = { .fd = pfd, .events = POLLIN };
        for (int i = 0; i < 300; i++) {
            int r = poll(&p, 1, 100);
            if (r > 0 || (r < 0 && errno != EINTR))
                break;
        }
        /* Reaped when it is this pressmark's child; ECHILD otherwise. */
        (void)waitpid(pid, NULL, WNOHANG);
    }
    if (pfd >= 0)
        close(pfd);
    int rest = pid > 1 ? kill_group_rest(pid, b) : 0;
    int n = snprintf(said, len, ours ? "killed pressmark %s (pid %s)" : "pressmark %s (pid %s) already gone", b, a);
    if (rest && n > 0 && (size_t)n < len)
        snprintf(said + n, len - (size_t)n, "; killed %d left in its process group", rest);
    return 0;
}

/* A controller is switched off for a cgroup's children by writing its
 * name with a minus to the cgroup's subtree_control. */
static int disable_controller(const char *dir, const char *controller, char *said, size_t len)
{
    struct pm_err err;
    char path[600], value[64];
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", dir);
    snprintf(value, sizeof value, "-%s", controller);
    if (pm_write_file(path, value, &err) < 0) {
        snprintf(said, len, "could not disable %s in %s: %s", controller, path, err.msg);
        return -1;
    }
    snprintf(said, len, "disabled the %s controller for children of %s again", controller, dir);
    return 0;
}

/* A directory whose whole tree goes must be pressmark's: this user's and
 * private (run fio's), or inside a directory of this user's that nobody
 * else can write (a server's, another user's, in root's 0711 directory:
 * only root put it there). Else it is whatever another user put at the
 * path after a kill, and root does not empty it. fd is the directory,
 * opened without following a link. */
static int scratch_ours(const char *dir, int fd, char *said, size_t len)
{
    struct stat st, up;
    if (fstat(fd, &st) < 0) {
        snprintf(said, len, "could not empty %s: %s", dir, strerror(errno));
        return -1;
    }
    if (st.st_uid == geteuid() && !(st.st_mode & 077))
        return 0;
    char parent[UNDO_FIELD_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash)
        slash[slash == parent] = '\0';
    if (slash && lstat(parent, &up) == 0 && S_ISDIR(up.st_mode) && up.st_uid == geteuid() && !(up.st_mode & 022))
        return 0;
    snprintf(said, len, "did not empty %s: owned by uid %u with mode %04o, in a directory others may write (accepted: "
             "this user's and private, or in a private directory of this user's)", dir, (unsigned)st.st_uid,
             (unsigned)(st.st_mode & 07777));
    return -1;
}

/* Everything in dir, when it is pressmark's (scratch_ours). */
static int empty_scratch(const char *dir, char *said, size_t len)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(said, len, "could not empty %s: %s", dir, strerror(errno));
        return -1;
    }
    if (scratch_ours(dir, fd, said, len) < 0) {
        close(fd);
        return -1;
    }
    if (pm_empty_tree_fd(fd) < 0 && errno != ENOENT) {
        snprintf(said, len, "could not empty %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Only files with the given prefix: never anything else there. Whatever
 * else is left keeps the directory, and that is the failure reported.
 * Prefix UNDO_SCRATCH_ALL: a directory of pressmark's whose whole tree
 * goes, no link followed and no mount inside it crossed
 * (pm_empty_tree_fd): what a server's user or fio left there must not
 * keep it, and the journal's line, for ever. */
static int remove_scratch(const char *dir, const char *prefix, char *said, size_t len)
{
    if (strcmp(prefix, UNDO_SCRATCH_ALL) == 0) {
        if (empty_scratch(dir, said, len) < 0)
            return -1;
        prefix = "";
    }
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        size_t bl = strlen(prefix);
        while ((e = readdir(d)))
            if (bl && strncmp(e->d_name, prefix, bl) == 0 && !strchr(e->d_name, '/')) {
                char path[1200];
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    if (rmdir(dir) < 0 && errno != ENOENT) {
        snprintf(said, len, "could not remove %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(said, len, "removed scratch directory %s", dir);
    return 0;
}

/* Lazily: a process still inside (a killed dpkg's children, a reader of
 * another tool's trace instance) must not keep the mount, and so a build
 * tree, alive. A tracefs mount says so in what is reported. */
static int unmount_lazily(enum undo_kind kind, const char *a, char *said, size_t len)
{
    const char *what = kind == UNDO_TRACEFS ? "tracefs from " : "";
    if (umount2(a, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT) {
        snprintf(said, len, "could not unmount %s%s: %s", what, a, strerror(errno));
        return -1;
    }
    snprintf(said, len, "unmounted %s%s", what, a);
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
        return remove_swapfile(a, said, len);
    case UNDO_ZRAM:
        return remove_zram(a, said, len);
    case UNDO_MODULE:
        return unload_module(a, b, said, len);
    case UNDO_RAMDISK:
        return unmount_ramdisk(a, said, len);
    case UNDO_PROCESS:
        return stop_helper(a, b, said, len);
    case UNDO_RMDIR:
        if (rmdir(a) < 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EBUSY) {
            snprintf(said, len, "could not remove %s: %s", a, strerror(errno));
            return -1;
        }
        snprintf(said, len, "removed %s", a);
        return 0;
    case UNDO_SUBTREE:
        return disable_controller(a, b, said, len);
    case UNDO_SCRATCH:
        return remove_scratch(a, b, said, len);
    case UNDO_MOUNT:
    case UNDO_TRACEFS:
        return unmount_lazily(kind, a, said, len);
    case UNDO_TRACE_INSTANCE:
        /* rmdir of an instance stops its tracing and frees its buffers;
         * it fails while a file of it is open (our readers close first). */
        if (rmdir(a) < 0 && errno != ENOENT) {
            snprintf(said, len, "could not remove trace instance %s: %s", a, strerror(errno));
            return -1;
        }
        snprintf(said, len, "removed trace instance %s", a);
        return 0;
    case UNDO_TREE:
        if (pm_remove_all(a) < 0 && errno != ENOENT) {
            snprintf(said, len, "could not remove %s: %s", a, strerror(errno));
            return -1;
        }
        snprintf(said, len, "removed %s", a);
        return 0;
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
        bool failed = undo_apply(actions[i].kind, actions[i].a, actions[i].b, said, sizeof said) < 0;
        if (summary)
            append(summary, len, said);
        /* A step that failed stays in the journal: the next invocation
         * tries it again, and until then it is there for all to see. */
        if (failed)
            failures++;
        else
            actions[i].live = false;
    }
    while (nactions > 0 && !actions[nactions - 1].live)
        nactions--;
    journal_write(NULL);
    return failures ? -1 : 0;
}

/* The journal lives on tmpfs (/run), swap files on disk: after a crash
 * and a reboot the journal is gone and the files are not. A run-N.swap
 * that no swap area uses, in pressmark's own root-only directory, is one. */
static void remove_stale_swapfiles(FILE *say)
{
    char why[700];
    /* The swap directory is the machine's, judged under the machine's run
     * lock: a pressmark with a state directory of its own cannot tell a
     * file another pressmark's run is making from one a crash left. */
    const char *own = getenv("PRESSMARK_STATE_DIR");
    if (geteuid() != 0 || (own && *own) || check_private(PM_SWAP_DIR, true, false, why, sizeof why) < 0)
        return;
    char swaps[16384] = "";
    pm_read_file("/proc/swaps", swaps, sizeof swaps);
    DIR *d = opendir(PM_SWAP_DIR);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "run-", 4) != 0 || len < 9 || strcmp(e->d_name + len - 5, ".swap") != 0)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", PM_SWAP_DIR, e->d_name);
        if (strstr(swaps, path))
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            fprintf(say, "pressmark: removed swap file %s, left by a pressmark that ended with the machine\n", path);
    }
    closedir(d);
    /* Empty, they go too: pressmark made them (they are root's and 0700). */
    if (rmdir(PM_SWAP_DIR) == 0)
        rmdir(PM_SWAP_PARENT);
}

int undo_recover(FILE *say)
{
    char path[600];
    journal_path(path, sizeof path);
    /* The lock first: a holder is alive and owns the journal and the swap
     * directory (a run, or another command recovering). Without a probe
     * before it, nothing here is decided on what a run starting meanwhile
     * has made. */
    char lockpath[600];
    snprintf(lockpath, sizeof lockpath, "%s/lock", undo_state_dir());
    int fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        /* No state directory: no pressmark ran here since boot, so a swap
         * file on disk was left by one that ended with the machine. */
        if (access(path, F_OK) != 0)
            remove_stale_swapfiles(say);
        return 0;
    }
    if (try_lock(fd) < 0) {
        close(fd);
        return 0;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        remove_stale_swapfiles(say);
        close(fd);
        return 0;
    }
    char why[700];
    if (check_private(undo_state_dir(), true, true, why, sizeof why) < 0 ||
        check_private(path, false, true, why, sizeof why) < 0) {
        fprintf(say, "pressmark: not acting on the undo journal %s: %s\n", path, why);
        fclose(f);
        close(fd);
        return 0;
    }
    int n = 0;
    char line[4 * UNDO_FIELD_MAX + 32];
    while (nactions < MAX_ACTIONS && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        struct action *ac = &actions[nactions];
        int rc = undo_line_parse(line, &ac->kind, ac->a, ac->b);
        if (rc < 0) {
            fprintf(say, "pressmark: the undo journal names %s, which is not one of pressmark's; left alone\n",
                    ac->a);
            break;
        }
        if (rc == 0)
            continue;
        ac->live = true;
        nactions++;
        n++;
    }
    fclose(f);
    /* What is undone is struck off; what fails stays for the next try. */
    for (int i = nactions - 1; i >= 0; i--) {
        char said[1024];
        if (undo_apply(actions[i].kind, actions[i].a, actions[i].b, said, sizeof said) == 0)
            actions[i].live = false;
        fprintf(say, "pressmark: a previous pressmark was killed mid-run; %s%s\n", said,
                actions[i].live ? " (kept in the journal; the next pressmark tries again)" : "");
    }
    while (nactions > 0 && !actions[nactions - 1].live)
        nactions--;
    /* Steps that failed stay this process's too: a run that follows
     * retries them at its end, and keeps them in the journal meanwhile. */
    if (nactions == 0)
        unlink(path);
    else
        journal_write(NULL);
    close(fd);
    return n;
}
