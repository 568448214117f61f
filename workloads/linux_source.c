/* Debian's linux-source-SERIES tarball, unpacked once with libarchive into
 * pressmark's cache (a private directory of root's), and a build directory
 * per config target made by `make O=DIR TARGET` beside it. Each is made
 * under a temporary name and renamed when whole: a pressmark killed half
 * way leaves a .tmpPID directory that the next one removes, never a tree
 * that looks complete. The cache key is the tarball's size and mtime, so
 * an upgraded package is unpacked again. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/archive_lib.h"
#include "lib/fileio.h"
#include "lib/spawn.h"
#include "workloads/linux_source.h"

#define MARK ".pressmark-complete"

static const char *const kconfigs[] = { "tinyconfig", "allnoconfig", "defconfig", NULL };

/* What a kernel build needs beside the source, as Debian packages them
 * (run.sh installs them without recommends). */
static const char *const build_progs[] = { "make", "gcc", "flex", "bison", "bc", "perl", NULL };
static const char *const build_headers[] = { "/usr/include/libelf.h", "/usr/include/openssl/opensslv.h", NULL };
#define BUILD_PKGS "make gcc flex bison bc perl libelf-dev libssl-dev"

static bool series_name(const char *s)
{
    size_t n = strlen(s), dots = 0;
    if (n == 0 || n > 8 || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.')
            dots++;
        else if (!isdigit((unsigned char)s[i]))
            return false;
    }
    return dots == 1;
}

/* Where the tarballs are: the package's place, or PRESSMARK_LINUX_SOURCE
 * (a mirror's, the tests'), which must be absolute. */
static int source_dir(char *buf, size_t len, struct pm_err *err)
{
    const char *env = getenv("PRESSMARK_LINUX_SOURCE");
    if (env && *env && *env != '/')
        return pm_errf(err, "PRESSMARK_LINUX_SOURCE: '%.200s' is not an absolute path", env);
    snprintf(buf, len, "%s", env && *env ? env : LINUX_SOURCE_DIR);
    return 0;
}

/* The tarball, opened, and what it is. Its Makefile runs as whoever runs
 * pressmark, so it must be a file only root or this user could have put
 * there or changed: theirs, written by nobody else, in a trusted place. */
static int open_tarball(const char *series, int *fd, struct stat *st, char *tar, size_t len, struct pm_err *err)
{
    char dir[4096];
    if (source_dir(dir, sizeof dir, err) < 0)
        return -1;
    snprintf(tar, len, "%s/linux-source-%s.tar.xz", dir, series);
    *fd = open(tar, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return pm_errf(err, "'%s': %s: %s (apt-get install linux-source-%s)", series, tar,
                       errno == ENOENT ? "missing" : strerror(errno), series);
    const char *why = NULL;
    if (fstat(*fd, st) < 0)
        why = strerror(errno);
    else if (!S_ISREG(st->st_mode))
        why = "not a regular file";
    else if ((st->st_uid != 0 && st->st_uid != geteuid()) || (st->st_mode & 022))
        why = "a file another user could have written (accepted: root's or yours, written by nobody else)";
    if (!why && pm_trusted_path(dir, err) < 0)
        why = err->msg;
    if (why) {
        char w[sizeof err->msg];
        snprintf(w, sizeof w, "%s", why);
        close(*fd);
        return pm_errf(err, "'%s': %s: %s", series, tar, w);
    }
    return 0;
}

int linux_source_check(const char *series, struct pm_err *err)
{
    if (!series_name(series))
        return pm_errf(err, "'%s' is not a kernel series (accepted: the N.M of an installed "
                       "linux-source-N.M package, such as 6.1)", series);
    char tar[4200];
    struct stat st;
    int fd;
    if (open_tarball(series, &fd, &st, tar, sizeof tar, err) < 0)
        return -1;
    close(fd);
    /* The unpacker too, as the build's tools: missing, it says so now,
     * not once the run has started. */
    if (!pm_archive_lib(err))
        return -1;
    for (size_t i = 0; build_progs[i]; i++)
        if (!pm_in_path(build_progs[i]))
            return pm_errf(err, "%s is not installed, and a kernel build needs it (apt-get install %s)",
                           build_progs[i], BUILD_PKGS);
    for (size_t i = 0; build_headers[i]; i++)
        if (!pm_path_exists(build_headers[i]))
            return pm_errf(err, "%s is missing, and a kernel build needs it (apt-get install %s)",
                           build_headers[i], BUILD_PKGS);
    return 0;
}

int linux_source_check_kconfig(const char *kconfig, struct pm_err *err)
{
    for (size_t i = 0; kconfigs[i]; i++)
        if (strcmp(kconfig, kconfigs[i]) == 0)
            return 0;
    return pm_errf(err, "'%s' is not a config target this builds (accepted: tinyconfig, allnoconfig, "
                   "defconfig)", kconfig);
}

/* Remove what a pressmark that is gone left half made in dir. */
static void remove_stale(const char *dir, FILE *say)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *t = strstr(e->d_name, ".tmp");
        char *end;
        if (!t || !isdigit((unsigned char)t[4]))
            continue;
        errno = 0;
        long pid = strtol(t + 4, &end, 10);
        if (*end || errno || pid <= 0 || pid > INT_MAX || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (pm_remove_all(path) < 0)
            fprintf(say, "pressmark: cannot remove %s, left half made: %s\n", path, strerror(errno));
    }
    closedir(d);
}

