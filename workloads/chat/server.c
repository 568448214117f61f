#include "workloads/chat/server.h"
#include "lib/alloc.h"
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "workloads/chat/heap.h"
#include "workloads/chat/net.h"
#include "workloads/chat/proto.h"

struct server;

struct sconn {
    struct server *srv;
    int fd;
    struct outq q;
    pthread_t tx;
    struct reader rd;
    bool accessed;
    struct room *room;           /* guarded by the room's mutex; NULL when in none */
    char user[64], profile[256];
};

struct room {
    char name[128];
    pthread_mutex_t mu;
    struct sconn **members;      /* in entry order */
    size_t n, cap;
    struct room *next;
};

struct server {
    struct chat_heap heap;
    pthread_mutex_t conns_mu;
    struct sconn **conns;        /* live connections, to end them on stop */
    size_t nconns, capconns;
    pthread_mutex_t rooms_mu;
    struct room *rooms;
    atomic_int active;
    atomic_bool ever;
    atomic_uint_fast64_t connections, chats;
    /* Set by the signal handler, read by every receiver thread: an atomic
     * (lock-free, so async-signal-safe), not a volatile, which only the
     * thread that took the signal could rely on. */
    atomic_bool stop;
};

static struct server *the_server;

static void on_signal(int sig)
{
    (void)sig;
    if (the_server)
        atomic_store(&the_server->stop, true);
}

static struct room *find_room(struct server *s, const char *name, bool create)
{
    pthread_mutex_lock(&s->rooms_mu);
    struct room *r = s->rooms;
    while (r && strcmp(r->name, name) != 0)
        r = r->next;
    if (!r && create && (r = calloc(1, sizeof *r))) {
        snprintf(r->name, sizeof r->name, "%s", name);
        pthread_mutex_init(&r->mu, NULL);
        r->next = s->rooms;
        s->rooms = r;
    }
    pthread_mutex_unlock(&s->rooms_mu);
    return r;
}

/* Queue a frame built in f to one connection (one heap message). A frame
 * that did not fit its buffer is a bug here, never sent truncated. */
static void send_to(struct sconn *c, const struct frame *f)
{
    if (f->bad) {
        fprintf(stderr, "pressmark chat-server: internal error: a frame did not fit its buffer\n");
        abort();
    }
    struct shared_frame *sf = chat_shared_frame_new(f->buf, f->len, 1);
    if (sf && chat_outq_push(&c->q, sf))
        chat_heap_message(&c->srv->heap);
}

/* Queue one frame to every member of r but skip (the room mutex held). */
static void broadcast(struct room *r, struct sconn *skip, const struct frame *f)
{
    if (f->bad) {
        fprintf(stderr, "pressmark chat-server: internal error: a frame did not fit its buffer\n");
        abort();
    }
    int n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += r->members[i] != skip;
    if (n == 0)
        return;
    struct shared_frame *sf = chat_shared_frame_new(f->buf, f->len, n);
    if (!sf)
        return;
    for (size_t i = 0; i < r->n; i++) {
        if (r->members[i] == skip)
            continue;
        if (chat_outq_push(&r->members[i]->q, sf))
            chat_heap_message(&skip->srv->heap);
    }
}

static void send_exit_indication(struct room *r, struct sconn *c)
{
    uint8_t buf[512];
    struct frame f;
    chat_frame_init(&f, buf, sizeof buf);
    chat_frame_u16(&f, PKT_EXIT_ROOM);
    chat_frame_i32(&f, CHAT_INDICATION);
    chat_frame_utf(&f, r->name);
    chat_frame_utf(&f, c->user);
    broadcast(r, c, &f);
}

/* Leave the room the connection is in, telling the others (once). */
static void leave_room(struct sconn *c)
{
    struct room *r = c->room;
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < r->n; i++) {
        if (r->members[i] == c) {
            memmove(&r->members[i], &r->members[i + 1], (r->n - i - 1) * sizeof *r->members);
            r->n--;
            break;
        }
    }
    send_exit_indication(r, c);
    c->room = NULL;
    pthread_mutex_unlock(&r->mu);
}

