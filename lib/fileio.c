#include "lib/fileio.h"
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pm_read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off + 1 < len) {
        ssize_t n = read(fd, buf + off, len - 1 - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (n == 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    buf[off] = '\0';
    while (off > 0 && (buf[off - 1] == '\n' || buf[off - 1] == ' '))
        buf[--off] = '\0';
    return 0;
}

int pm_write_file(const char *path, const char *value, struct pm_err *err)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    size_t len = strlen(value);
    ssize_t n;
    do {
        n = write(fd, value, len);
    } while (n < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    if (n < 0)
        return pm_errf(err, "writing '%s' to %s: %s", value, path, strerror(e));
    if ((size_t)n != len)
        return pm_errf(err, "writing '%s' to %s: short write", value, path);
    return 0;
}

/* The number after "key" and its separator in a /proc file of one key per
 * line (meminfo: "MemTotal:", vmstat: "pswpout "), or -1. */
static int64_t keyed_value(const char *path, const char *key, char sep)
{
    char buf[32768];
    if (pm_read_file(path, buf, sizeof buf) < 0)
        return -1;
    size_t klen = strlen(key);
    for (char *line = buf; line && *line; ) {
        char *nl = strchr(line, '\n');
        if (strncmp(line, key, klen) == 0 && line[klen] == sep)
            return strtoll(line + klen + 1, NULL, 10);
        line = nl ? nl + 1 : NULL;
    }
    return -1;
}

int64_t pm_meminfo_kb(const char *key)
{
    return keyed_value("/proc/meminfo", key, ':');
}

int64_t pm_vmstat_value(const char *key)
{
    return keyed_value("/proc/vmstat", key, ' ');
}

int pm_read_choice(const char *path, char *buf, size_t len)
{
    char raw[512];
    if (pm_read_file(path, raw, sizeof raw) < 0)
        return -1;
    char *open = strchr(raw, '['), *close_ = open ? strchr(open, ']') : NULL;
    if (!open || !close_) {
        snprintf(buf, len, "%s", raw);
        return 0;
    }
    *close_ = '\0';
    snprintf(buf, len, "%s", open + 1);
    return 0;
}

bool pm_path_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

int pm_which(const char *name, bool absolute_only, char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        bool absolute = n && p[0] == '/';
        if ((absolute || !absolute_only) && (size_t)snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", name) < len &&
            access(out, X_OK) == 0)
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

bool pm_in_path(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0;
    char buf[4096];
    return pm_which(name, false, buf, sizeof buf) == 0;
}

int pm_mkdirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int pm_cache_root(char *buf, size_t len)
{
    const char *env = getenv("PRESSMARK_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env && *env)
        snprintf(buf, len, "%s", env);
    else if (geteuid() == 0)
        snprintf(buf, len, "/var/cache/pressmark");
    else if (xdg && *xdg == '/')
        snprintf(buf, len, "%s/pressmark", xdg);
    else if (home && *home == '/')
        snprintf(buf, len, "%s/.cache/pressmark", home);
    else
        return -1;
    return 0;
}

int pm_open_output(const char *path, int flags)
{
    /* O_NONBLOCK: a FIFO planted at path must not hold root at open;
     * whatever is not a regular file is refused. */
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (flags & O_APPEND), 0644);
    if (fd < 0) {
        if (errno == ENXIO)
            errno = EINVAL;     /* a FIFO nobody reads: not a file to write */
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fcntl(fd, F_SETFL, flags & O_APPEND) < 0) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if ((flags & O_TRUNC) && ftruncate(fd, 0) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

FILE *pm_create_file(const char *path)
{
    /* Truncated only once it is known to be a regular file. */
    int fd = pm_open_output(path, O_TRUNC);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

int pm_cache_dir(char *buf, size_t len, struct pm_err *err)
{
    if (pm_cache_root(buf, len) < 0)
        return pm_errf(err, "no cache directory: neither HOME nor XDG_CACHE_HOME is an absolute path (accepted: "
                       "either, or PRESSMARK_CACHE)");
    return pm_private_dir(buf, len, err);
}

/* A directory only root or this user can change: theirs, and writable by
 * nobody else unless sticky (where others cannot move what is not theirs). */
static int trusted_dir(const char *dir, const char *path, struct pm_err *err)
{
    struct stat st;
    if (lstat(dir, &st) < 0)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
        ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
        return pm_errf(err, "%s is below %s, which another user could change (owner %u, mode %04o; accepted: "
                       "directories of root's or this user's that nobody else can write)", path, dir,
                       (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
    return 0;
}

int pm_trusted_path(const char *path, struct pm_err *err)
{
    size_t n = strlen(path);
    char walk[PATH_MAX];
    if (path[0] != '/' || n >= sizeof walk)
        return pm_errf(err, "%s: not an absolute path", path);
    if (trusted_dir("/", path, err) < 0)
        return -1;
    for (size_t i = 1; i <= n; i++) {
        if ((i < n && path[i] != '/') || path[i - 1] == '/')
            continue;
        memcpy(walk, path, i);
        walk[i] = '\0';
        if (trusted_dir(walk, path, err) < 0)
            return -1;
    }
    return 0;
}

/* The nearest directory path has that exists (path itself if it does),
 * resolved, into buf. -1 when none resolves. */
static int existing_ancestor(const char *path, char *buf)
{
    char walk[PATH_MAX];
    snprintf(walk, sizeof walk, "%s", path);
    for (;;) {
        if (realpath(walk, buf))
            return 0;
        char *slash = strrchr(walk, '/');
        if (!slash)
            return -1;
        if (slash == walk) {
            snprintf(walk, sizeof walk, "/");
            continue;
        }
        *slash = '\0';
    }
}

int pm_private_dir(char *path, size_t len, struct pm_err *err)
{
    /* Nothing is made below a directory another user could change: the
     * nearest one there is above path, checked first. */
    char parent[PATH_MAX], above[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent)
        *slash = '\0';
    else
        snprintf(parent, sizeof parent, "%s", slash ? "/" : ".");
    if (existing_ancestor(parent, above) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    if (pm_trusted_path(above, err) < 0) {
        /* Said of the cache asked for. */
        char was[sizeof err->msg];
        snprintf(was, sizeof was, "%s", err->msg);
        char *below = strstr(was, " is below ");
        snprintf(err->msg, sizeof err->msg, "%s%s", path, below ? below : was);
        return -1;
    }
    mode_t old = umask(077);
    int made = pm_mkdirs(path);
    umask(old);
    if (made < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    /* From now on the path without links: a link swapped later is not
     * followed. */
    char real[PATH_MAX];
    if (!realpath(path, real))
        return pm_errf(err, "%s: %s", path, strerror(errno));
    snprintf(path, len, "%s", real);
    struct stat st;
    if (lstat(path, &st) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    /* One an older pressmark made 0755 is ours: made private, not refused. */
    if (S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022) && (st.st_mode & 077) &&
        chmod(path, 0700) == 0)
        st.st_mode &= ~(mode_t)077;
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
        return pm_errf(err, "the cache %s is not a private directory of this user (owner %u, mode %04o; accepted: "
                       "yours, mode 0700; PRESSMARK_CACHE chooses another)", path, (unsigned)st.st_uid,
                       (unsigned)(st.st_mode & 07777));
    return pm_trusted_path(path, err);
}

int pm_open_private_dir(const char *path, bool create, struct pm_err *err)
{
    if (create && mkdir(path, 0700) < 0 && errno != EEXIST)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        pm_errf(err, "%s: %s", path, e == ELOOP || e == ENOTDIR ? "not a directory (a symbolic link or a file)"
                                                                  : strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        pm_errf(err, "%s: %s", path, strerror(e));
        close(fd);
        errno = e;
        return -1;
    }
    /* One an older pressmark made 0755 is ours: made private, not refused. */
    if (st.st_uid == geteuid() && !(st.st_mode & 022) && (st.st_mode & 077) &&
        fchmod(fd, 0700) == 0)
        st.st_mode &= ~(mode_t)077;
    if (st.st_uid != geteuid() || (st.st_mode & 077)) {
        pm_errf(err, "%s is not a private directory of this user (owner %u, mode %04o; accepted: yours, mode 0700)",
                path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

int pm_open_beneath(const char *root, const char *rel)
{
    int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    /* openat2 is in every kernel since 5.6; without it, nothing is opened. */
    /* O_NONBLOCK: a FIFO there must not hold root at open. */
    struct open_how how = { .flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
    int fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof how);
    int e = errno;
    close(dfd);
    errno = e;
    return fd;
}

int pm_link_tmpfile(int fd, const void *data, size_t len, int dfd, const char *name)
{
    if (fchmod(fd, 0600) < 0 || lseek(fd, 0, SEEK_SET) < 0)
        return -1;
    for (const char *p = data, *end = p + len; p < end;) {
        ssize_t n = write(fd, p, (size_t)(end - p));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
    }
    /* A reserve is longer than what it now holds: the rest is freed. */
    if (ftruncate(fd, (off_t)len) < 0 || fsync(fd) < 0)
        return -1;
    /* AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH; /proc's link does not. */
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, self, dfd, name, AT_SYMLINK_FOLLOW);
}

/* Root's or this user's: what a planted file can never be (only root
 * makes root's files). */
static bool ours(const struct stat *st)
{
    return st->st_uid == geteuid() || st->st_uid == 0;
}

static int refuse_direct(const char *path, const struct stat *st, const char *why, struct pm_err *err)
{
    return pm_errf(err, "%s is %s%s (owner %u; accepted: a regular file, or a FIFO with a reader or a character "
                   "device of this user's or root's)", path, S_ISFIFO(st->st_mode) ? "a FIFO" : "a character device",
                   why, (unsigned)st->st_uid);
}

/* A FIFO or a character device at path is written to, not replaced, when
 * it is ours. Opened without blocking (a FIFO nobody reads would hold the
 * open forever) and judged again by its descriptor, so what is written to
 * is what was judged. */
static int open_direct(struct pm_outfile *o, const char *path, const struct stat *was, struct pm_err *err)
{
    if (!ours(was))
        return refuse_direct(path, was, " of another user's", err);
    int d = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (d < 0)
        return errno == ENXIO ? refuse_direct(path, was, " that nobody reads", err)
                              : pm_errf(err, "%s: %s", path, strerror(errno));
    struct stat st;
    int rc = fstat(d, &st) < 0 ? pm_errf(err, "%s: %s", path, strerror(errno)) : 0;
    if (rc == 0 && (st.st_dev != was->st_dev || st.st_ino != was->st_ino || !ours(&st) ||
                    !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))))
        rc = pm_errf(err, "%s was replaced while it was opened (accepted: a file nobody else changes)", path);
    /* Written as any file is: a slow reader is waited for. */
    if (rc == 0 && (fcntl(d, F_SETFL, 0) < 0 || !(o->f = fdopen(d, "w"))))
        rc = pm_errf(err, "%s: %s", path, strerror(errno));
    if (rc < 0) {
        close(d);
        return -1;
    }
    o->direct = true;
    return 0;
}

/* The process's umask, read where it is shown: umask(2) can only set it,
 * and setting it to read it would leave a moment in which a file another
 * thread creates gets none. 022 where it cannot be read. */
static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    unsigned um = 022;
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &um) == 1)
            break;
    if (f)
        fclose(f);
    return (mode_t)(um & 0777);
}

/* The new file's mode: that of the file it replaces when that is this
 * user's (an export of a private database to a private file stays
 * private); of another's file, what both it and the default allow (root
 * replacing a user's 0600 file keeps it private, and a planted file's
 * setuid bits on a file root writes would be root's); else the default.
 * Always under the umask. */
static mode_t outfile_mode(bool there, const struct stat *st)
{
    mode_t m = 0666;
    if (there && S_ISREG(st->st_mode))
        m = st->st_uid == geteuid() ? st->st_mode & 0777 : st->st_mode & 0666;
    return m & ~current_umask();
}

/* The unnamed file (O_TMPFILE) in dir, or where the file system has none,
 * a name of our own beside path (mkstemp's O_EXCL never opens what
 * someone planted there): 0600 until it is given mode. */
static int open_unnamed(struct pm_outfile *o, const char *dir, const char *path, mode_t mode)
{
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        snprintf(o->tmp, sizeof o->tmp, "%s.XXXXXX", path);
        fd = mkstemp(o->tmp);
        if (fd < 0)
            o->tmp[0] = '\0';          /* not ours: never to be removed */
    }
    if (fd < 0 || fchmod(fd, mode) < 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (o->tmp[0])
            unlink(o->tmp);
        o->tmp[0] = '\0';
        errno = e;
        return -1;
    }
    return 0;
}

int pm_outfile_open(struct pm_outfile *o, const char *path, struct pm_err *err)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    if (strlen(path) >= sizeof o->path || !path[0])
        return pm_errf(err, "%s: %s", path, strerror(!path[0] ? ENOENT : ENAMETOOLONG));
    bool there = lstat(path, &st) == 0;
    if (there && (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)))
        /* A disk or a socket is nothing an export replaces or fills. */
        return pm_errf(err, "%s: %s", path,
                       strerror(S_ISDIR(st.st_mode) ? EISDIR : S_ISLNK(st.st_mode) ? ELOOP : EINVAL));
    snprintf(o->path, sizeof o->path, "%s", path);
    if (there && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        return open_direct(o, path, &st, err);
    char dir[sizeof o->path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir] = '\0';           /* "/x" lives in "/" */
    if (open_unnamed(o, dir, path, outfile_mode(there, &st)) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    return 0;
}

/* Give the unnamed file a temporary name beside path: linkat never
 * replaces, so a name someone planted (a link) is passed over. */
static int outfile_name(struct pm_outfile *o)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fileno(o->f));
    for (unsigned k = 0; k < 100; k++) {
        snprintf(o->tmp, sizeof o->tmp, "%s.%ld-%u.tmp", o->path, (long)getpid(), k);
        if (linkat(AT_FDCWD, self, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    o->tmp[0] = '\0';
    return -1;
}

int pm_outfile_commit(struct pm_outfile *o)
{
    if (o->direct) {
        int rc = fflush(o->f) != 0 || ferror(o->f) ? -1 : 0, e = errno;
        if (fclose(o->f) != 0 && rc == 0) {
            rc = -1;
            e = errno;
        }
        o->f = NULL;
        errno = e;
        return rc;
    }
    int rc = fflush(o->f) != 0 || ferror(o->f) ? -1 : 0;
    if (rc == 0 && !o->tmp[0])
        rc = outfile_name(o);
    int e = errno;
    if (fclose(o->f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    o->f = NULL;
    if (rc == 0 && rename(o->tmp, o->path) < 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0 && o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
    errno = e;
    return rc;
}

void pm_outfile_abort(struct pm_outfile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int pm_remove_all(const char *path)
{
    /* FTW_MOUNT: a file system mounted inside (a VM image's /proc while it
     * is built) is never descended into. */
    return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