/* After a tarball is unpacked: the caches of the series' other tarballs
 * (an older package's, 1.3 GB each for a kernel) go. */
static void remove_others(const char *base, const char *series, const char *key, FILE *say)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    size_t n = strlen(series);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, series, n) != 0 || e->d_name[n] != '-' || strcmp(e->d_name, key) == 0)
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", base, e->d_name);
        if (pm_remove_all(path) < 0)
            fprintf(say, "pressmark: cannot remove %s: %s\n", path, strerror(errno));
        else
            fprintf(say, "pressmark: removed %s, the cache of another linux-source-%s tarball\n", path, series);
    }
    closedir(d);
}

/* Copy one entry's data from the tarball to the file being written. */
static int copy_data(const struct pm_archive *ar, struct archive *in, struct archive *out)
{
    const void *buf;
    size_t size;
    la_int64_t off;
    for (;;) {
        int r = ar->read_data_block(in, &buf, &size, &off);
        if (r == ARCHIVE_EOF)
            return ARCHIVE_OK;
        if (r != ARCHIVE_OK)
            return r;
        if (ar->write_data_block(out, buf, size, off) != ARCHIVE_OK)
            return ARCHIVE_FATAL;
    }
}

/* A name below the tree: no empty, "." or ".." part ("top/." would be the
 * destination itself, and a link there would send every later member
 * elsewhere), one trailing slash at most. */
static bool plain_below(const char *rest)
{
    size_t n = strlen(rest);
    if (n && rest[n - 1] == '/')
        n--;
    if (n == 0)
        return false;
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && rest[k] != '/')
            k++;
        size_t len = k - i;
        if (len == 0 || (len == 1 && rest[i] == '.') || (len == 2 && rest[i] == '.' && rest[i + 1] == '.'))
            return false;
        i = k + 1;
    }
    return true;
}

/* Name entry e below dest, its leading "linux-source-SERIES/" taken off;
 * 1 to skip it (the top directory), -1 for a member outside it. */
static int rename_entry(const struct pm_archive *ar, struct archive_entry *e, const char *top, const char *dest)
{
    size_t tn = strlen(top);
    const char *p = ar->entry_pathname(e);
    if (!p || strncmp(p, top, tn) != 0)
        return -1;
    if (p[tn] == '\0')
        return ar->entry_filetype(e) == AE_IFDIR ? 1 : -1;
    if (!plain_below(p + tn))
        return -1;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dest, p + tn);
    ar->entry_copy_pathname(e, path);
    const char *h = ar->entry_hardlink(e);
    if (h) {
        if (strncmp(h, top, tn) != 0 || !plain_below(h + tn))
            return -1;
        snprintf(path, sizeof path, "%s/%s", dest, h + tn);
        ar->entry_copy_hardlink(e, path);
    }
    return 0;
}