static bool handle_access(struct sconn *c)
{
    char room[128], version[64];
    if (!chat_read_utf_copy(&c->rd, room, sizeof room) || !chat_read_utf_copy(&c->rd, version, sizeof version))
        return false;
    for (int i = 0; i < 9; i++)             /* documentBase, codeBase and the JVM's properties */
        if (!chat_read_utf(&c->rd, NULL))
            return false;
    if (c->accessed)
        return false;                       /* one Access per connection */
    c->accessed = true;
    char *name = chat_trim(room);
    bool ok = strcmp(version, CHAT_APPLET_VERSION) == 0;
    if (ok && *name)
        find_room(c->srv, name, true);
    uint8_t buf[8192];
    struct frame f;
    chat_frame_init(&f, buf, sizeof buf);
    chat_frame_u16(&f, PKT_ACCESS);
    chat_frame_i32(&f, CHAT_CONFIRM);
    chat_frame_i32(&f, ok ? ACCESS_OKAY : ACCESS_VERSION_DENIED);
    pthread_mutex_lock(&c->srv->rooms_mu);
    int nrooms = 0;
    for (struct room *r = c->srv->rooms; r; r = r->next)
        nrooms++;
    chat_frame_i32(&f, ok ? nrooms : 0);
    for (struct room *r = c->srv->rooms; ok && r; r = r->next)
        chat_frame_utf(&f, r->name);
    pthread_mutex_unlock(&c->srv->rooms_mu);
    chat_frame_u8(&f, 0);
    send_to(c, &f);
    return ok;                              /* a refused client is disconnected, as the real server does */
}

static void enter_head(struct frame *f, int type, const char *profile, const char *room, const char *user)
{
    chat_frame_u16(f, PKT_ENTER_ROOM);
    chat_frame_i32(f, type);
    chat_frame_utf(f, profile);
    chat_frame_utf(f, room);
    chat_frame_utf(f, user);
}

static bool handle_enter(struct sconn *c)
{
    char profile[256], room[128], user[64];
    if (!chat_read_utf_copy(&c->rd, profile, sizeof profile) || !chat_read_utf_copy(&c->rd, room, sizeof room) ||
        !chat_read_utf_copy(&c->rd, user, sizeof user) || !c->accessed)
        return false;
    char *rname = chat_trim(room), *uname = chat_trim(user);
    if (!*uname)
        return false;
    struct room *r = find_room(c->srv, rname, false);
    uint8_t small[1024];
    struct frame f;
    int result = ENTER_OKAY;
    if (!r || c->room) {
        result = r ? ENTER_NAME_TAKEN : ENTER_NO_SUCH_ROOM;
    } else {
        pthread_mutex_lock(&r->mu);
        for (size_t i = 0; i < r->n; i++)
            if (strcmp(r->members[i]->user, uname) == 0)
                result = ENTER_NAME_TAKEN;
        if (result == ENTER_OKAY && r->n == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 32;
            struct sconn **m = realloc(r->members, cap * sizeof *m);
            if (!m) {
                pthread_mutex_unlock(&r->mu);
                return false;
            }
            r->members = m;
            r->cap = cap;
        }
        if (result == ENTER_OKAY) {
            snprintf(c->user, sizeof c->user, "%s", uname);
            snprintf(c->profile, sizeof c->profile, "%s", profile);
            r->members[r->n++] = c;
            c->room = r;
            chat_frame_init(&f, small, sizeof small);
            enter_head(&f, CHAT_INDICATION, profile, rname, uname);
            chat_frame_utf(&f, "");
            chat_frame_utf(&f, "false");
            chat_frame_utf(&f, "false");
            broadcast(r, c, &f);
            /* The confirm lists everyone, entrant included, in entry order. */
            size_t need = 64 + strlen(profile) + strlen(rname) + strlen(uname);
            /* Per member: name, profile, host "", member "false", link "false":
             * five 2-byte lengths plus 10 bytes of the two "false"s. */
            for (size_t i = 0; i < r->n; i++)
                need += 20 + strlen(r->members[i]->user) + strlen(r->members[i]->profile);
            uint8_t *big = malloc(need);
            if (big) {
                chat_frame_init(&f, big, need);
                enter_head(&f, CHAT_CONFIRM, profile, rname, uname);
                chat_frame_i32(&f, ENTER_OKAY);
                chat_frame_i32(&f, 1);
                chat_frame_i32(&f, (int32_t)r->n);
                chat_frame_i32(&f, (int32_t)r->n);
                for (size_t i = 0; i < r->n; i++) {
                    chat_frame_utf(&f, r->members[i]->user);
                    chat_frame_utf(&f, r->members[i]->profile);
                    chat_frame_utf(&f, "");
                    chat_frame_utf(&f, "false");
                    chat_frame_utf(&f, "false");
                }
                send_to(c, &f);
                free(big);
            }
            pthread_mutex_unlock(&r->mu);
            return true;
        }
        pthread_mutex_unlock(&r->mu);
    }
    chat_frame_init(&f, small, sizeof small);
    enter_head(&f, CHAT_CONFIRM, profile, rname, uname);
    chat_frame_i32(&f, result);
    chat_frame_i32(&f, 1);
    chat_frame_i32(&f, 0);
    chat_frame_i32(&f, 0);
    send_to(c, &f);
    return true;
}

