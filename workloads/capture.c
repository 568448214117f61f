#include "workloads/capture.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Bytes read: the part within keep appended, the rest only counted. */
static int take(struct capture *c, const char *buf, size_t n)
{
    c->total += n;
    size_t room = c->len < c->keep ? c->keep - c->len : 0;
    size_t k = n < room ? n : room;
    if (k == 0)
        return 0;
    if (c->len + k + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 65536;
        while (cap < c->len + k + 1)
            cap *= 2;
        if (cap > c->keep + 1)
            cap = c->keep + 1;
        char *d = realloc(c->data, cap);
        if (!d)
            return -1;
        c->data = d;
        c->cap = cap;
    }
    memcpy(c->data + c->len, buf, k);
    c->len += k;
    c->data[c->len] = '\0';
    return 0;
}

/* Read what the pipe holds now: 1 at its end or when it would block, 0 to
 * go on polling, -1 on an error (c->error). */
static int drain(struct capture *c, bool until_empty)
{
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(c->rfd, buf, sizeof buf);
        if (n > 0) {
            if (take(c, buf, (size_t)n) < 0) {
                c->error = ENOMEM;
                return -1;
            }
            continue;
        }
        if (n == 0)
            return 1;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            return until_empty ? 1 : 0;
        c->error = errno;
        return -1;
    }
}

/* Until the pipe ends, or until the command has exited and the pipe is
 * empty: a child left behind with the pipe open keeps it from ending, and
 * nothing it writes after its parent's exit is the run's. */
static void *reader(void *arg)
{
    struct capture *c = arg;
    struct pollfd p[2] = { { c->rfd, POLLIN, 0 }, { c->stopfd, POLLIN, 0 } };
    for (;;) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            c->error = errno;
            return NULL;
        }
        bool stop = p[1].revents != 0;
        if (p[0].revents && drain(c, false) != 0)
            return NULL;
        if (stop) {
            drain(c, true);
            return NULL;
        }
    }
}

int capture_start(struct capture *c, size_t keep, struct pm_err *err)
{
    int p[2];
    memset(c, 0, sizeof *c);
    c->fd = c->rfd = c->stopfd = -1;
    c->keep = keep;
    if (pipe2(p, O_CLOEXEC) < 0)
        return pm_errf(err, "a pipe for the command's output: %s", strerror(errno));
    c->rfd = p[0];
    c->fd = p[1];
    if (fcntl(c->rfd, F_SETFL, O_NONBLOCK) < 0 || (c->stopfd = eventfd(0, EFD_CLOEXEC)) < 0) {
        int e = errno;
        capture_free(c);
        return pm_errf(err, "a pipe for the command's output: %s", strerror(e));
    }
    int e = pthread_create(&c->thread, NULL, reader, c);
    if (e != 0) {
        capture_free(c);
        return pm_errf(err, "a thread for the command's output: %s", strerror(e));
    }
    c->started = true;
    return 0;
}

void capture_spawned(struct capture *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

int capture_finish(struct capture *c, struct pm_err *err)
{
    capture_spawned(c);
    if (!c->started)
        return 0;
    uint64_t one = 1;
    ssize_t w;
    do
        w = write(c->stopfd, &one, sizeof one);
    while (w < 0 && errno == EINTR);
    /* A failed write leaves the reader to the pipe's end; the command has
     * exited, so only a child it left could hold that off. */
    int e = pthread_join(c->thread, NULL);
    c->started = false;
    if (e != 0)
        return pm_errf(err, "the command's output: %s", strerror(e));
    if (c->error)
        return pm_errf(err, "the command's output: %s", strerror(c->error));
    if (!c->data && !(c->data = calloc(1, 1)))
        return pm_errf(err, "the command's output: out of memory");
    return 0;
}

void capture_free(struct capture *c)
{
    if (c->started)
        (void)capture_finish(c, &(struct pm_err){ "" });
    capture_spawned(c);
    if (c->rfd >= 0)
        close(c->rfd);
    if (c->stopfd >= 0)
        close(c->stopfd);
    free(c->data);
    memset(c, 0, sizeof *c);
    c->fd = c->rfd = c->stopfd = -1;
}
