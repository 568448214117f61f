#ifndef PM_CHAT_NET_H
#define PM_CHAT_NET_H
/* What both sides of the chat need: addresses, limits, small threads, and
 * a per-connection FIFO of frames drained by a sender thread. */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "lib/err.h"

/* "127.0.0.1:8000", "[::1]:8000", "host:port". */
int chat_parse_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len, struct pm_err *err);
/* Raise RLIMIT_NOFILE to its hard limit: a real run needs one descriptor
 * per connection per side. */
void chat_raise_nofile(void);
/* Start a thread with a small stack (thousands of them per side). */
int chat_thread(pthread_t *t, void *(*fn)(void *), void *arg, bool detached);

/* A frame shared by every queue it was sent to. */
struct shared_frame {
    int refs;                /* guarded by the queues' owners through atomics */
    size_t len;
    uint8_t data[];
};
struct shared_frame *chat_shared_frame_new(const uint8_t *data, size_t len, int refs);

struct outq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct shared_frame **v;
    size_t head, n, cap;
    bool closing;            /* no more frames: the sender drains and stops */
    bool failed;             /* a write failed */
};
void chat_outq_init(struct outq *q);
void chat_outq_destroy(struct outq *q);
/* Takes one reference of f. False when the queue is closing. */
bool chat_outq_push(struct outq *q, struct shared_frame *f);
void chat_outq_close(struct outq *q);
/* The sender thread's loop: writes frames (several per writev) until
 * closed and drained or a write fails. */
void chat_outq_drain(struct outq *q, int fd);

#endif