static bool handle_chat(struct sconn *c)
{
    bool question;
    int32_t room_id;
    char room[128], user[64];
    size_t tlen;
    if (!chat_read_bool(&c->rd, &question) || !chat_read_i32(&c->rd, &room_id) || !chat_read_utf_copy(&c->rd, room, sizeof room) ||
        !chat_read_utf_copy(&c->rd, user, sizeof user) || !chat_read_utf(&c->rd, &tlen))
        return false;
    chat_heap_message(&c->srv->heap);
    char *text = chat_trim(c->rd.str);
    if (!*text)
        return false;                       /* the real server closes on empty text */
    char *rname = chat_trim(room);
    struct room *r = c->room;
    if (!r || strcmp(r->name, rname) != 0)
        return true;                        /* not in that room: ignored */
    atomic_fetch_add(&c->srv->chats, 1);
    size_t need = 64 + strlen(rname) + strlen(c->user) + 3 * strlen(text);
    uint8_t stackbuf[1024];
    uint8_t *buf = need <= sizeof stackbuf ? stackbuf : malloc(need);
    if (!buf)
        return false;
    struct frame f;
    chat_frame_init(&f, buf, need);
    chat_frame_u16(&f, PKT_CHAT);
    chat_frame_i32(&f, CHAT_INDICATION);
    chat_frame_bool(&f, question);
    chat_frame_i32(&f, 0);
    chat_frame_utf(&f, rname);
    chat_frame_utf(&f, c->user);
    chat_frame_utf(&f, text);
    pthread_mutex_lock(&r->mu);
    broadcast(r, c, &f);
    pthread_mutex_unlock(&r->mu);
    /* The sender's CONFIRM ("for pacing") after the indications. */
    chat_frame_init(&f, buf, need);
    chat_frame_u16(&f, PKT_CHAT);
    chat_frame_i32(&f, CHAT_CONFIRM);
    chat_frame_bool(&f, question);
    chat_frame_i32(&f, 0);
    chat_frame_utf(&f, rname);
    chat_frame_utf(&f, "");
    chat_frame_utf(&f, "");
    send_to(c, &f);
    if (buf != stackbuf)
        free(buf);
    return true;
}

static bool handle_roomlist(struct sconn *c)
{
    char filter[256];
    int32_t n;
    if (!chat_read_utf_copy(&c->rd, filter, sizeof filter) || !chat_read_i32(&c->rd, &n) || n < 0 || n > 100000)
        return false;
    for (int32_t i = 0; i < n; i++)
        if (!chat_read_utf(&c->rd, NULL))
            return false;
    uint8_t buf[16384];
    struct frame f;
    chat_frame_init(&f, buf, sizeof buf);
    chat_frame_u16(&f, PKT_ROOM_LIST);
    chat_frame_i32(&f, CHAT_CONFIRM);
    chat_frame_utf(&f, filter);
    size_t count_at = f.len;
    chat_frame_i32(&f, 0);
    int32_t count = 0;
    pthread_mutex_lock(&c->srv->rooms_mu);
    for (struct room *r = c->srv->rooms; r; r = r->next) {
        if (!*filter || strcasestr(r->name, filter)) {
            chat_frame_utf(&f, r->name);
            count++;
        }
    }
    pthread_mutex_unlock(&c->srv->rooms_mu);
    size_t end = f.len;
    f.len = count_at;
    chat_frame_i32(&f, count);
    f.len = end;
    send_to(c, &f);
    return true;
}

/* One frame from the client; false ends the connection. */
static bool handle_frame(struct sconn *c)
{
    uint16_t id;
    int32_t type;
    if (!chat_read_u16(&c->rd, &id) || !chat_read_i32(&c->rd, &type))
        return false;
    if (type != CHAT_REQUEST)
        return false;
    switch (id) {
    case PKT_ACCESS:
        return handle_access(c);
    case PKT_ENTER_ROOM:
        return handle_enter(c);
    case PKT_CHAT:
        return handle_chat(c);
    case PKT_EXIT_ROOM: {
        char room[128], user[64];
        if (!chat_read_utf_copy(&c->rd, room, sizeof room) || !chat_read_utf_copy(&c->rd, user, sizeof user))
            return false;
        leave_room(c);
        return true;
    }
    case PKT_ROOM_LIST:
        return handle_roomlist(c);
    case PKT_PING:
        return true;
    default:
        return false;                       /* unknown id: the connection ends */
    }
}

