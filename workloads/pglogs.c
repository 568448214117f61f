/* pgbench's per-transaction logs (pglogs.h). */
#include "workloads/pglogs.h"
#include <errno.h>
#include <fcntl.h>
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

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
           S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

/* One log opened and checked: a regular file of the server's user with
 * one link (a FIFO would block, a link could name root's files; opened
 * non-blocking, so neither waits before fstat says what it is). */
static int open_log(int srv, const struct kv_server *s, const char *name, struct stat *st, struct pm_err *err)
{
    int fd = openat(srv, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return pm_errf(err, "%s/%s: %s", s->srv, name, errno == ELOOP ? "a symbolic link" : strerror(errno));
    if (fstat(fd, st) < 0)
        pm_errf(err, "%s/%s: %s", s->srv, name, strerror(errno));
    else if (!S_ISREG(st->st_mode))
        pm_errf(err, "%s/%s: %s, not pgbench's log (a regular file)", s->srv, name, kind_of(st->st_mode));
    else if (st->st_uid != s->uid)
        pm_errf(err, "%s/%s: owned by uid %u, not by the server's user %s (uid %u)", s->srv, name,
                (unsigned)st->st_uid, s->user, (unsigned)s->uid);
    else if (st->st_nlink != 1)
        pm_errf(err, "%s/%s: %ju links, where pgbench's log has one", s->srv, name, (uintmax_t)st->st_nlink);
    else
        return fd;
    close(fd);
    return -1;
}

static void close_all(struct pg_logs *l)
{
    for (unsigned i = 0; i < l->n; i++)
        close(l->fd[i]);
    l->n = 0;
}

int pg_logs_open(const struct kv_server *s, pid_t pid, unsigned jobs, struct pg_logs *l, struct pm_err *err)
{
    memset(l, 0, sizeof *l);
    if (jobs == 0 || jobs > PG_JOBS_MAX)
        return pm_errf(err, "internal: %u threads' logs", jobs);
    int srv = open_srv(s, err);
    if (srv < 0)
        return -1;
    for (; l->n < jobs; l->n++) {
        char name[64];
        struct stat st;
        snprintf(name, sizeof name, l->n ? PG_LOG_NAME ".%d.%u" : PG_LOG_NAME ".%d", (int)pid, l->n);
        if ((l->fd[l->n] = open_log(srv, s, name, &st, err)) < 0) {
            close(srv);
            close_all(l);
            return -1;
        }
        /* Each size against what is left of the bound, never a sum that
         * could wrap: the server's user sets them (ftruncate). */
        uint64_t size = st.st_size < 0 ? UINT64_MAX : (uint64_t)st.st_size;
        l->size[l->n] = size;
        l->over = l->over || size > FIGURES_MAX_TEXT - l->total;
        l->total = size > UINT64_MAX - l->total ? UINT64_MAX : l->total + size;
    }
    close(srv);
    return 0;
}

/* fd's size bytes appended to buf[*len..), read whole: a file that shrank
 * since it was measured is an error, and what it grew by is not read. */
static int append(int fd, unsigned i, char *buf, size_t *len, size_t size, struct pm_err *err)
{
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(fd, buf + *len + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return pm_errf(err, "pgbench's log of thread %u: %s", i,
                           n < 0 ? strerror(errno) : "shorter than when it was opened");
        got += (size_t)n;
    }
    *len += size;
    return 0;
}

int pg_logs_take(struct pg_logs *l, char **text, size_t *len, struct pm_err *err)
{
    *text = NULL;
    *len = 0;
    int r = 0;
    if (l->over) {
        *len = l->total > SIZE_MAX ? SIZE_MAX : (size_t)l->total;
    } else if (!(*text = malloc((size_t)l->total + 1))) {
        r = pm_errf(err, "out of memory for %llu bytes of logs", (unsigned long long)l->total);
    } else {
        for (unsigned i = 0; r == 0 && i < l->n; i++)
            r = append(l->fd[i], i, *text, len, (size_t)l->size[i], err);
        if (r == 0)
            (*text)[*len] = '\0';
    }
    close_all(l);
    if (r < 0) {
        free(*text);
        *text = NULL;
        *len = 0;
    }
    return r;
}

int pg_logs_read(const struct kv_server *s, pid_t pid, unsigned jobs, char **text, size_t *len, struct pm_err *err)
{
    struct pg_logs l;
    *text = NULL;
    *len = 0;
    if (pg_logs_open(s, pid, jobs, &l, err) < 0)
        return -1;
    return pg_logs_take(&l, text, len, err);
}
