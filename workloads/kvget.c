/* "pressmark __kv-get": the measured phase's gets (kvget.h). */
#include "workloads/kvget.h"
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/timeutil.h"
#include "lib/units.h"
#include "lib/zipf.h"
#include "workloads/kvclient.h"
#include "workloads/kvget_reply.h"
#include "workloads/kvserver.h"
#include "workloads/kvuser.h"
#include "workloads/latency.h"

#define REPORT_FD 4
#define PROGRESS_NS 1000000000ull
#define MAX_CLIENTS 1024

struct get_args {
    const char *sock;
    uint64_t server_pid, port, keys, value_size, clients, requests, duration_ns;
    double theta;
};

/* What every thread shares: settings, the values to compare with, the
 * histogram, and the word to stop. */
struct shared {
    struct get_args a;
    const char *block;
    struct zipf z;
    struct wl_latency *lat;
    pthread_barrier_t start;
    atomic_bool stop;
    _Atomic uint64_t done;
    _Atomic unsigned ended;           /* threads that returned */
};

/* One connection's thread and its counts. */
struct getter {
    pthread_t t;
    struct shared *sh;
    unsigned idx;
    uint64_t quota;                   /* gets to send, with --requests */
    uint64_t gets, hits, misses, errors;
    char first_error[128];
    char failed[512];                 /* "" unless it could not go on */
};

static int arg_u64(const char *s, const char *key, uint64_t max, uint64_t *v)
{
    size_t n = strlen(key);
    return strncmp(s, key, n) == 0 && pm_parse_uint(s + n, 0, max, v) == 0 ? 1 : 0;
}

static int parse_args(int argc, char **argv, struct get_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        char *end;
        if (strncmp(s, "--socket=", 9) == 0)
            a->sock = s + 9;
        else if (strncmp(s, "--zipf=", 7) == 0) {
            a->theta = strtod(s + 7, &end);
            if (end == s + 7 || *end || !(a->theta >= 0 && a->theta < 1))
                return -1;
        } else if (!arg_u64(s, "--server-pid=", INT_MAX, &a->server_pid) && !arg_u64(s, "--port=", 65535, &a->port) &&
                   !arg_u64(s, "--keys=", UINT64_MAX, &a->keys) &&
                   !arg_u64(s, "--value-size=", 64u << 20, &a->value_size) &&
                   !arg_u64(s, "--clients=", MAX_CLIENTS, &a->clients) &&
                   !arg_u64(s, "--requests=", UINT64_MAX, &a->requests) &&
                   !arg_u64(s, "--duration-ns=", UINT64_MAX, &a->duration_ns))
            return -1;
    }
    return a->server_pid && (a->sock || a->port) && a->keys && a->value_size && a->clients &&
           (a->requests || a->duration_ns) ? 0 : -1;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The next key: uniform over [0, keys) (a multiply-shift, whose bias is
 * keys/2^64), or the Zipf rank of a uniform double. */
static uint64_t draw(const struct shared *sh, uint64_t *rng)
{
    uint64_t r = splitmix(rng);
    if (sh->a.theta > 0)
        return zipf_rank(&sh->z, (double)(r >> 11) / 9007199254740992.0);
    return (uint64_t)(((unsigned __int128)r * sh->a.keys) >> 64);
}

/* One get of key k on fd, its reply read whole into buf (len bytes). */
static enum kv_get_reply get_one(struct getter *g, int fd, uint64_t k, char *buf, size_t len)
{
    char cmd[64], key[32];
    snprintf(key, sizeof key, "key:%012llu", (unsigned long long)k);
    int n = snprintf(cmd, sizeof cmd, "get %s\r\n", key);
    struct pm_err err;
    /* Each get its own deadline: a server deep in swap is slow, not dead. */
    struct kv_io io = { .deadline_ns = pm_now_ns() + (uint64_t)KV_REPLY_MS * 1000000ull };
    if (kv_send_all(fd, cmd, (size_t)n, &io, &err) < 0) {
        snprintf(g->failed, sizeof g->failed, "%s", err.msg);
        return KV_GET_BAD;
    }
    size_t have = 0, vlen = (size_t)g->sh->a.value_size;
    const char *want = kv_value_of(g->sh->block, k);
    for (;;) {
        if (kv_recv_more(fd, buf, len, &have, &io, &err) < 0) {
            snprintf(g->failed, sizeof g->failed, "get %s: %s", key, err.msg);
            return KV_GET_BAD;
        }
        char why[256];
        enum kv_get_reply r = kv_get_reply(buf, have, key, want, vlen, why, sizeof why);
        if (r == KV_GET_BAD)
            snprintf(g->failed, sizeof g->failed, "%s", why);
        if (r == KV_GET_ERROR && !g->errors)
            snprintf(g->first_error, sizeof g->first_error, "%s", why);
        if (r != KV_GET_MORE)
            return r;
    }
}