static int unpack_entries(const struct pm_archive *ar, struct archive *in, struct archive *out, const char *top,
                          const char *dest, const struct wl_stop *stop, struct pm_err *err)
{
    struct archive_entry *e;
    int r;
    while ((r = ar->read_next_header(in, &e)) == ARCHIVE_OK) {
        if (stop->fn && stop->fn(stop->arg))
            return pm_errf(err, "interrupted");
        int k = rename_entry(ar, e, top, dest);
        if (k < 0)
            return pm_errf(err, "a member outside %s, or naming it with an empty, '.' or '..' part", top);
        if (k > 0)
            continue;
        /* Files, directories and links only, none set-id or writable by
         * others: nothing root would make a device node or a setuid
         * program of in its cache. */
        mode_t type = ar->entry_filetype(e);
        if (!ar->entry_hardlink(e) && type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
            return pm_errf(err, "a member that is neither a file, a directory nor a symbolic link");
        ar->entry_set_perm(e, ar->entry_perm(e) & 0755);
        if (ar->write_header(out, e) != ARCHIVE_OK)
            return pm_errf(err, "%s", ar->error_string(out));
        if (ar->entry_size(e) > 0 && copy_data(ar, in, out) != ARCHIVE_OK)
            return pm_errf(err, "%s", ar->error_string(in) ? ar->error_string(in) : ar->error_string(out));
        if (ar->write_finish_entry(out) != ARCHIVE_OK)
            return pm_errf(err, "%s", ar->error_string(out));
    }
    if (r != ARCHIVE_EOF)
        return pm_errf(err, "%s", ar->error_string(in));
    return 0;
}

static int unpack(int fd, const char *series, const char *dest, const struct wl_stop *stop, struct pm_err *err)
{
    char top[64];
    snprintf(top, sizeof top, "linux-source-%s/", series);
    const struct pm_archive *ar = pm_archive_lib(err);
    if (!ar)
        return -1;
    struct archive *in = ar->read_new(), *out = ar->write_disk_new();
    int rc = -1;
    if (!in || !out)
        pm_errf(err, "out of memory");
    else if (ar->read_support_filter_xz(in) != ARCHIVE_OK || ar->read_support_format_tar(in) != ARCHIVE_OK ||
             ar->read_open_fd(in, fd, 1 << 16) != ARCHIVE_OK)
        pm_errf(err, "%s", ar->error_string(in));
    /* Every member's name is made absolute below dest here (rename_entry),
     * so libarchive's refusal of absolute names cannot be asked for; its
     * refusals of ".." and of writing through a link are. */
    else if (ar->write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                                     ARCHIVE_EXTRACT_SECURE_NODOTDOT) != ARCHIVE_OK)
        pm_errf(err, "%s", ar->error_string(out));
    else
        rc = unpack_entries(ar, in, out, top, dest, stop, err);
    if (out && ar->write_close(out) != ARCHIVE_OK && rc == 0)
        rc = pm_errf(err, "%s", ar->error_string(out));
    if (in)
        ar->read_free(in);
    if (out)
        ar->write_free(out);
    return rc;
}

/* "6.1.192" from the top Makefile's VERSION, PATCHLEVEL and SUBLEVEL. */
static int tree_version(const char *src, char *out, size_t len)
{
    char path[4200], buf[4096];
    snprintf(path, sizeof path, "%s/Makefile", src);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    /* From a newline, so that a first line is found as the others are. */
    buf[0] = '\n';
    size_t n = fread(buf + 1, 1, sizeof buf - 2, f);
    fclose(f);
    buf[n + 1] = '\0';
    unsigned v[3];
    const char *keys[3] = { "\nVERSION = ", "\nPATCHLEVEL = ", "\nSUBLEVEL = " };
    for (int i = 0; i < 3; i++) {
        const char *p = strstr(buf, keys[i]);
        if (!p || sscanf(p + strlen(keys[i]), "%u", &v[i]) != 1)
            return -1;
    }
    snprintf(out, len, "%u.%u.%u", v[0], v[1], v[2]);
    return 0;
}

/* Write what marks a directory whole: the tree's version. */
static int mark(const char *dir, const char *version, struct pm_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/" MARK, dir);
    FILE *f = pm_create_file(path);
    if (!f || fprintf(f, "%s\n", version) < 0 || fclose(f) != 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    return 0;
}

static bool marked(const char *dir, char *version, size_t len)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/" MARK, dir);
    return pm_read_file(path, version, len) == 0 && version[0];
}

/* Put tmp in dir's place; one made meanwhile by another pressmark wins. */
static int commit_dir(const char *tmp, const char *dir, char *version, size_t vlen, FILE *say, struct pm_err *err)
{
    if (rename(tmp, dir) == 0)
        return 0;
    int e = errno;
    if (pm_remove_all(tmp) < 0)
        fprintf(say, "pressmark: cannot remove %s: %s\n", tmp, strerror(errno));
    if (marked(dir, version, vlen))
        return 0;
    return pm_errf(err, "%s: %s", dir, strerror(e));
}

