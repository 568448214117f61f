/* memcached under a memory cap: a private memcached inside the cap holds
 * a data set sized against it (--dataset, 150% of the cap by default),
 * filled by pressmark's loader, then read back by pressmark's own client
 * from outside the cap (kvget.h: Debian 12's memcaslap cannot read back a
 * data set it did not store itself), so its gets fault the swapped-out
 * part back in. The headline is that client's gets per second; every get
 * is a hit, a miss or an error reply, counted, and its latency is kept as
 * a histogram. The server's own stats say what it held and evicted. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/timeutil.h"
#include "workloads/dataset.h"
#include "workloads/kvrun.h"
#include "workloads/kvuser.h"
#include "workloads/workload.h"

#define MIB (1ull << 20)

enum { M_OPS, M_GETS, M_HITS, M_MISSES, M_ERRORS, M_ELAPSED, M_LATENCY, M_ITEMS, M_BYTES, M_EVICTIONS, M_SRV_HITS,
    M_SRV_MISSES, M_LIMIT, M_LOADED, M_LOAD_ERRORS, M_LOAD_S, M_LOAD_RATE, M_DATASET, M_SET_CALLS };
static const struct metric_def mc_defs[] = {
    [M_OPS] = METRIC("memcached.ops_per_s", "ops/s", PM_HIGHER,
                     "gets per second of the measured phase, pressmark's own client (every op is a get)"),
    [M_GETS] = METRIC("memcached.client_gets", "count", PM_NEITHER, "gets the client sent and had answered"),
    [M_HITS] = METRIC("memcached.client_hits", "count", PM_NEITHER,
                      "gets answered with the value the loader stored, whole"),
    [M_MISSES] = METRIC("memcached.client_misses", "count", PM_LOWER,
                        "gets answered with END alone: the key was evicted (or never stored)"),
    [M_ERRORS] = METRIC("memcached.client_errors", "count", PM_LOWER,
                        "gets answered with SERVER_ERROR, CLIENT_ERROR or ERROR"),
    [M_ELAPSED] = METRIC("memcached.client_s", "s", PM_NEITHER, "how long the measured phase took"),
    [M_LATENCY] = LATENCY_METRIC("memcached.latency", "a GET request's latency, from its send to its whole reply"),
    [M_ITEMS] = METRIC("memcached.curr_items", "count", PM_NEITHER, "items the server held at the end (stats)"),
    [M_BYTES] = METRIC("memcached.bytes", "bytes", PM_NEITHER, "bytes its items took at the end (stats bytes)"),
    [M_EVICTIONS] = METRIC("memcached.evictions", "count", PM_LOWER,
                           "items the server evicted to stay within -m (stats evictions)"),
    [M_SRV_HITS] = METRIC("memcached.get_hits", "count", PM_NEITHER, "gets that found their key (stats get_hits)"),
    [M_SRV_MISSES] = METRIC("memcached.get_misses", "count", PM_LOWER,
                            "gets that did not (stats get_misses)"),
    [M_LIMIT] = METRIC("memcached.limit_maxbytes", "bytes", PM_NEITHER,
                       "the server's item memory limit, -m (stats limit_maxbytes)"),
    [M_LOADED] = METRIC("memcached.load_sets", "count", PM_NEITHER,
                        "sets the server stored in the load phase (the STORED replies the loader counted)"),
    [M_LOAD_ERRORS] = METRIC("memcached.load_errors", "count", PM_LOWER,
                             "sets the server did not store (SERVER_ERROR out of memory, say)"),
    [M_LOAD_S] = METRIC("memcached.load_s", "s", PM_LOWER, "how long the load phase took"),
    [M_LOAD_RATE] = METRIC("memcached.load_sets_per_s", "ops/s", PM_HIGHER, "sets per second of the load phase"),
    [M_DATASET] = METRIC("memcached.dataset_bytes", "bytes", PM_NEITHER,
                         "the data set asked for (--dataset): keys x --value-size"),
    [M_SET_CALLS] = METRIC("memcached.set_calls", "count", PM_NEITHER,
                           "sets the server took, by its own count (stats cmd_set; signing in is not one)"),
};
static const struct metric_group mc_metrics = METRIC_GROUP(
    "memcached: run memcached, a private memcached under the cap, read back by pressmark's own client from outside it",
    mc_defs);

struct mc_state {
    struct kv_common c;
    uint64_t maxmemory, duration_ns, megabytes;
    char key_dist[32];
    double theta;                /* 0: uniform */
};

