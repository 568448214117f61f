/* The chat workload: VolanoMark (the 2002 memory-pressure and loopback reports) in C. A server and a
 * client process, both inside the run's cap, play the benchmark over
 * loopback; or, with --server, only the client plays against any
 * VolanoMark-protocol server. msg/s = (sent + received) / elapsed, timed
 * from the start gate to the last connection's close, as Mark does. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/fileio.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "workloads/workload.h"
#include "workloads/latency.h"
#include "workloads/chat/client.h"
#include "workloads/chat/server.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What this workload stores, declared once: help metrics, the man page
 * and the tests' strict check read it. */
enum { CHAT_MSGS_PER_S, CHAT_DELIVERED_PER_S, CHAT_ELAPSED_S, CHAT_SENT, CHAT_RECEIVED, CHAT_TOTAL,
    CHAT_ORDER_ERRORS, CHAT_CONNECTIONS, CHAT_CLIENT_COLLECTIONS, CHAT_SERVER_COLLECTIONS, CHAT_SERVER_CPU_S,
    CHAT_CPU_US_PER_DELIVERY, CHAT_UNSTAMPED, CHAT_LATENCY };
static const struct metric_def chat_defs[] = {
    [CHAT_MSGS_PER_S] = METRIC("chat.msgs_per_s", "msg/s", PM_HIGHER,
                  "messages sent + received per second: VolanoMark's throughput (the headline)"),
    [CHAT_DELIVERED_PER_S] = METRIC("chat.delivered_per_s", "msg/s", PM_HIGHER, "messages received per second"),
    [CHAT_ELAPSED_S] = METRIC("chat.elapsed_s", "s", PM_LOWER,
                  "the client's chatting time: from every room full to every connection closed (VolanoMark's)"),
    [CHAT_SENT] = METRIC("chat.sent", "count", PM_NEITHER, "messages the users sent"),
    [CHAT_RECEIVED] = METRIC("chat.received", "count", PM_NEITHER, "messages the users received"),
    [CHAT_TOTAL] = METRIC("chat.total", "count", PM_NEITHER, "sent + received"),
    [CHAT_ORDER_ERRORS] = METRIC("chat.order_errors", "count", PM_LOWER,
                  "messages received out of their sender's order"),
    [CHAT_CONNECTIONS] = METRIC("chat.connections", "count", PM_NEITHER, "client connections made"),
    [CHAT_CLIENT_COLLECTIONS] = METRIC("chat.client_collections", "count", PM_LOWER,
                  "collections of the client's simulated Java heap (--heap)"),
    [CHAT_SERVER_COLLECTIONS] = METRIC("chat.server_collections", "count", PM_LOWER,
                  "collections of the server's simulated heap"),
    [CHAT_SERVER_CPU_S] = METRIC("chat.server_cpu_s", "s", PM_LOWER, "the server's CPU time"),
    [CHAT_CPU_US_PER_DELIVERY] = METRIC("chat.cpu_us_per_delivery", "us", PM_LOWER,
                  "client + server CPU time per message received"),
    [CHAT_UNSTAMPED] = METRIC("chat.unstamped", "count", PM_NEITHER,
                  "messages without pressmark's send time (the Java client's)"),
    [CHAT_LATENCY] = LATENCY_METRIC("chat.latency", "delivery latency, from the send stamp to the receiving user"),
};
static const struct metric_group chat_metrics = METRIC_GROUP(
    "chat: run chat, the VolanoMark client and server",
    chat_defs);

struct chat_state {
    uint64_t rooms, users, messages;
    double pause_s;
    uint64_t duration_ns, heap, msg_alloc, stall_ns;
    char server[256];
};

/* --server: HOST:PORT, checked before anything runs. */
static int check_server(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    const char *colon = strrchr(value, ':');
    if (!colon || colon == value || !colon[1])
        return pm_errf(err, "'%s' is not an address (accepted: HOST:PORT, e.g. 10.200.0.1:8000)", value);
    return 0;
}

