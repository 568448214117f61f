#include "workloads/chat/client.h"
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "lib/timeutil.h"
#include "workloads/chat/heap.h"
#include "workloads/latency.h"
#include "workloads/chat/net.h"
#include "workloads/chat/proto.h"

struct client;

struct cuser {
    struct client *cl;
    unsigned r, u;               /* room and user numbers, from 1 */
    char room[32], name[32], profile[96];
    int fd;
    struct outq q;
    struct reader rd;
    pthread_t rx, tx;
    bool started;
    /* Touched only by this user's receiver thread (and the pacer). */
    uint64_t sent, received;
    unsigned enter_count, exit_count;
    unsigned last_sender;        /* for the order check: who sent the last indication */
    bool entered, done;
};

struct client {
    const struct chat_client_config *cfg;
    struct chat_heap heap;
    struct cuser *users;         /* rooms * users, room-major */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned entered_now;        /* the driver waits for each EnterRoom confirm */
    unsigned rooms_ready;        /* user 1s that have seen their whole room enter */
    bool gate_open;
    unsigned open_conns;
    bool failed;
    char reason[256];
    atomic_uint_fast64_t progress, sent, received, order_errors;
    uint64_t reported_ns;        /* when the last "progress" line went to the report fd */
    struct wl_latency lat;     /* delivery latencies of stamped messages */
    atomic_uint_fast64_t unstamped;  /* messages received without a send time (another client's) */
};

/* Twice a second, "progress N" (messages sent and received so far) on the
 * report fd, for the run's live progress; the last line stays the result.
 * A full pipe drops the line rather than stall the client. */
static void report_progress(struct client *cl, uint64_t now)
{
    if (cl->cfg->report_fd < 0 || now - cl->reported_ns < 500000000ull)
        return;
    uint64_t window = cl->reported_ns ? now - cl->reported_ns : 0;
    cl->reported_ns = now;
    char line[160];
    /* With the p99 of the deliveries since the last line, for the chart
     * of latency against time (the window's length said with it). */
    int n = wl_latency_progress(&cl->lat, atomic_load(&cl->sent) + atomic_load(&cl->received), window, line,
                                sizeof line);
    /* POLLOUT on a pipe means room for PIPE_BUF bytes: the write cannot block. */
    struct pollfd pf = { .fd = cl->cfg->report_fd, .events = POLLOUT };
    if (poll(&pf, 1, 0) == 1 && (pf.revents & POLLOUT) && write(cl->cfg->report_fd, line, (size_t)n) != n) {
        /* Nobody is listening: the result line at the end says it all. */
    }
}

__attribute__((format(printf, 2, 3)))
static void fail(struct client *cl, const char *fmt, ...)
{
    pthread_mutex_lock(&cl->mu);
    if (!cl->failed) {
        cl->failed = true;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cl->reason, sizeof cl->reason, fmt, ap);
        va_end(ap);
    }
    pthread_cond_broadcast(&cl->cv);
    pthread_mutex_unlock(&cl->mu);
}

static void queue_frame(struct cuser *us, const struct frame *f)
{
    if (f->bad) {
        fprintf(stderr, "pressmark chat client: internal error: a frame did not fit its buffer\n");
        abort();
    }
    struct shared_frame *sf = chat_shared_frame_new(f->buf, f->len, 1);
    if (sf)
        chat_outq_push(&us->q, sf);
}

static void send_chat(struct cuser *us)
{
    uint8_t buf[256];
    struct frame f;
    chat_frame_init(&f, buf, sizeof buf);
    /* Stamped as it is handed to the user's sending thread: time queued in
     * the client counts, as a user would feel it. */
    char text[CHAT_TEXT_LEN + 1];
    chat_stamp_text(text, pm_now_ns());
    chat_build_chat_request(&f, us->room, us->name, text);
    queue_frame(us, &f);
    us->sent++;
    atomic_fetch_add(&us->cl->sent, 1);
    chat_heap_message(&us->cl->heap);
}