static void run_gets(struct getter *g, int fd)
{
    struct shared *sh = g->sh;
    size_t len = (size_t)sh->a.value_size + KV_GET_LINE_MAX + 16;
    char *buf = malloc(len);
    if (!buf) {
        snprintf(g->failed, sizeof g->failed, "out of memory");
        return;
    }
    uint64_t rng = 0x5eed0000ull + g->idx;
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed) && (!sh->a.requests || g->gets < g->quota)) {
        uint64_t k = draw(sh, &rng), t0 = pm_now_ns();
        enum kv_get_reply r = get_one(g, fd, k, buf, len);
        if (r == KV_GET_BAD)
            break;
        wl_latency_record(sh->lat, pm_now_ns() - t0);
        g->gets++;
        g->hits += r == KV_GET_HIT;
        g->misses += r == KV_GET_MISS;
        g->errors += r == KV_GET_ERROR;
        atomic_fetch_add_explicit(&sh->done, 1, memory_order_relaxed);
    }
    free(buf);
}

/* A connection to the server the run started, and to nothing else: the
 * kernel names the other end (kv_peer_check) before a byte is sent, then
 * the run's password, from the environment, signs it in (memcached -Y). */
static int connect_server(const struct get_args *a, struct pm_err *err)
{
    int fd = kv_connect(a->sock, getuid(), (unsigned)a->port, 5000, err);
    if (fd < 0)
        return -1;
    /* This process runs as the server's user: its uid is the server's. */
    struct kv_server srv = { .pid = (pid_t)a->server_pid, .uid = getuid() };
    const char *secret = getenv(KV_AUTH_ENV);
    struct kv_io io = { .deadline_ns = pm_now_ns() + (uint64_t)KV_REPLY_MS * 1000000ull };
    if (kv_peer_check(&srv, fd, (unsigned)a->port, err) < 0 ||
        (secret && *secret && kv_auth(fd, KV_MEMCACHED, KV_AUTH_USER, secret, &io, err) < 0)) {
        close(fd);
        return -1;
    }
    return fd;
}

static void *getter_main(void *arg)
{
    struct getter *g = arg;
    struct shared *sh = g->sh;
    struct pm_err err;
    int fd = connect_server(&sh->a, &err);
    if (fd < 0)
        snprintf(g->failed, sizeof g->failed, "%s", err.msg);
    /* Every connection is up before the clock starts. */
    pthread_barrier_wait(&sh->start);
    if (fd >= 0)
        run_gets(g, fd);
    if (g->failed[0])
        atomic_store(&sh->stop, true);
    if (fd >= 0)
        close(fd);
    atomic_fetch_add(&sh->ended, 1);
    return NULL;
}

static int put_line(const char *line)
{
    size_t n = strlen(line);
    return write(REPORT_FD, line, n) == (ssize_t)n ? 0 : -1;
}

/* Until every thread has returned: a progress line each second, and the
 * word to stop at --duration-ns. */
static int watch(struct shared *sh, uint64_t t0)
{
    uint64_t last = t0;
    int r = 0;
    while (atomic_load(&sh->ended) < sh->a.clients) {
        struct timespec ts = { 0, 50000000 };
        nanosleep(&ts, NULL);
        uint64_t now = pm_now_ns();
        if (sh->a.duration_ns && now - t0 >= sh->a.duration_ns)
            atomic_store(&sh->stop, true);
        if (now - last >= PROGRESS_NS) {
            char line[256];
            wl_latency_progress(sh->lat, atomic_load(&sh->done), now - last, line, sizeof line);
            r |= put_line(line);
            last = now;
        }
    }
    return r;
}

/* The report's last line: the sums, or the first thread's failure. */
static int report(struct shared *sh, struct getter *g, uint64_t ns)
{
    struct getter sum = { .gets = 0 };
    for (unsigned i = 0; i < sh->a.clients; i++) {
        if (g[i].failed[0]) {
            char line[600];
            snprintf(line, sizeof line, "failed %s\n", g[i].failed);
            put_line(line);
            return 1;
        }
        sum.gets += g[i].gets, sum.hits += g[i].hits, sum.misses += g[i].misses, sum.errors += g[i].errors;
        if (!sum.first_error[0])
            memcpy(sum.first_error, g[i].first_error, sizeof sum.first_error);
    }
    char line[512];
    snprintf(line, sizeof line, "gets %llu hits %llu misses %llu errors %llu ns %llu ops_per_s %.3f%s%s\n",
             (unsigned long long)sum.gets, (unsigned long long)sum.hits, (unsigned long long)sum.misses,
             (unsigned long long)sum.errors, (unsigned long long)ns, ns ? (double)sum.gets * 1e9 / (double)ns : 0.0,
             sum.first_error[0] ? " first_error " : "", sum.first_error);
    return wl_latency_report(sh->lat, REPORT_FD, NULL) < 0 || put_line(line) < 0 ? 1 : 0;
}

