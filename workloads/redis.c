/* Redis under a memory cap: a private redis-server inside the cap holds a
 * data set sized against it (--dataset, 150% of the cap by default), filled
 * by pressmark's loader, then read back at random by redis-benchmark from
 * outside the cap, so its GETs fault the swapped-out part back in. The
 * headline is redis-benchmark's own GET rate of that measured phase; the
 * server's own INFO says what it held, evicted, hit and missed. */
#include <stddef.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/timeutil.h"
#include "lib/metrics.h"
#include "workloads/dataset.h"
#include "workloads/kvrun.h"
#include "workloads/kvuser.h"
#include "workloads/workload.h"

enum { R_USED, R_RSS, R_PEAK, R_KEYS, R_EVICTED, R_HITS, R_MISSES, R_ERRORS, R_LOADED, R_LOAD_ERRORS, R_LOAD_S,
    R_LOAD_RATE, R_DATASET, R_SET_CALLS };
static const struct metric_def redis_defs[] = {
    [R_USED] = METRIC("redis.used_memory_bytes", "bytes", PM_NEITHER,
                      "memory the server's allocator handed out (INFO used_memory), after the measured phase"),
    [R_RSS] = METRIC("redis.used_memory_rss_bytes", "bytes", PM_NEITHER,
                     "the server's resident memory (INFO used_memory_rss): below used_memory, the rest is swapped out"),
    [R_PEAK] = METRIC("redis.used_memory_peak_bytes", "bytes", PM_NEITHER, "INFO used_memory_peak"),
    [R_KEYS] = METRIC("redis.keys", "count", PM_NEITHER, "keys the server held at the end (INFO keyspace, db0)"),
    [R_EVICTED] = METRIC("redis.evicted_keys", "count", PM_LOWER,
                         "keys the server evicted to stay under --maxmemory (INFO evicted_keys)"),
    [R_HITS] = METRIC("redis.keyspace_hits", "count", PM_NEITHER, "lookups that found their key (INFO keyspace_hits)"),
    [R_MISSES] = METRIC("redis.keyspace_misses", "count", PM_LOWER,
                        "lookups that did not (INFO keyspace_misses): evicted or never loaded"),
    [R_ERRORS] = METRIC("redis.error_replies", "count", PM_LOWER,
                        "error replies the server sent, load and measured phase (INFO total_error_replies)"),
    [R_LOADED] = METRIC("redis.load_sets", "count", PM_NEITHER, "SETs the load phase sent (one per key)"),
    [R_LOAD_ERRORS] = METRIC("redis.load_errors", "count", PM_LOWER,
                             "SETs the server refused (OOM under --maxmemory with noeviction)"),
    [R_LOAD_S] = METRIC("redis.load_s", "s", PM_LOWER, "how long the load phase took"),
    [R_LOAD_RATE] = METRIC("redis.load_sets_per_s", "ops/s", PM_HIGHER, "SETs per second of the load phase"),
    [R_DATASET] = METRIC("redis.dataset_bytes", "bytes", PM_NEITHER,
                         "the data set asked for (--dataset): keys x --value-size"),
    [R_SET_CALLS] = METRIC("redis.set_calls", "count", PM_NEITHER,
                           "SETs the server executed, by its own count (INFO commandstats cmdstat_set calls)"),
};
static const struct metric_group redis_metrics = METRIC_GROUP(
    "redis: run redis, a private redis-server under the cap, read back by redis-benchmark from outside it",
    redis_defs);

static const char *const policy_words[] = { "noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random",
                                            "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", NULL };

struct redis_state {
    struct kv_common c;
    uint64_t maxmemory;
    unsigned policy, pipeline;
};