#define CO(field) offsetof(struct chat_state, field)
static const struct opt chat_options[] = {
    { .name = "rooms", .type = OPT_U64, .offset = CO(rooms), .metavar = "R", .def = "10", .min = 1, .max = 100000,
      .noun = "count", .help = "chat rooms" },
    { .name = "users", .type = OPT_U64, .offset = CO(users), .metavar = "U", .def = "20", .min = 2, .max = 100000,
      .noun = "count", .help = "users per room (at least 2)" },
    { .name = "messages", .type = OPT_U64, .offset = CO(messages), .metavar = "C", .def = "100", .min = 1,
      .max = 100000, .noun = "count", .help = "messages each user sends (the VolanoMark reports used 1000 and 25000)" },
    { .name = "pause", .type = OPT_REAL, .offset = CO(pause_s), .metavar = "S", .def = "0", .min = 0, .max = 3600,
      .noun = "pause", .extra = "seconds from 0 to 3600, e.g. 0.5", .flags = OPT_DESCRIBE_SET,
      .help = "seconds between a user's messages; > 0 chats on timers instead of taking turns" },
    { .name = "duration", .type = OPT_DURATION, .offset = CO(duration_ns), .metavar = "D", .def = "10s", .min = 1,
      .max = 1e18, .flags = OPT_DESCRIBE_SET, .help = "with --pause: how long to chat" },
    { .name = "heap", .type = OPT_SIZE, .offset = CO(heap), .metavar = "SIZE", .def = "64M", .extra = "0 for no heap",
      .flags = OPT_PCT_MEM,
      .help = "JVM-like heap of each side, cycled by every message" },
    { .name = "msg-alloc", .type = OPT_SIZE, .offset = CO(msg_alloc), .metavar = "SIZE", .def = "1K", .min = 8,
      .max = 1 << 20, .extra = "8 bytes to 1M", .help = "bytes allocated and written per message sent or received" },
    { .name = "server", .type = OPT_STRING, .offset = CO(server), .size = sizeof(((struct chat_state *)0)->server),
      .metavar = "ADDR:PORT", .set = check_server,
      .help = "run only the client, against this VolanoMark-protocol server" },
    { .name = "stall", .type = OPT_DURATION, .offset = CO(stall_ns), .metavar = "D", .def = "60s", .min = 1,
      .max = 1e18, .flags = OPT_NO_DESCRIBE, .help = "fail the run when no message moves for this long" },
    { .type = OPT_END },
};

/* Read one line from a helper's report pipe, waiting at most ms. */
static int read_line(int fd, char *buf, size_t len, int ms)
{
    size_t o = 0;
    uint64_t until = pm_now_ns() + (uint64_t)ms * 1000000ull;
    while (o + 1 < len) {
        uint64_t now = pm_now_ns();
        if (now >= until)
            return -1;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, (int)((until - now) / 1000000ull) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t n = read(fd, buf + o, 1);
        if (n <= 0)
            return -1;
        if (buf[o] == '\n') {
            buf[o] = '\0';
            return 0;
        }
        o++;
    }
    buf[o] = '\0';
    return 0;
}

static unsigned long long field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "%s ", key);
    const char *p = strstr(line, pat);
    return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

static int start_server(struct chat_state *st, struct run_ctx *rc, pid_t *pid, int *report, int *port,
                        struct pm_err *err)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    char heap[48], alloc[48];
    snprintf(heap, sizeof heap, "--heap=%llu", (unsigned long long)st->heap);
    snprintf(alloc, sizeof alloc, "--msg-alloc=%llu", (unsigned long long)st->msg_alloc);
    char *argv[] = { (char *)run_exe(rc), "__chat-server", "--listen=127.0.0.1:0", "--once", heap, alloc,
                     "--report-fd=4", NULL };
    int rcs = run_spawn_fd(rc, argv, p[1], pid, err);
    close(p[1]);
    if (rcs < 0) {
        close(p[0]);
        return -1;
    }
    char line[128];
    if (read_line(p[0], line, sizeof line, 10000) < 0 || strncmp(line, "port ", 5) != 0) {
        kill(*pid, SIGKILL);
        waitpid(*pid, NULL, 0);
        close(p[0]);
        return pm_errf(err, "the chat server did not start listening");
    }
    *port = atoi(line + 5);
    *report = p[0];
    return 0;
}

/* The server exits by itself once its clients are gone; give it five
 * seconds, looking every 10 ms, then kill its group. Returns its rusage
 * CPU seconds. */