/* Leave: ExitRoom, then RoomList, whose confirm tells us to close. */
static void send_exit(struct cuser *us)
{
    uint8_t buf[256];
    struct frame f;
    chat_frame_init(&f, buf, sizeof buf);
    chat_build_exit_request(&f, us->room, us->name);
    queue_frame(us, &f);
    chat_frame_init(&f, buf, sizeof buf);
    chat_build_roomlist_request(&f);
    queue_frame(us, &f);
}

/* User 1 of a room: when the whole room has entered, wait at the gate
 * (Mark blocks the receive thread on a JVM-wide gate), then chat first. */
static void at_gate(struct cuser *us)
{
    struct client *cl = us->cl;
    pthread_mutex_lock(&cl->mu);
    cl->rooms_ready++;
    pthread_cond_broadcast(&cl->cv);
    while (!cl->gate_open && !cl->failed)
        pthread_cond_wait(&cl->cv, &cl->mu);
    bool go = !cl->failed;
    pthread_mutex_unlock(&cl->mu);
    if (go && cl->cfg->pause_s <= 0)
        send_chat(us);
}

static bool skip_utfs(struct reader *rd, int n)
{
    for (int i = 0; i < n; i++)
        if (!chat_read_utf(rd, NULL))
            return false;
    return true;
}

static bool on_enter(struct cuser *us, int32_t type)
{
    struct client *cl = us->cl;
    char user[64];
    if (!chat_read_utf(&us->rd, NULL) || !chat_read_utf(&us->rd, NULL) || !chat_read_utf_copy(&us->rd, user, sizeof user))
        return false;
    unsigned users = cl->cfg->users;
    if (type == CHAT_INDICATION) {
        if (!skip_utfs(&us->rd, 3))
            return false;
        if (strncmp(user, "Mark", 4) == 0 && ++us->enter_count == users && us->u == 1)
            at_gate(us);
        return true;
    }
    if (type != CHAT_CONFIRM)
        return false;
    int32_t result, room_type, count, n;
    if (!chat_read_i32(&us->rd, &result) || !chat_read_i32(&us->rd, &room_type) || !chat_read_i32(&us->rd, &count) ||
        !chat_read_i32(&us->rd, &n) || n < 0 || n > 1000000 || !skip_utfs(&us->rd, 5 * n))
        return false;
    if (result != ENTER_OKAY) {
        /* Mark would hang here; a benchmark must not. */
        fail(cl, "EnterRoom refused for %s in %s (%d)", us->name, us->room, result);
        return false;
    }
    us->entered = true;
    us->enter_count = 1;
    pthread_mutex_lock(&cl->mu);
    cl->entered_now++;
    pthread_cond_broadcast(&cl->cv);
    pthread_mutex_unlock(&cl->mu);
    return true;
}

static bool on_chat(struct cuser *us, int32_t type)
{
    struct client *cl = us->cl;
    bool question;
    int32_t room_id;
    char sender[64];
    size_t text_len;
    if (!chat_read_bool(&us->rd, &question) || !chat_read_i32(&us->rd, &room_id) || !chat_read_utf(&us->rd, NULL) ||
        !chat_read_utf_copy(&us->rd, sender, sizeof sender) || !chat_read_utf(&us->rd, &text_len))
        return false;
    if (type == CHAT_CONFIRM)
        return true;                            /* Mark ignores the pacing confirm */
    if (type != CHAT_INDICATION || room_id != 0)
        return type == CHAT_INDICATION;
    uint64_t stamp, now = pm_now_ns();
    if (chat_text_stamp(us->rd.str, text_len, &stamp) && now >= stamp)
        wl_latency_record(&cl->lat, now - stamp);
    else
        atomic_fetch_add(&cl->unstamped, 1);
    unsigned users = cl->cfg->users;
    us->received++;
    atomic_fetch_add(&cl->received, 1);
    atomic_fetch_add(&cl->progress, 1);
    chat_heap_message(&cl->heap);
    /* Within a room the token goes 1, 2, ..., users, 1, ...: the next
     * sender after x is x + 1, skipping ourselves. */
    unsigned from = strncmp(sender, "Mark", 4) == 0 ? (unsigned)atoi(sender + 4) : 0;
    if (cl->cfg->pause_s <= 0) {
        unsigned want = us->last_sender % users + 1;
        if (want == us->u)
            want = want % users + 1;
        if (from != want)
            atomic_fetch_add(&cl->order_errors, 1);
        us->last_sender = from;
        if ((us->sent + us->received) % users == us->u - 1) {
            if (us->sent < cl->cfg->messages)
                send_chat(us);
            else if (us->u == 1)
                send_exit(us);
        }
    }
    return true;
}

