/* pgbench's per-transaction logs (pglogs.h). */
#include "workloads/pglogs.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "figures/figures.h"

/* The server's directory, opened below root's without following a link. */
static int open_srv(const struct kv_server *s, struct pm_err *err)
{
    int d = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = d < 0 ? -1 : openat(d, "pressmark-srv", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    if (d >= 0)
        close(d);
    return fd < 0 ? pm_errf(err, "%s: %s", s->srv, strerror(e)) : fd;
}

/* One log opened and checked: a regular file of the server's user with
 * one link (a FIFO would block, a link could name root's files). */
static int open_log(int srv, const struct kv_server *s, const char *name, struct stat *st, struct pm_err *err)
{
    int fd = openat(srv, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return pm_errf(err, "%s/%s: %s", s->srv, name, errno == ELOOP ? "a symbolic link" : strerror(errno));
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_uid != s->uid || st->st_nlink != 1) {
        close(fd);
        return pm_errf(err, "%s/%s: not a regular file of user %s's with one link", s->srv, name, s->user);
    }
    return fd;
}

/* fd's size bytes appended to buf[*len..), read whole. */
static int append(int fd, const char *name, char *buf, size_t *len, size_t size, struct pm_err *err)
{
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(fd, buf + *len + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return pm_errf(err, "%s: %s", name, n < 0 ? strerror(errno) : "shorter than its size");
        got += (size_t)n;
    }
    *len += size;
    return 0;
}

/* Each log's open descriptor and size, first; then read. */
int pg_logs_read(const struct kv_server *s, pid_t pid, unsigned jobs, char **text, size_t *len, struct pm_err *err)
{
    *text = NULL;
    *len = 0;
    int srv = open_srv(s, err), fds[256];
    if (srv < 0)
        return -1;
    if (jobs == 0 || jobs > sizeof fds / sizeof fds[0]) {
        close(srv);
        return pm_errf(err, "internal: %u threads' logs", jobs);
    }
    uint64_t total = 0;
    size_t sizes[256];
    unsigned opened = 0;
    int r = 0;
    for (; r == 0 && opened < jobs; opened++) {
        char name[64];
        struct stat st;
        snprintf(name, sizeof name, opened ? PG_LOG_NAME ".%d.%u" : PG_LOG_NAME ".%d", (int)pid, opened);
        if ((fds[opened] = open_log(srv, s, name, &st, err)) < 0) {
            r = -1;
            break;
        }
        sizes[opened] = (size_t)st.st_size;
        total += (uint64_t)st.st_size;
    }
    close(srv);
    if (r == 0 && total <= FIGURES_MAX_TEXT && !(*text = malloc((size_t)total + 1)))
        r = pm_errf(err, "out of memory for %llu bytes of logs", (unsigned long long)total);
    for (unsigned i = 0; r == 0 && *text && i < opened; i++)
        r = append(fds[i], "pgbench's log", *text, len, sizes[i], err);
    for (unsigned i = 0; i < opened; i++)
        close(fds[i]);
    if (r < 0) {
        free(*text);
        *text = NULL;
    } else if (*text) {
        (*text)[*len] = '\0';
    } else {
        *len = (size_t)total;
    }
    return r;
}