#define RS(field) offsetof(struct redis_state, field)
static const struct opt redis_options[] = {
    { .name = "dataset", .type = OPT_STRING, .offset = RS(c.dataset), .size = sizeof(((struct kv_common *)0)->dataset),
      .metavar = "SIZE|PCT", .set = wl_dataset_set,
      .help = "data set to load: a size, or a share of --mem-cap (default 150% of the cap, 256M without one)" },
    { .name = "value-size", .type = OPT_SIZE, .offset = RS(c.value_size), .metavar = "SIZE", .def = "4000", .min = 1,
      .max = 1 << 20, .extra = "1 byte to 1M",
      .help = "bytes per value (4000: a value and its header fill one 4 KiB allocation)" },
    { .name = "requests", .type = OPT_U64, .offset = RS(c.requests), .metavar = "N", .def = "0", .min = 0, .max = 1e12,
      .noun = "request count", .help = "GETs of the measured phase (0: twice the keys)" },
    { .name = "clients", .type = OPT_UINT, .offset = RS(c.clients), .metavar = "N", .def = "50", .min = 1, .max = 10000,
      .noun = "client count", .help = "redis-benchmark's parallel connections (-c)" },
    { .name = "pipeline", .type = OPT_UINT, .offset = RS(pipeline), .metavar = "N", .def = "1", .min = 1, .max = 1000,
      .noun = "pipeline depth", .help = "redis-benchmark's requests in flight per connection (-P)" },
    { .name = "maxmemory", .type = OPT_SIZE, .offset = RS(maxmemory), .metavar = "SIZE", .def = "0", .min = 0,
      .max = 1e15, .help = "the server's own limit (0: none, the kernel alone decides what stays in memory)" },
    { .name = "maxmemory-policy", .type = OPT_CHOICE, .offset = RS(policy), .metavar = "POLICY", .def = "noeviction",
      .words = policy_words, .noun = "eviction policy", .help = "what the server evicts at --maxmemory" },
    { .name = "port", .type = OPT_UINT, .offset = RS(c.port), .metavar = "N", .def = "0", .min = 0, .max = 65535,
      .noun = "port",
      .help = "TCP port on 127.0.0.1, 1024 to 65535, instead of a Unix socket in the run's directory (0: the socket)" },
    { .name = "client-timeout", .type = OPT_DURATION, .offset = RS(c.client_timeout_ns), .metavar = "D", .def = "10m",
      .min = 1e9, .max = 1e14, .flags = OPT_NO_DESCRIBE,
      .help = "the most the loader or redis-benchmark may take (redis-benchmark waits for ever without its server)" },
    { .type = OPT_END },
};

static const char *const redis_programs[] = { "redis-server", "redis-benchmark", "setpriv", "prlimit", NULL };
/* Debian's package's own user: never a user others share (nobody), whose
 * other processes could reach the server's directory and signal it. */
static const char *const redis_users[] = { "redis", NULL };

static int redis_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct redis_state *st = state;
    if (kv_check(&st->c, lim, redis_programs, "redis-server redis-tools", err) < 0 ||
        kv_need_user(redis_users[0], "redis-server", err) < 0)
        return -1;
    if (st->c.requests == 0)
        st->c.requests = 2 * st->c.keys;
    return 0;
}

/* Who may do what: pressmark (the loader, INFO) as user pm with the
 * run's password; everyone else, redis-benchmark too, as the default
 * user, who may only read (GET, and CONFIG GET, which redis-benchmark
 * asks first; no password is a configuration value). A local user who
 * reaches --port's socket can then neither fill, flush nor reconfigure
 * the server, and the password never needs a command line. The file is
 * root's, readable by the server user's group alone (root:redis 0440: it
 * reads it after setpriv, and can neither change nor replace it), in
 * root's 0711 directory. */