static bool on_frame(struct cuser *us)
{
    uint16_t id;
    int32_t type;
    if (!chat_read_u16(&us->rd, &id) || !chat_read_i32(&us->rd, &type))
        return false;
    switch (id) {
    case PKT_ACCESS: {
        int32_t result, n;
        uint8_t nbytes, b;
        if (type != CHAT_CONFIRM || !chat_read_i32(&us->rd, &result) || !chat_read_i32(&us->rd, &n) || n < 0 ||
            n > 1000000 || !skip_utfs(&us->rd, n) || !chat_read_u8(&us->rd, &nbytes))
            return false;
        for (unsigned i = 0; i < nbytes; i++)
            if (!chat_read_u8(&us->rd, &b))
                return false;
        if (result != ACCESS_OKAY) {
            fail(us->cl, "Access denied for %s in %s (%d).", us->name, us->room, result);
            return false;
        }
        uint8_t buf[512];
        struct frame f;
        chat_frame_init(&f, buf, sizeof buf);
        chat_build_enter_request(&f, us->room, us->name, us->profile);
        queue_frame(us, &f);
        return true;
    }
    case PKT_ENTER_ROOM:
        return on_enter(us, type);
    case PKT_CHAT:
        return on_chat(us, type);
    case PKT_EXIT_ROOM:
        if (type != CHAT_INDICATION || !chat_read_utf(&us->rd, NULL) || !chat_read_utf(&us->rd, NULL))
            return false;
        if (++us->exit_count == us->u - 1)
            send_exit(us);
        return true;
    case PKT_ROOM_LIST: {
        int32_t n;
        if (type != CHAT_CONFIRM || !chat_read_utf(&us->rd, NULL) || !chat_read_i32(&us->rd, &n) || n < 0 || n > 1000000 ||
            !skip_utfs(&us->rd, n))
            return false;
        us->done = true;
        return false;                           /* the client closes first */
    }
    case PKT_ERROR:
        return chat_read_utf(&us->rd, NULL);         /* ignored, as Mark does */
    case PKT_PING:
        return true;
    default:
        return false;
    }
}

static void *user_tx(void *arg)
{
    struct cuser *us = arg;
    chat_outq_drain(&us->q, us->fd);
    return NULL;
}

static void *user_rx(void *arg)
{
    struct cuser *us = arg;
    struct client *cl = us->cl;
    while (on_frame(us))
        ;
    if (!us->done)
        fail(cl, "%s in %s disconnected from server.", us->name, us->room);
    chat_outq_close(&us->q);
    pthread_join(us->tx, NULL);
    close(us->fd);
    pthread_mutex_lock(&cl->mu);
    cl->open_conns--;
    pthread_cond_broadcast(&cl->cv);
    pthread_mutex_unlock(&cl->mu);
    return NULL;
}