static void *sender_main(void *arg)
{
    struct sconn *c = arg;
    chat_outq_drain(&c->q, c->fd);
    /* A write that failed means the client is gone: wake the receiver. */
    shutdown(c->fd, SHUT_RD);
    return NULL;
}

static bool track(struct server *s, struct sconn *c)
{
    pthread_mutex_lock(&s->conns_mu);
    if (ALLOC_GROW(s->conns, s->nconns + 1, s->capconns) < 0) {
        pthread_mutex_unlock(&s->conns_mu);
        return false;
    }
    s->conns[s->nconns++] = c;
    pthread_mutex_unlock(&s->conns_mu);
    return true;
}

static void untrack(struct server *s, struct sconn *c)
{
    pthread_mutex_lock(&s->conns_mu);
    for (size_t i = 0; i < s->nconns; i++) {
        if (s->conns[i] == c) {
            s->conns[i] = s->conns[--s->nconns];
            break;
        }
    }
    pthread_mutex_unlock(&s->conns_mu);
}

static void *receiver_main(void *arg)
{
    struct sconn *c = arg;
    struct server *s = c->srv;
    chat_reader_init(&c->rd, c->fd);
    bool started = chat_thread(&c->tx, sender_main, c, false) == 0;
    if (started)
        while (!atomic_load(&s->stop) && handle_frame(c))
            ;
    leave_room(c);
    chat_outq_close(&c->q);
    if (started)
        pthread_join(c->tx, NULL);
    untrack(s, c);
    close(c->fd);
    chat_reader_free(&c->rd);
    chat_outq_destroy(&c->q);
    free(c);
    atomic_fetch_sub(&s->active, 1);
    return NULL;
}

__attribute__((format(printf, 2, 3)))
static int report(int fd, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (fd < 0) {
        fputs(line, stdout);
        fflush(stdout);
        return 0;
    }
    return write(fd, line, (size_t)n) == n ? 0 : -1;
}

/* A new connection gets its receiver thread (which starts its sender). */
static void serve_connection(struct server *s, int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sconn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return;
    }
    c->srv = s;
    c->fd = fd;
    chat_outq_init(&c->q);
    if (!track(s, c)) {
        chat_outq_destroy(&c->q);
        close(fd);
        free(c);
        return;
    }
    atomic_fetch_add(&s->active, 1);
    atomic_store(&s->ever, true);
    atomic_fetch_add(&s->connections, 1);
    pthread_t t;
    int rc = chat_thread(&t, receiver_main, c, true);
    if (rc) {
        fprintf(stderr, "pressmark chat-server: cannot start a thread: %s\n", strerror(rc));
        untrack(s, c);
        atomic_fetch_sub(&s->active, 1);
        chat_outq_destroy(&c->q);
        close(fd);
        free(c);
    }
}

/* An empty server: no rooms, no connections, its heap mapped. */
static int server_init(struct server *s, uint64_t heap, uint64_t msg_alloc)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->rooms_mu, NULL);
    pthread_mutex_init(&s->conns_mu, NULL);
    return chat_heap_init(&s->heap, heap, msg_alloc);
}

/* Connections still open (SIGTERM in network mode) are ended, and their
 * threads given a moment to finish, before the rooms go. */
static void server_shutdown(struct server *s)
{
    pthread_mutex_lock(&s->conns_mu);
    for (size_t i = 0; i < s->nconns; i++)
        shutdown(s->conns[i]->fd, SHUT_RDWR);
    pthread_mutex_unlock(&s->conns_mu);
    for (int i = 0; i < 500 && atomic_load(&s->active) > 0; i++) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    if (atomic_load(&s->active) != 0)
        return;
    while (s->rooms) {
        struct room *r = s->rooms;
        s->rooms = r->next;
        pthread_mutex_destroy(&r->mu);
        free(r->members);
        free(r);
    }
    free(s->conns);
    chat_heap_free(&s->heap);
}

/* The listening socket; its port (port 0 picks one) goes to *port. */
static int listen_on(const struct chat_server_config *cfg, const struct sockaddr_storage *ss, socklen_t sl, int *port)
{
    int one = 1;
    int lfd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(lfd, (const struct sockaddr *)ss, sl) < 0 || listen(lfd, 4096) < 0) {
        fprintf(stderr, "pressmark chat-server: cannot listen on %s: %s\n", cfg->listen, strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    struct sockaddr_storage bound;
    socklen_t bl = sizeof bound;
    getsockname(lfd, (struct sockaddr *)&bound, &bl);
    *port = ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port
                                             : ((struct sockaddr_in6 *)&bound)->sin6_port);
    return lfd;
}