static int write_acl(const struct kv_server *srv, char *path, size_t len, struct pm_err *err)
{
    int fd = kv_file_create(srv, "redis.conf", path, len, err);
    if (fd < 0)
        return -1;
    char text[512];
    int n = snprintf(text, sizeof text,
                     "user default on nopass ~* resetchannels -@all +get +ping +config|get\n"
                     "user " KV_AUTH_USER " on >%s ~* &* +@all\n", srv->secret);
    int r = n > 0 && (size_t)n < sizeof text && write(fd, text, (size_t)n) == n &&
            fchown(fd, (uid_t)-1, srv->gid) == 0 && fchmod(fd, 0440) == 0 ? 0 : -1;
    explicit_bzero(text, sizeof text);
    int e = errno;
    close(fd);
    return r < 0 ? pm_errf(err, "%s: %s", path, strerror(e)) : 0;
}

/* Everything on its command line but the ACL, nothing from /etc/redis:
 * no persistence, no default port, its directory the run's own, its log
 * warnings only (its notices would fill root's directory over a long
 * run). kv_run puts setpriv before it. */
static int redis_server_argv(const void *state, const struct kv_server *srv, struct kv_where *where,
                             struct kv_argv *a, char *word, size_t wlen, struct pm_err *err)
{
    const struct redis_state *st = state;
    char conf[PATH_MAX];
    if (write_acl(srv, conf, sizeof conf, err) < 0)
        return -1;
    kv_arg(a, "redis-server");
    kv_arg(a, "%s", conf);
    const char *const fixed[] = { "--save", "", "--appendonly", "no", "--set-proc-title", "no", "--daemonize", "no",
                                  "--logfile", "", "--loglevel", "warning", "--dbfilename", "pm-dump.rdb" };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        kv_arg(a, "%s", fixed[i]);
    kv_arg(a, "--dir");
    kv_arg(a, "%s", srv->srv);
    snprintf(word, wlen, "%s", srv->srv);
    if (st->c.port) {
        where->port = st->c.port;
        kv_arg(a, "--port");
        kv_arg(a, "%u", st->c.port);
        kv_arg(a, "--bind");
        kv_arg(a, "127.0.0.1");
    } else {
        snprintf(where->sock, sizeof where->sock, "%s/pm-redis.sock", srv->srv);
        kv_arg(a, "--port");
        kv_arg(a, "0");
        kv_arg(a, "--unixsocket");
        kv_arg(a, "%s", where->sock);
        kv_arg(a, "--unixsocketperm");
        kv_arg(a, "700");
    }
    kv_arg(a, "--maxmemory");
    kv_arg(a, "%llu", (unsigned long long)st->maxmemory);
    kv_arg(a, "--maxmemory-policy");
    kv_arg(a, "%s", policy_words[st->policy]);
    return 0;
}

/* How long pressmark's AUTH may take once connected. */
#define AUTH_NS 5000000000ull

/* Connected to the server itself (the kernel says so), and signed in as
 * pressmark: nothing is sent to whatever else answers. */
