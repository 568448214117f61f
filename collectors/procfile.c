#include "collectors/collector.h"
#include "collectors/source.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void procfile_collector_init(struct collector *c, const char *source, const char *path,
                             const char *prefix, proc_parse_fn parse)
{
    memset(c, 0, sizeof *c);
    c->ops = &procfile_collector_ops;
    c->source = source;
    snprintf(c->path, sizeof c->path, "%s", path);
    snprintf(c->prefix, sizeof c->prefix, "%s", prefix);
    c->parse = parse;
    c->fd = -1;
}

ssize_t pread_whole(int fd, char **buf, size_t *cap, const char *path, struct pm_err *err)
{
    for (;;) {
        ssize_t n = pread(fd, *buf, *cap, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return pm_errf(err, "%s: %s", path, strerror(errno));
        }
        /* A full buffer may mean a truncated file: grow and read again, since
         * seq_file regenerates the whole text for a read at offset 0. */
        if ((size_t)n < *cap)
            return n;
        size_t ncap = *cap * 2;
        char *b = realloc(*buf, ncap);
        if (!b)
            return pm_errf(err, "%s: out of memory", path);
        *buf = b;
        *cap = ncap;
    }
}

ssize_t procfile_read(struct collector *c, struct pm_err *err)
{
    return pread_whole(c->fd, &c->buf, &c->bufcap, c->path, err);
}

static int procfile_open(struct collector *c, struct pm_err *err)
{
    c->fd = open(c->path, O_RDONLY | O_CLOEXEC);
    if (c->fd < 0)
        return pm_errf(err, "%s: %s", c->path, strerror(errno));
    c->bufcap = 16384;
    c->buf = malloc(c->bufcap);
    if (!c->buf) {
        close(c->fd);
        c->fd = -1;
        return pm_errf(err, "%s: out of memory", c->path);
    }
    /* A file that exists but cannot be read (PSI disabled at boot answers
     * EOPNOTSUPP) is as absent as a missing one: find out now, not per tick. */
    ssize_t n = procfile_read(c, err);
    if (n < 0) {
        free(c->buf);
        c->buf = NULL;
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    return 0;
}

static int procfile_sample(struct collector *c, struct sink *sink, struct pm_err *err)
{
    ssize_t n = procfile_read(c, err);
    if (n < 0)
        return -1;
    if (c->parse(c->buf, (size_t)n, c->prefix, sink) < 0)
        return pm_errf(err, "%s: unexpected format", c->path);
    return 0;
}

static void procfile_close(struct collector *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
}

const struct collector_ops procfile_collector_ops = {
    .open = procfile_open,
    .sample = procfile_sample,
    .close = procfile_close,
};

struct collector *source_next(struct source_set *ss)
{
    return ss->n < PM_MAX_SOURCES ? &ss->cols[ss->n++] : NULL;
}

void source_add_file(struct source_set *ss, const char *source, const char *dir, const char *file,
                     const char *prefix, proc_parse_fn parse)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    struct collector *c = source_next(ss);
    if (c)
        procfile_collector_init(c, source, path, prefix, parse);
}