static int connect_user(struct client *cl, struct cuser *us, const struct sockaddr_storage *ss, socklen_t sl)
{
    us->fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (us->fd < 0) {
        fail(cl, "socket for %s in %s: %s", us->name, us->room, strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(us->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(us->fd, (const struct sockaddr *)ss, sl) < 0) {
        fail(cl, "cannot connect %s in %s to %s: %s", us->name, us->room, cl->cfg->server, strerror(errno));
        close(us->fd);
        return -1;
    }
    chat_outq_init(&us->q);
    chat_reader_init(&us->rd, us->fd);
    int rc = chat_thread(&us->tx, user_tx, us, false);
    if (rc == 0 && (rc = chat_thread(&us->rx, user_rx, us, false)) != 0) {
        chat_outq_close(&us->q);
        pthread_join(us->tx, NULL);
    }
    if (rc) {
        fail(cl, "cannot start threads for %s in %s: %s (raise the thread limit or use fewer users)", us->name,
             us->room, strerror(rc));
        close(us->fd);
        chat_outq_destroy(&us->q);
        return -1;
    }
    us->started = true;
    pthread_mutex_lock(&cl->mu);
    cl->open_conns++;
    pthread_mutex_unlock(&cl->mu);
    uint8_t buf[1024];
    struct frame f;
    chat_frame_init(&f, buf, sizeof buf);
    chat_build_access_request(&f, us->room);
    queue_frame(us, &f);
    return 0;
}

/* Wait on the client's condition until pred holds, the run failed, or
 * nothing progressed for stall_ns. */
static bool wait_until(struct client *cl, bool (*pred)(struct client *), const char *what)
{
    uint64_t last = atomic_load(&cl->progress), since = pm_now_ns();
    pthread_mutex_lock(&cl->mu);
    while (!pred(cl) && !cl->failed) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&cl->cv, &cl->mu, &ts);
        uint64_t p = atomic_load(&cl->progress), now = pm_now_ns();
        report_progress(cl, now);
        if (p != last) {
            last = p;
            since = now;
        } else if (now - since > cl->cfg->stall_ns) {
            pthread_mutex_unlock(&cl->mu);
            fail(cl, "no progress for %.0f s while %s", (double)cl->cfg->stall_ns / 1e9, what);
            pthread_mutex_lock(&cl->mu);
        }
    }
    bool ok = !cl->failed;
    pthread_mutex_unlock(&cl->mu);
    return ok;
}

static unsigned want_entered;
static bool entered_pred(struct client *cl) { return cl->entered_now >= want_entered; }
static bool ready_pred(struct client *cl) { return cl->rooms_ready >= cl->cfg->rooms; }
static bool closed_pred(struct client *cl) { return cl->open_conns == 0; }

/* --pause: every user sends one message each pause, for the duration;
 * then user 1 of each room starts the exit chain. */
static void pace(struct client *cl)
{
    const struct chat_client_config *c = cl->cfg;
    unsigned n = c->rooms * c->users;
    uint64_t start = pm_now_ns(), step = (uint64_t)(c->pause_s * 1e9), next = start + step;
    while (!cl->failed && pm_now_ns() - start < c->duration_ns) {
        for (unsigned i = 0; i < n; i++)
            send_chat(&cl->users[i]);
        atomic_fetch_add(&cl->progress, 1);
        report_progress(cl, pm_now_ns());
        struct timespec ts = pm_ns_to_timespec(next);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        next += step;
    }
    for (unsigned r = 0; r < c->rooms; r++)
        send_exit(&cl->users[r * c->users]);
}

static void report_line(const struct chat_client_config *cfg, const char *line, int len)
{
    if (cfg->report_fd >= 0) {
        if (write(cfg->report_fd, line, (size_t)len) != len)
            fprintf(stderr, "pressmark chat client: lost the report pipe\n");
    } else {
        fputs(line, stdout);
    }
}

/* The histogram before the result line, which comes last. */
static void report_latency(struct client *cl)
{
    char extra[64];
    snprintf(extra, sizeof extra, "unstamped %llu", (unsigned long long)atomic_load(&cl->unstamped));
    if (wl_latency_report(&cl->lat, cl->cfg->report_fd, extra) < 0)
        fprintf(stderr, "pressmark chat client: lost the report pipe\n");
}