static int redis_probe(const struct kv_server *srv, struct kv_where *where, struct pm_err *err)
{
    int fd = kv_connect(where->sock[0] ? where->sock : NULL, srv->uid, where->port, 0, err);
    if (fd < 0)
        return -1;
    struct kv_io io = { .deadline_ns = pm_now_ns() + AUTH_NS };
    if (kv_peer_check(srv, fd, where->port, err) < 0 ||
        kv_auth(fd, KV_REDIS, KV_AUTH_USER, srv->secret, &io, err) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* GETs at random over the loaded keys: -r draws key:000000000000 ... as
 * the loader named them. */
static void redis_client_argv(const void *state, const struct kv_where *where, struct kv_argv *a)
{
    const struct redis_state *st = state;
    kv_arg(a, "redis-benchmark");
    if (where->sock[0]) {
        kv_arg(a, "-s");
        kv_arg(a, "%s", where->sock);
    } else {
        kv_arg(a, "-h");
        kv_arg(a, "127.0.0.1");
        kv_arg(a, "-p");
        kv_arg(a, "%u", where->port);
    }
    kv_arg(a, "-t");
    kv_arg(a, "get");
    kv_arg(a, "-r");
    kv_arg(a, "%llu", (unsigned long long)st->c.keys);
    kv_arg(a, "-n");
    kv_arg(a, "%llu", (unsigned long long)st->c.requests);
    kv_arg(a, "-c");
    kv_arg(a, "%u", st->c.clients);
    kv_arg(a, "-P");
    kv_arg(a, "%u", st->pipeline);
    kv_arg(a, "--csv");
}

static void put_stat(struct run_ctx *rc, const char *text, const char *key, const struct metric_def *d)
{
    uint64_t v;
    if (kv_stat_u64(text, KV_REDIS, key, &v) == 0)
        run_metric(rc, d, (double)v);
}

/* The count after at in INFO's text, ending at a comma; none when absent
 * and none_is_zero is false, or when not plain digits. */
static void put_field(struct run_ctx *rc, const char *info, const char *at, bool none_is_zero,
                      const struct metric_def *d)
{
    const char *p = strstr(info, at), *end;
    uint64_t v = 0;
    if (p ? kv_u64(p + strlen(at), &end, &v) == 0 && *end == ',' : none_is_zero)
        run_metric(rc, d, (double)v);
}

static void redis_server_figures(const void *state, struct run_ctx *rc, const char *info)
{
    const struct redis_state *st = state;
    put_stat(rc, info, "used_memory", &redis_defs[R_USED]);
    put_stat(rc, info, "used_memory_rss", &redis_defs[R_RSS]);
    put_stat(rc, info, "used_memory_peak", &redis_defs[R_PEAK]);
    put_stat(rc, info, "evicted_keys", &redis_defs[R_EVICTED]);
    put_stat(rc, info, "keyspace_hits", &redis_defs[R_HITS]);
    put_stat(rc, info, "keyspace_misses", &redis_defs[R_MISSES]);
    put_stat(rc, info, "total_error_replies", &redis_defs[R_ERRORS]);
    /* "db0:keys=N,expires=0,avg_ttl=0"; no line: no key at all. The same
     * strict digits as every figure: "-1" is no count. */
    put_field(rc, info, "\ndb0:keys=", true, &redis_defs[R_KEYS]);
    put_field(rc, info, "\ncmdstat_set:calls=", true, &redis_defs[R_SET_CALLS]);
    run_metric(rc, &redis_defs[R_DATASET], (double)(st->c.keys * st->c.value_size));
}

static void redis_load_figures(struct run_ctx *rc, uint64_t sets, uint64_t errors, double secs)
{
    run_metric(rc, &redis_defs[R_LOADED], (double)sets);
    run_metric(rc, &redis_defs[R_LOAD_ERRORS], (double)errors);
    run_metric(rc, &redis_defs[R_LOAD_S], secs);
    if (secs > 0)
        run_metric(rc, &redis_defs[R_LOAD_RATE], (double)sets / secs);
}

static const struct kv_workload redis_kv = {
    .name = "redis",
    .proto = KV_REDIS,
    .users = redis_users,
    .tool = "redis-benchmark",
    .server_argv = redis_server_argv,
    .probe = redis_probe,
    .client_argv = redis_client_argv,
    .server_figures = redis_server_figures,
    .load_figures = redis_load_figures,
};

static int redis_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct redis_state *st = state;
    return kv_run(&redis_kv, st, &st->c, rc, err);
}

const struct workload_ops workload_redis = {
    .metrics = &redis_metrics,
    .name = "redis",
    .summary = "a private redis-server under the cap, its data set loaded, then GETs at random by redis-benchmark",
    .headline = "redis_benchmark.get.requests_per_s",
    .headline_title = "GET/s",
    .options = redis_options,
    .state_size = sizeof(struct redis_state),
    .check = redis_check,
    .run = redis_run,
    .helpers = kv_helpers,
    .guest_packages = "redis-server,redis-tools",
    .journals = true,
};