static double stop_server(pid_t pid, int report, char *stats, size_t len)
{
    const struct pm_wait_opts w = { .deadline_ns = pm_now_ns() + 5000000000ull, .group = true,
                                    .poll_ns = 10000000ull };
    struct pm_wait_result res;
    int r = pm_wait_deadline(pid, &w, &res, NULL);
    if (read_line(report, stats, len, 100) < 0)
        stats[0] = '\0';
    close(report);
    if (r < 0)
        return 0;
    const struct rusage *ru = &res.ru;
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 + (double)ru->ru_stime.tv_sec +
           (double)ru->ru_stime.tv_usec / 1e6;
}

static int chat_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct chat_state *st = state;
    pid_t server = 0;
    int server_report = -1, port = 0;
    char addr[300];
    if (st->server[0]) {
        snprintf(addr, sizeof addr, "%s", st->server);
    } else {
        if (start_server(st, rc, &server, &server_report, &port, err) < 0)
            return -1;
        snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    char a[5][320];
    snprintf(a[0], sizeof a[0], "--server=%s", addr);
    snprintf(a[1], sizeof a[1], "--shape=%llu,%llu,%llu", (unsigned long long)st->rooms,
             (unsigned long long)st->users, (unsigned long long)st->messages);
    snprintf(a[2], sizeof a[2], "--heap=%llu,%llu", (unsigned long long)st->heap, (unsigned long long)st->msg_alloc);
    snprintf(a[3], sizeof a[3], "--pause=%.6f,%llu", st->pause_s, (unsigned long long)st->duration_ns);
    snprintf(a[4], sizeof a[4], "--stall=%llu", (unsigned long long)st->stall_ns);
    char *argv[] = { (char *)run_exe(rc), "__chat-client", a[0], a[1], a[2], a[3], a[4], "--report-fd=4", NULL };
    pid_t client;
    int sp = run_spawn_fd(rc, argv, p[1], &client, err);
    close(p[1]);
    if (sp < 0) {
        close(p[0]);
        if (server) {
            char ignored[256];
            kill(server, SIGKILL);
            stop_server(server, server_report, ignored, sizeof ignored);
        }
        return -1;
    }
    /* The client's report pipe while it runs: live count, latency
     * windows, its histogram, then its result line. */
    struct wl_reader rr;
    wl_reader_start(&rr, p[0], rc, "msg/s");
    struct run_exit ex;
    int w = run_wait(rc, client, &ex, err);
    char line[1024] = "", sstats[256] = "";
    wl_reader_stop(&rr);
    close(p[0]);
    snprintf(line, sizeof line, "%s", rr.result);
    if (w == 0 && rr.lat_done && rr.lat.count && run_latency(rc, &chat_defs[CHAT_LATENCY], &rr.lat, err) < 0) {
        wl_reader_free(&rr);
        if (server) {
            char ignored[256];
            stop_server(server, server_report, ignored, sizeof ignored);
        }
        return -1;
    }
    unsigned long long unstamped = 0;
    if (sscanf(rr.latstat_extra, "unstamped %llu", &unstamped) == 1)
        run_metric(rc, &chat_defs[CHAT_UNSTAMPED], (double)unstamped);
    wl_reader_free(&rr);
    double server_cpu = server ? stop_server(server, server_report, sstats, sizeof sstats) : 0;
    if (w < 0)
        return -1;
    run_rusage_metrics(rc, &ex);
    run_status_from_exit(rc, "the chat client", &ex);
    unsigned long long sent = field(line, "sent"), received = field(line, "received");
    double elapsed = (double)field(line, "elapsed_ns") / 1e9;
    const char *why = strstr(line, " failed ");
    if (strcmp(rc_status(rc), "failed") == 0 && why)
        run_set_status(rc, "failed", "%s", why + 8);
    else if (strcmp(rc_status(rc), "ok") == 0 && !line[0])
        run_set_status(rc, "failed", "the chat client reported nothing");
    run_metric(rc, &chat_defs[CHAT_SENT], (double)sent);
    run_metric(rc, &chat_defs[CHAT_RECEIVED], (double)received);
    run_metric(rc, &chat_defs[CHAT_TOTAL], (double)(sent + received));
    run_metric(rc, &chat_defs[CHAT_ORDER_ERRORS], (double)field(line, "order_errors"));
    run_metric(rc, &chat_defs[CHAT_CONNECTIONS], (double)field(line, "connections"));
    run_metric(rc, &chat_defs[CHAT_CLIENT_COLLECTIONS], (double)field(line, "collections"));
    if (sstats[0])
        run_metric(rc, &chat_defs[CHAT_SERVER_COLLECTIONS], (double)field(sstats, "collections"));
    if (strcmp(rc_status(rc), "ok") == 0 && elapsed > 0) {
        run_metric(rc, &chat_defs[CHAT_ELAPSED_S], elapsed);
        run_metric(rc, &chat_defs[CHAT_MSGS_PER_S], (double)(sent + received) / elapsed);
        run_metric(rc, &chat_defs[CHAT_DELIVERED_PER_S], (double)received / elapsed);
        double client_cpu = (double)ex.ru.ru_utime.tv_sec + (double)ex.ru.ru_utime.tv_usec / 1e6 +
                            (double)ex.ru.ru_stime.tv_sec + (double)ex.ru.ru_stime.tv_usec / 1e6;
        if (server)
            run_metric(rc, &chat_defs[CHAT_SERVER_CPU_S], server_cpu);
        if (received)
            run_metric(rc, &chat_defs[CHAT_CPU_US_PER_DELIVERY], (client_cpu + server_cpu) / (double)received * 1e6);
    }
    return 0;
}