int chat_client_main(const struct chat_client_config *cfg)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    struct pm_err err;
    if (chat_parse_addr(cfg->server, &ss, &sl, &err) < 0) {
        fprintf(stderr, "pressmark chat client: --server: %s\n", err.msg);
        return 2;
    }
    chat_raise_nofile();
    signal(SIGPIPE, SIG_IGN);
    struct client cl;
    memset(&cl, 0, sizeof cl);
    cl.cfg = cfg;
    wl_latency_init(&cl.lat);
    pthread_mutex_init(&cl.mu, NULL);
    pthread_cond_init(&cl.cv, NULL);
    if (chat_heap_init(&cl.heap, cfg->heap, cfg->msg_alloc) < 0) {
        fprintf(stderr, "pressmark chat client: cannot map a heap of %llu bytes\n", (unsigned long long)cfg->heap);
        return 1;
    }
    unsigned n = cfg->rooms * cfg->users;
    cl.users = calloc(n, sizeof *cl.users);
    if (!cl.users)
        return 1;
    /* Set-up is strictly sequential, as Mark's driver: each user connects,
     * gets its Access and EnterRoom confirms, then the next one starts. */
    for (unsigned r = 0; r < cfg->rooms && !cl.failed; r++) {
        for (unsigned u = 1; u <= cfg->users && !cl.failed; u++) {
            struct cuser *us = &cl.users[r * cfg->users + (u - 1)];
            us->cl = &cl;
            us->r = r + 1;
            us->u = u;
            snprintf(us->room, sizeof us->room, "Room%u", r + 1);
            snprintf(us->name, sizeof us->name, "Mark%u", u);
            snprintf(us->profile, sizeof us->profile, "This is the profile for Mark%u in Room%u.", u, r + 1);
            if (connect_user(&cl, us, &ss, sl) < 0)
                break;
            want_entered = r * cfg->users + u;
            atomic_fetch_add(&cl.progress, 1);
            if (!wait_until(&cl, entered_pred, "entering the rooms"))
                break;
        }
    }
    uint64_t begin = 0, end = 0;
    if (!cl.failed && wait_until(&cl, ready_pred, "waiting for every room to fill")) {
        pthread_mutex_lock(&cl.mu);
        begin = pm_now_ns();
        cl.gate_open = true;
        pthread_cond_broadcast(&cl.cv);
        pthread_mutex_unlock(&cl.mu);
        if (cfg->pause_s > 0)
            pace(&cl);
        wait_until(&cl, closed_pred, "chatting");
        end = pm_now_ns();
    }
    /* On failure, end every connection so the receivers return. */
    for (unsigned i = 0; i < n; i++)
        if (cl.users[i].started && cl.failed)
            shutdown(cl.users[i].fd, SHUT_RDWR);
    for (unsigned i = 0; i < n; i++) {
        if (!cl.users[i].started)
            continue;
        pthread_join(cl.users[i].rx, NULL);
        chat_reader_free(&cl.users[i].rd);
        chat_outq_destroy(&cl.users[i].q);
    }
    unsigned long long sent = atomic_load(&cl.sent), received = atomic_load(&cl.received);
    unsigned long long want_sent = (unsigned long long)n * cfg->messages;
    unsigned long long want_recv = want_sent * (cfg->users - 1);
    if (!cl.failed && cfg->pause_s <= 0 && (sent != want_sent || received != want_recv))
        fail(&cl, "counts differ: sent %llu of %llu, received %llu of %llu", sent, want_sent, received, want_recv);
    report_latency(&cl);
    char line[768];
    int len = snprintf(line, sizeof line,
                       "sent %llu received %llu elapsed_ns %llu collections %llu connections %u order_errors %llu%s%s\n",
                       sent, received, (unsigned long long)(end - begin),
                       (unsigned long long)atomic_load(&cl.heap.collections), n,
                       (unsigned long long)atomic_load(&cl.order_errors), cl.failed ? " failed " : "",
                       cl.failed ? cl.reason : "");
    report_line(cfg, line, len);
    if (cl.failed)
        fprintf(stderr, "Test failed. %s\n", cl.reason);
    free(cl.users);
    chat_heap_free(&cl.heap);
    return cl.failed ? 1 : 0;
}