/* The threads, each its share of --requests (the first ones one more). */
static int run_all(struct shared *sh, struct getter *g)
{
    unsigned n = (unsigned)sh->a.clients, started = 0;
    if (pthread_barrier_init(&sh->start, NULL, n + 1) != 0)
        return -1;
    for (; started < n; started++) {
        g[started] = (struct getter){ .sh = sh, .idx = started };
        g[started].quota = sh->a.requests / n + (started < sh->a.requests % n);
        if (pthread_create(&g[started].t, NULL, getter_main, &g[started]) != 0)
            break;
    }
    if (started < n) {
        /* The barrier cannot be met: the process ends, threads and all. */
        fprintf(stderr, "pressmark __kv-get: cannot start thread %u\n", started);
        _exit(1);
    }
    pthread_barrier_wait(&sh->start);
    uint64_t t0 = pm_now_ns();
    int r = watch(sh, t0);
    for (unsigned i = 0; i < n; i++)
        pthread_join(g[i].t, NULL);
    uint64_t ns = pm_now_ns() - t0;
    pthread_barrier_destroy(&sh->start);
    return r | report(sh, g, ns);
}

int kv_get_main(int argc, char **argv)
{
    struct pm_err err;
    if (kv_helper_start(&err) < 0) {
        fprintf(stderr, "pressmark __kv-get: %s\n", err.msg);
        return 1;
    }
    struct shared *sh = calloc(1, sizeof *sh);
    if (!sh || parse_args(argc, argv, &sh->a) < 0) {
        fprintf(stderr, "pressmark __kv-get: %s\n", sh ? "bad arguments" : "out of memory");
        free(sh);
        return 2;
    }
    if (sh->a.theta > 0 && zipf_init(&sh->z, sh->a.keys, sh->a.theta) < 0) {
        fprintf(stderr, "pressmark __kv-get: a Zipf distribution needs at least 2 keys\n");
        free(sh);
        return 2;
    }
    sh->block = kv_value_block(sh->a.value_size);
    sh->lat = malloc(sizeof *sh->lat);
    struct getter *g = calloc((size_t)sh->a.clients, sizeof *g);
    int r = 1;
    if (sh->block && sh->lat && g) {
        wl_latency_init(sh->lat);
        atomic_init(&sh->stop, false);
        atomic_init(&sh->done, 0);
        atomic_init(&sh->ended, 0);
        r = run_all(sh, g) ? 1 : 0;
    } else {
        fprintf(stderr, "pressmark __kv-get: out of memory\n");
    }
    free(g);
    free(sh->lat);
    free((char *)sh->block);
    free(sh);
    return r;
}

int kv_get_parse(const char *line, struct kv_get_report *r)
{
    memset(r, 0, sizeof *r);
    static const char *const words[] = { "gets", "hits", "misses", "errors", "ns" };
    uint64_t *v[] = { &r->gets, &r->hits, &r->misses, &r->errors, &r->ns };
    const char *s = line, *f;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++, s++)
        if (kv_word_u64(&s, words[i], v[i]) < 0 || *s != ' ')
            return -1;
    uint64_t whole, milli, sum;
    if (kv_word_u64(&s, "ops_per_s", &whole) < 0 || *s != '.' || kv_u64(s + 1, &f, &milli) < 0 || f != s + 4)
        return -1;
    r->ops_per_s = (double)whole + (double)milli / 1000.0;
    if (strncmp(f, " first_error ", 13) == 0)
        kv_quote_line(f + 13, r->first_error, sizeof r->first_error);
    else if (*f)
        return -1;
    /* The counts add up and the rate is theirs, to its three decimals: the
     * line is data from a process of the server's user, not a figure yet. */
    double rate = r->ns ? (double)r->gets * 1e9 / (double)r->ns : 0;
    if (__builtin_add_overflow(r->hits, r->misses, &sum) || __builtin_add_overflow(sum, r->errors, &sum))
        return -1;
    return sum == r->gets && fabs(r->ops_per_s - rate) <= 0.001 + rate * 1e-12 ? 0 : -1;
}

bool kv_get_failed(const char *line, char *why, size_t len)
{
    if (strncmp(line, "failed ", 7) != 0)
        return false;
    kv_quote_line(line + 7, why, len);
    return true;
}