/* "uniform" or "zipf:THETA" with 0 < THETA < 1: its theta (0: uniform). */
static int parse_dist(const char *s, double *theta)
{
    char *end;
    *theta = 0;
    if (strcmp(s, "uniform") == 0)
        return 0;
    if (strncmp(s, "zipf:", 5) != 0)
        return -1;
    *theta = strtod(s + 5, &end);
    return end != s + 5 && !*end && *theta > 0 && *theta < 1 ? 0 : -1;
}

static int key_dist_check(void *state, const char *value, struct pm_err *err)
{
    double theta;
    (void)state;
    if (parse_dist(value, &theta) < 0)
        return pm_errf(err, "'%s' is not a key distribution (accepted: uniform, or zipf:THETA with 0 < THETA < 1, "
                       "e.g. zipf:0.99)", value);
    return 0;
}

#define MS(field) offsetof(struct mc_state, field)
static const struct opt mc_options[] = {
    { .name = "dataset", .type = OPT_STRING, .offset = MS(c.dataset), .size = sizeof(((struct kv_common *)0)->dataset),
      .metavar = "SIZE|PCT", .set = wl_dataset_set,
      .help = "data set to load: a size, or a share of --mem-cap (default 150% of the cap, 256M without one)" },
    { .name = "value-size", .type = OPT_SIZE, .offset = MS(c.value_size), .metavar = "SIZE", .def = "4000", .min = 1,
      .max = 1000 << 10, .extra = "1 byte to 1000K (memcached's largest item is 1M, header and key included)",
      .help = "bytes per value (4000: a value and its header fill one 4 KiB allocation)" },
    { .name = "requests", .type = OPT_U64, .offset = MS(c.requests), .metavar = "N", .def = "0", .min = 0, .max = 1e12,
      .noun = "request count", .help = "gets of the measured phase (0: twice the keys, or none with --duration)" },
    { .name = "duration", .type = OPT_DURATION, .offset = MS(duration_ns), .metavar = "D", .def = "0s", .min = 0,
      .max = 1e14, .help = "how long the measured phase gets for (0s: until --requests); with both, the first" },
    { .name = "clients", .type = OPT_UINT, .offset = MS(c.clients), .metavar = "N", .def = "4", .min = 1, .max = 1024,
      .noun = "client count", .help = "the client's connections, a thread each, one get in flight on each" },
    { .name = "key-dist", .type = OPT_STRING, .offset = MS(key_dist), .size = sizeof(((struct mc_state *)0)->key_dist),
      .metavar = "DIST", .def = "uniform", .set = key_dist_check,
      .help = "which keys the gets ask for: uniform, or zipf:THETA (YCSB's zipfian, the first loaded the hottest)" },
    { .name = "maxmemory", .type = OPT_SIZE, .offset = MS(maxmemory), .metavar = "SIZE", .def = "0", .min = 0,
      .max = 1e15, .help = "the server's own limit, -m, whole MiB (0: room for the whole data set, so only the "
      "kernel decides what stays in memory; less, and memcached evicts)" },
    { .name = "port", .type = OPT_UINT, .offset = MS(c.port), .metavar = "N", .def = "0", .min = 0, .max = 65535,
      .noun = "port",
      .help = "TCP port on 127.0.0.1, 1024 to 65535, instead of a Unix socket in the run's directory (0: the socket)" },
    { .name = "client-timeout", .type = OPT_DURATION, .offset = MS(c.client_timeout_ns), .metavar = "D", .def = "10m",
      .min = 1e9, .max = 1e14, .flags = OPT_NO_DESCRIBE,
      .help = "the most the loader or the client may take (a server deep in swap is slow, not dead)" },
    { .type = OPT_END },
};

static const char *const mc_programs[] = { "memcached", "setpriv", "prlimit", NULL };
/* Debian's package's own user: never a user others share (nobody), whose
 * other processes could reach the server's directory and signal it. */
static const char *const mc_users[] = { "memcache", NULL };

/* memcached's own cost per item beyond the value: its header, CAS, key
 * and line ends (about 80 bytes), and up to a quarter more to the next
 * slab class's chunk size (-f 1.25). Room for that, and a page (1 MiB)
 * for each of the 40-odd slab classes, is room for the whole data set. */
static uint64_t room_mb(const struct kv_common *c)
{
    uint64_t per_item = (c->value_size + 96) * 5 / 4;
    return (c->keys * per_item + MIB - 1) / MIB + 64;
}