/* The two processes of a run, started as "pressmark __chat-server" and
 * "pressmark __chat-client" with the run's parameters as --key=value. */
static const char *arg_of(const char *a, const char *key)
{
    size_t n = strlen(key);
    return strncmp(a, key, n) == 0 ? a + n : NULL;
}

static int server_helper_main(int argc, char **argv)
{
    struct chat_server_config cfg = { .listen = "127.0.0.1:0", .msg_alloc = 1024, .report_fd = -1 };
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = arg_of(argv[i], "--listen=")))
            cfg.listen = v;
        else if (strcmp(argv[i], "--once") == 0)
            cfg.once = true;
        else if ((v = arg_of(argv[i], "--heap=")))
            cfg.heap = strtoull(v, NULL, 10);
        else if ((v = arg_of(argv[i], "--msg-alloc=")))
            cfg.msg_alloc = strtoull(v, NULL, 10);
        else if ((v = arg_of(argv[i], "--report-fd=")))
            cfg.report_fd = atoi(v);
    }
    return chat_server_main(&cfg);
}

static int client_helper_main(int argc, char **argv)
{
    struct chat_client_config cfg = { .server = NULL, .report_fd = -1, .stall_ns = 60000000000ull };
    for (int i = 1; i < argc; i++) {
        const char *v;
        unsigned long long a, b, cc;
        double d;
        if ((v = arg_of(argv[i], "--server=")))
            cfg.server = v;
        else if ((v = arg_of(argv[i], "--shape=")) && sscanf(v, "%llu,%llu,%llu", &a, &b, &cc) == 3) {
            cfg.rooms = (unsigned)a;
            cfg.users = (unsigned)b;
            cfg.messages = (unsigned)cc;
        } else if ((v = arg_of(argv[i], "--heap=")) && sscanf(v, "%llu,%llu", &a, &b) == 2) {
            cfg.heap = a;
            cfg.msg_alloc = b;
        } else if ((v = arg_of(argv[i], "--pause=")) && sscanf(v, "%lf,%llu", &d, &a) == 2) {
            cfg.pause_s = d;
            cfg.duration_ns = a;
        } else if ((v = arg_of(argv[i], "--stall=")))
            cfg.stall_ns = strtoull(v, NULL, 10);
        else if ((v = arg_of(argv[i], "--report-fd=")))
            cfg.report_fd = atoi(v);
    }
    if (!cfg.server || cfg.users < 2 || cfg.rooms < 1)
        return 2;
    return chat_client_main(&cfg);
}

static const struct wl_helper chat_helpers[] = {
    { "__chat-server", server_helper_main },
    { "__chat-client", client_helper_main },
    { NULL, NULL },
};

static const char *const chat_compare_also[] = { MN_chat_latency_p99_us, NULL };

const struct workload_ops workload_chat = {
    .metrics = &chat_metrics,
    .name = "chat",
    .summary = "VolanoMark's chat server and client (the 2002 VolanoMark reports), faithful to the wire, msg/s",
    .headline = MN_chat_msgs_per_s,
    .headline_title = "msg/s",
    .compare_also = chat_compare_also,
    .show_cpu_split = true,
    .options = chat_options,
    .state_size = sizeof(struct chat_state),
    .run = chat_run,
    .helpers = chat_helpers,
};