static int ensure_source(const char *series, int fd, const char *tar, const char *keydir, char *src, size_t len,
                         char *version, size_t vlen, bool *unpacked, const struct wl_stop *stop, FILE *say,
                         struct pm_err *err)
{
    snprintf(src, len, "%s/src", keydir);
    if (marked(src, version, vlen))
        return 0;
    *unpacked = true;
    if (pm_path_exists(src) && pm_remove_all(src) < 0)
        return pm_errf(err, "%s: cannot remove what is not whole: %s", src, strerror(errno));
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", src, (int)getpid());
    fprintf(say, "pressmark: unpacking %s into %s, once\n", tar, src);
    int rc = mkdir(tmp, 0755) < 0 ? pm_errf(err, "%s: %s", tmp, strerror(errno)) : unpack(fd, series, tmp, stop, err);
    struct stat st;
    if (rc == 0 && (lstat(tmp, &st) < 0 || !S_ISDIR(st.st_mode)))
        rc = pm_errf(err, "the tree is no longer a directory of its own");
    if (rc == 0 && tree_version(tmp, version, vlen) < 0)
        rc = pm_errf(err, "its Makefile names no VERSION, PATCHLEVEL and SUBLEVEL");
    if (rc == 0)
        rc = mark(tmp, version, err);
    if (rc == 0)
        return commit_dir(tmp, src, version, vlen, say, err);
    pm_err_prefix(err, "%s: cannot unpack it", tar);
    if (pm_remove_all(tmp) < 0)
        fprintf(say, "pressmark: cannot remove %s: %s\n", tmp, strerror(errno));
    return -1;
}

/* make -C src O=tmp KCONFIG, its output in the key directory's
 * KCONFIG.config.log (kept: the last configuration's, for whoever asks). */
static int configure(const char *src, const char *keydir, const char *tmp, const char *kconfig,
                     const struct wl_stop *stop, struct pm_err *err)
{
    if (mkdir(tmp, 0755) < 0)
        return pm_errf(err, "%s: %s", tmp, strerror(errno));
    char log[4200], o[4200];
    snprintf(log, sizeof log, "%s/%s.config.log", keydir, kconfig);
    snprintf(o, sizeof o, "O=%s", tmp);
    int fd = pm_open_output(log, O_TRUNC);
    if (fd < 0)
        return pm_errf(err, "%s: %s", log, strerror(errno));
    char *argv[] = { "make", "-C", (char *)src, o, (char *)kconfig, NULL };
    int rc = wl_make_plain(argv, fd, keydir, stop, err);
    close(fd);
    if (rc > 0)
        return pm_errf(err, "make %s failed (its output: %s)", kconfig, log);
    return rc;
}

static int ensure_config(const char *src, const char *keydir, const char *kconfig, const char *version,
                         char *objdir, size_t len, const struct wl_stop *stop, FILE *say, struct pm_err *err)
{
    char have[64];
    snprintf(objdir, len, "%s/%s", keydir, kconfig);
    if (marked(objdir, have, sizeof have))
        return 0;
    if (pm_path_exists(objdir) && pm_remove_all(objdir) < 0)
        return pm_errf(err, "%s: cannot remove what is not whole: %s", objdir, strerror(errno));
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", objdir, (int)getpid());
    fprintf(say, "pressmark: configuring %s (make %s) in %s, once\n", version, kconfig, objdir);
    int rc = configure(src, keydir, tmp, kconfig, stop, err);
    if (rc == 0)
        rc = mark(tmp, version, err);
    if (rc == 0)
        return commit_dir(tmp, objdir, have, sizeof have, say, err);
    if (pm_remove_all(tmp) < 0)
        fprintf(say, "pressmark: cannot remove %s: %s\n", tmp, strerror(errno));
    return -1;
}

int linux_source_ensure(const char *series, const char *kconfig, char *objdir, size_t len, char *version,
                        size_t vlen, const struct wl_stop *stop, FILE *say, struct pm_err *err)
{
    if (linux_source_check(series, err) < 0 || linux_source_check_kconfig(kconfig, err) < 0)
        return -1;
    char root[4096], tar[4200], keydir[4400], src[4500];
    struct stat st;
    int fd;
    if (pm_cache_dir(root, sizeof root, err) < 0 || open_tarball(series, &fd, &st, tar, sizeof tar, err) < 0)
        return -1;
    char base[4200], key[64];
    snprintf(base, sizeof base, "%s/linux", root);
    snprintf(key, sizeof key, "%s-%lld-%lld", series, (long long)st.st_size, (long long)st.st_mtime);
    snprintf(keydir, sizeof keydir, "%s/%s", base, key);
    int rc = pm_mkdirs(keydir) < 0 ? pm_errf(err, "%s: %s", keydir, strerror(errno)) : 0;
    bool unpacked = false;
    if (rc == 0) {
        remove_stale(keydir, say);
        rc = ensure_source(series, fd, tar, keydir, src, sizeof src, version, vlen, &unpacked, stop, say, err);
    }
    close(fd);
    if (rc < 0)
        return -1;
    if (unpacked)
        remove_others(base, series, key, say);
    return ensure_config(src, keydir, kconfig, version, objdir, len, stop, say, err);
}
