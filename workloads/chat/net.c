#include "workloads/chat/net.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>

#define CHAT_STACK (128 * 1024)

int chat_parse_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len, struct pm_err *err)
{
    char host[256], port[16];
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || !colon[1] || strlen(colon + 1) >= sizeof port)
        return pm_errf(err, "'%s' is not an address (accepted: HOST:PORT, e.g. 127.0.0.1:8000, [::1]:8000)", text);
    size_t hl = (size_t)(colon - text);
    if (text[0] == '[' && hl >= 2 && text[hl - 1] == ']') {
        text++;
        hl -= 2;
    }
    if (hl >= sizeof host)
        return pm_errf(err, "'%s': host name too long", text);
    memcpy(host, text, hl);
    host[hl] = '\0';
    snprintf(port, sizeof port, "%s", colon + 1);
    char *end;
    long p = strtol(port, &end, 10);
    if (*end || p < 0 || p > 65535)
        return pm_errf(err, "'%s' is not a port (accepted: 0 to 65535)", port);
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV }, *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc)
        return pm_errf(err, "'%s': %s", host, gai_strerror(rc));
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

void chat_raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int chat_thread(pthread_t *t, void *(*fn)(void *), void *arg, bool detached)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, CHAT_STACK);
    if (detached)
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(t, &a, fn, arg);
    pthread_attr_destroy(&a);
    return rc;
}

struct shared_frame *chat_shared_frame_new(const uint8_t *data, size_t len, int refs)
{
    struct shared_frame *f = malloc(sizeof *f + len);
    if (!f)
        return NULL;
    f->refs = refs;
    f->len = len;
    memcpy(f->data, data, len);
    return f;
}

static void chat_shared_frame_unref(struct shared_frame *f)
{
    if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(f);
}

void chat_outq_init(struct outq *q)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
}

void chat_outq_destroy(struct outq *q)
{
    for (size_t i = 0; i < q->n; i++)
        chat_shared_frame_unref(q->v[(q->head + i) % q->cap]);
    free(q->v);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

bool chat_outq_push(struct outq *q, struct shared_frame *f)
{
    pthread_mutex_lock(&q->mu);
    if (q->closing) {
        pthread_mutex_unlock(&q->mu);
        chat_shared_frame_unref(f);
        return false;
    }
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 16;
        struct shared_frame **v = malloc(cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&q->mu);
            chat_shared_frame_unref(f);
            return false;
        }
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n) % q->cap] = f;
    q->n++;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return true;
}

void chat_outq_close(struct outq *q)
{
    pthread_mutex_lock(&q->mu);
    q->closing = true;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

void chat_outq_drain(struct outq *q, int fd)
{
    enum { BATCH = 64 };
    struct shared_frame *batch[BATCH];
    struct iovec iov[BATCH];
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (q->n == 0 && !q->closing)
            pthread_cond_wait(&q->cv, &q->mu);
        if (q->n == 0 && q->closing) {
            pthread_mutex_unlock(&q->mu);
            return;
        }
        /* Frames keep their FIFO order; sending the ones already queued
         * in one writev costs one system call instead of one each. */
        size_t k = 0;
        while (k < BATCH && q->n > 0) {
            batch[k] = q->v[q->head];
            q->head = (q->head + 1) % q->cap;
            q->n--;
            k++;
        }
        pthread_mutex_unlock(&q->mu);
        for (size_t i = 0; i < k; i++)
            iov[i] = (struct iovec){ batch[i]->data, batch[i]->len };
        size_t first = 0;
        bool ok = true;
        while (first < k && ok) {
            struct msghdr mh = { .msg_iov = iov + first, .msg_iovlen = k - first };
            ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                ok = false;
                break;
            }
            while (first < k && (size_t)n >= iov[first].iov_len) {
                n -= (ssize_t)iov[first].iov_len;
                first++;
            }
            if (first < k && n > 0) {
                iov[first].iov_base = (uint8_t *)iov[first].iov_base + n;
                iov[first].iov_len -= (size_t)n;
            }
        }
        for (size_t i = 0; i < k; i++)
            chat_shared_frame_unref(batch[i]);
        if (!ok) {
            pthread_mutex_lock(&q->mu);
            q->failed = true;
            q->closing = true;
            pthread_mutex_unlock(&q->mu);
            return;
        }
    }
}