static int mc_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct mc_state *st = state;
    if (kv_check(&st->c, lim, mc_programs, "memcached", err) < 0 || kv_need_user(mc_users[0], "memcached", err) < 0)
        return -1;
    if (st->maxmemory && st->maxmemory < MIB)
        return pm_errf(err, "--maxmemory: %llu bytes is less than memcached's unit, 1M (accepted: 0 for room for the "
                       "whole data set, or 1M and more)", (unsigned long long)st->maxmemory);
    if (st->duration_ns && st->duration_ns >= st->c.client_timeout_ns)
        return pm_errf(err, "--duration: %.0f s is not shorter than --client-timeout (%.0f s; accepted: less)",
                       (double)st->duration_ns / 1e9, (double)st->c.client_timeout_ns / 1e9);
    if (parse_dist(st->key_dist, &st->theta) < 0 || (st->theta > 0 && st->c.keys < 2))
        return pm_errf(err, "--key-dist: '%s' needs at least 2 keys and the data set has %llu (accepted: uniform)",
                       st->key_dist, (unsigned long long)st->c.keys);
    if (st->c.requests == 0 && st->duration_ns == 0)
        st->c.requests = 2 * st->c.keys;
    st->megabytes = st->maxmemory ? (st->maxmemory + MIB - 1) / MIB : room_mb(&st->c);
    return 0;
}

/* Who may do anything at all: whoever signs in as pressmark with the
 * run's password (-Y, memcached's ASCII authentication): the loader, the
 * client and pressmark's stats. A local user who reaches --port's socket
 * can then neither read, fill nor flush the data set, and the password
 * never needs a command line. The file is root's, readable by the server
 * user's group alone (root:memcache 0440: it reads it after setpriv, and
 * can neither change nor replace it), in root's 0711 directory. */
static int write_auth(const struct kv_server *srv, char *path, size_t len, struct pm_err *err)
{
    int fd = kv_file_create(srv, "memcached.auth", path, len, err);
    if (fd < 0)
        return -1;
    char text[128];
    int n = snprintf(text, sizeof text, KV_AUTH_USER ":%s\n", srv->secret);
    int r = n > 0 && (size_t)n < sizeof text && write(fd, text, (size_t)n) == n &&
            fchown(fd, (uid_t)-1, srv->gid) == 0 && fchmod(fd, 0440) == 0 ? 0 : -1;
    explicit_bzero(text, sizeof text);
    int e = errno;
    close(fd);
    return r < 0 ? pm_errf(err, "%s: %s", path, strerror(e)) : 0;
}

/* Everything on its command line but the password, nothing from
 * /etc/memcached.conf: no default port, its socket in the run's own
 * directory, the text protocol alone (-B ascii: -Y signs in over it, and
 * the binary protocol's own sign-in, SASL, is not set up). -P is unused
 * without -d, but names the instance's directory on its command line, the
 * word a run without a cgroup journals it by (kv_server_start). kv_run
 * puts setpriv and prlimit before it. */
static int mc_server_argv(const void *state, const struct kv_server *srv, struct kv_where *where, struct kv_argv *a,
                          char *word, size_t wlen, struct pm_err *err)
{
    const struct mc_state *st = state;
    char auth[PATH_MAX];
    if (write_auth(srv, auth, sizeof auth, err) < 0)
        return -1;
    kv_arg(a, "memcached");
    kv_arg(a, "-Y");
    kv_arg(a, "%s", auth);
    kv_arg(a, "-P");
    kv_arg(a, "%s/pm-memcached.pid", srv->srv);
    snprintf(word, wlen, "%s/pm-memcached.pid", srv->srv);
    kv_arg(a, "-U");
    kv_arg(a, "0");
    kv_arg(a, "-B");
    kv_arg(a, "ascii");
    if (st->c.port) {
        where->port = st->c.port;
        kv_arg(a, "-l");
        kv_arg(a, "127.0.0.1");
        kv_arg(a, "-p");
        kv_arg(a, "%u", st->c.port);
    } else {
        snprintf(where->sock, sizeof where->sock, "%s/pm-memcached.sock", srv->srv);
        kv_arg(a, "-s");
        kv_arg(a, "%s", where->sock);
        kv_arg(a, "-a");
        kv_arg(a, "0700");
    }
    kv_arg(a, "-m");
    kv_arg(a, "%llu", (unsigned long long)st->megabytes);
    return 0;
}

/* How long pressmark's signing in may take once connected. */
#define AUTH_NS 5000000000ull

/* Connected to the server itself (the kernel says so), and signed in as
 * pressmark: nothing is sent to whatever else answers. */