static void handle_stop_signals(void)
{
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, SIGINT);
    sigaddset(&unblock, SIGTERM);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
}

int chat_server_main(const struct chat_server_config *cfg)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    struct pm_err err;
    if (chat_parse_addr(cfg->listen, &ss, &sl, &err) < 0) {
        fprintf(stderr, "pressmark chat-server: --listen: %s\n", err.msg);
        return 2;
    }
    chat_raise_nofile();
    struct server s;
    if (server_init(&s, cfg->heap, cfg->msg_alloc) < 0) {
        fprintf(stderr, "pressmark chat-server: cannot map a heap of %llu bytes\n", (unsigned long long)cfg->heap);
        return 1;
    }
    the_server = &s;
    handle_stop_signals();
    int port;
    int lfd = listen_on(cfg, &ss, sl, &port);
    if (lfd < 0)
        return 1;
    report(cfg->report_fd, "port %d\n", port);
    while (!atomic_load(&s.stop)) {
        if (cfg->once && atomic_load(&s.ever) && atomic_load(&s.active) == 0)
            break;
        struct pollfd pfd = { .fd = lfd, .events = POLLIN };
        if (poll(&pfd, 1, 100) <= 0)
            continue;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0)
            serve_connection(&s, fd);
        else if (errno == EMFILE || errno == ENFILE)
            fprintf(stderr, "pressmark chat-server: out of file descriptors (raise ulimit -n)\n");
    }
    close(lfd);
    server_shutdown(&s);
    report(cfg->report_fd, "server collections %llu connections %llu chats %llu\n",
           (unsigned long long)atomic_load(&s.heap.collections), (unsigned long long)atomic_load(&s.connections),
           (unsigned long long)atomic_load(&s.chats));
    return 0;
}

int chat_server_serve_streams(const uint8_t *const *data, const size_t *len, size_t n)
{
    enum { MAXN = 16 };
    if (n > MAXN)
        return -1;
    struct server s;
    if (server_init(&s, 1 << 20, 1024) < 0)
        return -1;
    int client[MAXN];
    size_t sent[MAXN] = { 0 };
    size_t open_clients = 0;
    for (size_t i = 0; i < n; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
            client[i] = -1;
            continue;
        }
        client[i] = sv[0];
        open_clients++;
        serve_connection(&s, sv[1]);
        if (len[i] == 0)
            shutdown(sv[0], SHUT_WR);
    }
    /* Every client writes its bytes and reads what comes back at once:
     * the server may answer before a client has said everything, and a
     * client that never read would stall its sender. */
    while (open_clients > 0) {
        struct pollfd pfd[MAXN];
        for (size_t i = 0; i < n; i++) {
            pfd[i].fd = client[i];
            pfd[i].events = POLLIN | (client[i] >= 0 && sent[i] < len[i] ? POLLOUT : 0);
        }
        if (poll(pfd, (nfds_t)n, 10000) <= 0)
            break;                              /* a server that neither reads nor ends: the caller sees a hang */
        for (size_t i = 0; i < n; i++) {
            if (client[i] < 0)
                continue;
            if ((pfd[i].revents & POLLOUT) && sent[i] < len[i]) {
                ssize_t w = send(client[i], data[i] + sent[i], len[i] - sent[i], MSG_DONTWAIT | MSG_NOSIGNAL);
                if (w > 0)
                    sent[i] += (size_t)w;
                if (w < 0 && errno != EAGAIN)
                    sent[i] = len[i];           /* the server closed: nothing more to say */
                if (sent[i] == len[i])
                    shutdown(client[i], SHUT_WR);
            }
            if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                uint8_t sink[16384];
                ssize_t r = recv(client[i], sink, sizeof sink, MSG_DONTWAIT);
                if (r == 0 || (r < 0 && errno != EAGAIN)) {
                    close(client[i]);
                    client[i] = -1;
                    open_clients--;
                }
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        if (client[i] >= 0)
            close(client[i]);
    server_shutdown(&s);
    if (atomic_load(&s.active) != 0)
        return -1;                              /* threads still hold the server: it stays */
    pthread_mutex_destroy(&s.rooms_mu);
    pthread_mutex_destroy(&s.conns_mu);
    return 0;
}
