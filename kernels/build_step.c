#include "kernels/build_step.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/spawn.h"
#include "pressure/undo.h"

/* Run a step with its output in log; on failure err names the step and
 * ends with the log's last line, where tools say what went wrong. */
int build_step(char *const *argv, const char *dir, const char *log, const char *what, struct pm_err *err)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", log, strerror(errno));
    /* die_with_parent: a killed pressmark's recovery removes the build
     * directory, which no dpkg of its may still be writing into. */
    struct pm_spawn sp = { .argv = argv, .dir = dir, .in = PM_FD_NULL, .out = fd, .err = fd, .what = what,
                           .die_with_parent = true };
    struct pm_err e;
    int rc = pm_spawn_run(&sp, &e);
    close(fd);
    if (rc == 0)
        return 0;
    char tail[4096] = "", last[400] = "";
    FILE *f = fopen(log, "re");
    if (f) {
        while (fgets(tail, sizeof tail, f))
            if (tail[0] != '\n')
                snprintf(last, sizeof last, "%s", tail);
        fclose(f);
    }
    last[strcspn(last, "\n")] = '\0';
    /* A failed build's log is kept as last-failed-build.log in the cache. */
    const char *sl = strrchr(log, '/');
    char bdir[PATH_MAX];
    snprintf(bdir, sizeof bdir, "%.*s", sl ? (int)(sl - log) : 0, log);
    sl = strrchr(bdir, '/');
    return pm_errf(err, "%s%s%s (log: %.*s/last-failed-build.log)", e.msg, last[0] ? ": " : "", last,
                   sl ? (int)(sl - bdir) : 0, bdir);
}

int build_write_text(const char *path, const char *text, mode_t mode, struct pm_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
    size_t n = strlen(text);
    if (fd < 0 || write(fd, text, n) != (ssize_t)n || fchmod(fd, mode) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return pm_errf(err, "%s: %s", path, strerror(e));
    }
    if (close(fd) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    return 0;
}

int build_step_in_root(const char *root, char *const *argv, const char *log, const char *what, struct pm_err *err)
{
    size_t n = 0;
    while (argv[n])
        n++;
    char rootopt[PATH_MAX + 16];
    snprintf(rootopt, sizeof rootopt, "--root=%s", root);
    /* No /proc inside (its sysctls answer to uid 0, whatever the
     * capabilities), a session of its own (no terminal to inject into), a
     * clean environment (no token of the host's), and of root's
     * capabilities only those that installing files needs: not
     * dac_read_search (open_by_handle_at reaches the host's files from
     * any descriptor), not setpcap, none inheritable or ambient. */
    char *pre[] = { "unshare", "--fork", "--kill-child", "--pid", "--mount", "--net", "--ipc", "--uts", rootopt, "--",
                    "/usr/bin/setsid", "--wait", "/usr/bin/setpriv",
                    "--bounding-set=-all,+chown,+dac_override,+fowner,+fsetid,+setuid,+setgid,+setfcap,+kill",
                    "--inh-caps=-all", "--ambient-caps=-all", "--", "/usr/bin/env", "-i",
                    "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8" };
    size_t k = sizeof pre / sizeof pre[0];
    char **all = calloc(k + n + 1, sizeof *all);
    if (!all)
        return pm_errf(err, "out of memory");
    memcpy(all, pre, sizeof pre);
    memcpy(all + k, argv, n * sizeof *argv);
    int rc = build_step(all, NULL, log, what, err);
    free(all);
    return rc;
}

static int copy_fd(int in, const char *from, const char *to, mode_t mode, struct pm_err *err);

int build_copy_from_root(const char *root, const char *rel, const char *to, mode_t mode, struct pm_err *err)
{
    int in = pm_open_beneath(root, rel);
    struct stat st;
    if (in < 0)
        return pm_errf(err, "%s/%s: %s", root, rel,
                       errno == ELOOP || errno == EXDEV ? "a link (refused: the guest's root is not trusted)" : strerror(errno));
    /* A boot file is a regular file of a size a kernel's files have (a
     * sparse one of a terabyte would fill the cache). */
    if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > BUILD_ROOT_FILE_MAX) {
        close(in);
        return pm_errf(err, "%s/%s: not a regular file of at most %lld bytes", root, rel, (long long)BUILD_ROOT_FILE_MAX);
    }
    char from[PATH_MAX + 256];
    snprintf(from, sizeof from, "%s/%s", root, rel);
    return copy_fd(in, from, to, mode, err);
}

int build_copy_file(const char *from, const char *to, mode_t mode, struct pm_err *err)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return pm_errf(err, "%s: %s", from, strerror(errno));
    return copy_fd(in, from, to, mode, err);
}

int build_copy_config(const char *from, const char *to, uid_t owner, struct pm_err *err)
{
    /* Not a link, not a FIFO (O_NONBLOCK: the open itself cannot hang),
     * a regular file of a configuration's size, made by root or by whoever
     * made the kernel, and writable by nobody else. */
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (in < 0)
        return pm_errf(err, "%s: %s", from, strerror(errno));
    if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > BUILD_CONFIG_MAX ||
        (st.st_uid != 0 && st.st_uid != owner) || (st.st_mode & 022)) {
        close(in);
        return pm_errf(err, "%s: not a kernel configuration of this kernel's (accepted: a regular file of at most "
                       "%d MiB, owned by root or the kernel's owner, writable by nobody else)", from,
                       BUILD_CONFIG_MAX >> 20);
    }
    int fl = fcntl(in, F_GETFL);
    if (fl < 0 || fcntl(in, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        close(in);
        return pm_errf(err, "%s: %s", from, strerror(errno));
    }
    return copy_fd(in, from, to, 0644, err);
}

/* Copies in's bytes into to; closes in. */
static int copy_fd(int in, const char *from, const char *to, mode_t mode, struct pm_err *err)
{
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
    if (out < 0) {
        close(in);
        return pm_errf(err, "%s: %s", to, strerror(errno));
    }
    char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            rc = -1;
            break;
        }
    if (n < 0 || (rc == 0 && fchmod(out, mode) < 0))
        rc = -1;
    int e = errno;
    close(in);
    if (close(out) < 0)
        rc = -1;
    return rc < 0 ? pm_errf(err, "copying %s to %s: %s", from, to, strerror(e)) : 0;
}

/* A build directory in the cache, journalled: a pressmark killed while
 * building leaves nothing half-made behind after the next start. */
int build_dir_make(const char *cache, char *dir, size_t len, int *undo_id, struct pm_err *err)
{
    snprintf(dir, len, "%s/pressmark-build-XXXXXX", cache);
    if (!mkdtemp(dir))
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    if ((*undo_id = undo_push(UNDO_TREE, dir, "", err)) < 0) {
        rmdir(dir);
        return -1;
    }
    return 0;
}

/* A failed step's log outlives its build directory: step's err names it. */
void build_keep_log(const char *cache, const char *log)
{
    char kept[PATH_MAX + 32];
    snprintf(kept, sizeof kept, "%s/last-failed-build.log", cache);
    rename(log, kept);
}

void build_dir_drop(const char *dir, int undo_id)
{
    pm_remove_all(dir);
    undo_done(undo_id);
}