static int mc_probe(const struct kv_server *srv, struct kv_where *where, struct pm_err *err)
{
    int fd = kv_connect(where->sock[0] ? where->sock : NULL, srv->uid, where->port, 0, err);
    if (fd < 0)
        return -1;
    struct kv_io io = { .deadline_ns = pm_now_ns() + AUTH_NS };
    if (kv_peer_check(srv, fd, where->port, err) < 0 ||
        kv_auth(fd, KV_MEMCACHED, KV_AUTH_USER, srv->secret, &io, err) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* __kv-get's settings: over exactly the keys loaded. */
static void mc_client_argv(const void *state, const struct kv_where *where, struct kv_argv *a)
{
    const struct mc_state *st = state;
    if (where->sock[0])
        kv_arg(a, "--socket=%s", where->sock);
    else
        kv_arg(a, "--port=%u", where->port);
    kv_arg(a, "--keys=%llu", (unsigned long long)st->c.keys);
    kv_arg(a, "--value-size=%llu", (unsigned long long)st->c.value_size);
    kv_arg(a, "--clients=%u", st->c.clients);
    kv_arg(a, "--requests=%llu", (unsigned long long)st->c.requests);
    kv_arg(a, "--duration-ns=%llu", (unsigned long long)st->duration_ns);
    kv_arg(a, "--zipf=%.17g", st->theta);
}

static void mc_get_figures(const void *state, struct run_ctx *rc, const struct kv_get_report *rep)
{
    (void)state;
    run_metric(rc, &mc_defs[M_GETS], (double)rep->gets);
    run_metric(rc, &mc_defs[M_HITS], (double)rep->hits);
    run_metric(rc, &mc_defs[M_MISSES], (double)rep->misses);
    run_metric(rc, &mc_defs[M_ERRORS], (double)rep->errors);
    run_metric(rc, &mc_defs[M_ELAPSED], (double)rep->ns / 1e9);
    if (rep->ns)
        run_metric(rc, &mc_defs[M_OPS], rep->ops_per_s);
    if (rep->first_error[0])
        run_meta(rc, "memcached.client_first_error", rep->first_error);
}

static void put_stat(struct run_ctx *rc, const char *text, const char *key, const struct metric_def *d)
{
    uint64_t v;
    if (kv_stat_u64(text, KV_MEMCACHED, key, &v) == 0)
        run_metric(rc, d, (double)v);
}

static void mc_server_figures(const void *state, struct run_ctx *rc, const char *stats)
{
    const struct mc_state *st = state;
    put_stat(rc, stats, "curr_items", &mc_defs[M_ITEMS]);
    put_stat(rc, stats, "bytes", &mc_defs[M_BYTES]);
    put_stat(rc, stats, "evictions", &mc_defs[M_EVICTIONS]);
    put_stat(rc, stats, "get_hits", &mc_defs[M_SRV_HITS]);
    put_stat(rc, stats, "get_misses", &mc_defs[M_SRV_MISSES]);
    put_stat(rc, stats, "limit_maxbytes", &mc_defs[M_LIMIT]);
    put_stat(rc, stats, "cmd_set", &mc_defs[M_SET_CALLS]);
    run_metric(rc, &mc_defs[M_DATASET], (double)(st->c.keys * st->c.value_size));
}

static void mc_load_figures(struct run_ctx *rc, uint64_t sets, uint64_t errors, double secs)
{
    run_metric(rc, &mc_defs[M_LOADED], (double)sets);
    run_metric(rc, &mc_defs[M_LOAD_ERRORS], (double)errors);
    run_metric(rc, &mc_defs[M_LOAD_S], secs);
    if (secs > 0)
        run_metric(rc, &mc_defs[M_LOAD_RATE], (double)sets / secs);
}

static const struct kv_workload mc_kv = {
    .name = "memcached",
    .proto = KV_MEMCACHED,
    .users = mc_users,
    .tool = NULL,
    .server_argv = mc_server_argv,
    .probe = mc_probe,
    .client_argv = mc_client_argv,
    .get_figures = mc_get_figures,
    .latency = &mc_defs[M_LATENCY],
    .server_figures = mc_server_figures,
    .load_figures = mc_load_figures,
};

static int mc_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct mc_state *st = state;
    return kv_run(&mc_kv, st, &st->c, rc, err);
}

static const char *const mc_compare_also[] = { "memcached.latency_p99_us", NULL };

const struct workload_ops workload_memcached = {
    .metrics = &mc_metrics,
    .name = "memcached",
    .summary = "a private memcached under the cap, its data set loaded, then gets at random by pressmark's client",
    .headline = "memcached.ops_per_s",
    .headline_title = "get/s",
    .compare_also = mc_compare_also,
    .options = mc_options,
    .state_size = sizeof(struct mc_state),
    .check = mc_check,
    .run = mc_run,
    .helpers = kv_helpers,
    .guest_packages = "memcached",
    .journals = true,
};
