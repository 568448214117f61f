/* PostgreSQL under a memory cap: pgbench against a private server inside
 * the cap, its data set (pgbench -i) sized against the cap (--dataset,
 * 150% of it by default), then pgbench's measured phase from outside the
 * cap. The headline is pgbench's own tps; the server's own counters
 * (pg_stat_database) say what its buffers answered and what it read in. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/metrics.h"
#include "lib/units.h"
#include "workloads/dataset.h"
#include "workloads/kvrun.h"
#include "workloads/pgbin.h"
#include "workloads/pgconf.h"
#include "workloads/pgrun.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

enum { M_SCALE, M_DATASET, M_DB_BYTES, M_LOAD_S, M_HIT, M_READ, M_HIT_PCT, M_TEMP_FILES, M_TEMP_BYTES, M_XACT };
static const struct metric_def postgres_defs[] = {
    [M_SCALE] = METRIC("postgres.scale", "count", PM_NEITHER,
                       "pgbench's scale (-s) the load phase made: 100,000 accounts a unit"),
    [M_DATASET] = METRIC("postgres.dataset_bytes", "bytes", PM_NEITHER,
                         "the data set asked for in whole units of scale, 15 MiB each (--dataset, or --scale)"),
    [M_DB_BYTES] = METRIC("postgres.database_bytes", "bytes", PM_NEITHER,
                          "the database after the load phase as the server counts it (pg_database_size)"),
    [M_LOAD_S] = METRIC("postgres.load_s", "s", PM_LOWER, "how long the load phase (pgbench -i) took"),
    [M_HIT] = METRIC("postgres.blks_hit", "count", PM_NEITHER,
                     "blocks found in shared_buffers during the measured phase (pg_stat_database, after less before)"),
    [M_READ] = METRIC("postgres.blks_read", "count", PM_NEITHER,
                      "blocks the server read in during the measured phase, from the page cache or the disk "
                      "(blks_read, after less before)"),
    [M_HIT_PCT] = METRIC("postgres.hit_pct", "%", PM_HIGHER,
                         "share of the measured phase's block reads shared_buffers answered: hit / (hit + read)"),
    [M_TEMP_FILES] = METRIC("postgres.temp_files", "count", PM_LOWER,
                            "temporary files queries wrote during the measured phase (temp_files, after less before)"),
    [M_TEMP_BYTES] = METRIC("postgres.temp_bytes", "bytes", PM_LOWER,
                            "bytes of temporary files during the measured phase (temp_bytes, after less before)"),
    [M_XACT] = METRIC("postgres.xact_commit", "count", PM_NEITHER,
                      "transactions the server committed during the measured phase: pgbench's, and autovacuum's "
                      "and pressmark's own few (xact_commit, after less before)"),
};
static const struct metric_group postgres_metrics = METRIC_GROUP(
    "postgres: run postgres, pgbench against a private PostgreSQL under the cap (the server's own counters; "
    "pgbench's figures are the pgbench parser's)", postgres_defs);

static const char *const mode_words[] = { "tpcb", "select", NULL };
static const char *const onoff_words[] = { "on", "off", NULL };
enum { MODE_TPCB, MODE_SELECT };
enum { FSYNC_ON, FSYNC_OFF };

/* A measured phase without --duration or --transactions. */
#define DURATION_DEFAULT_NS 30000000000ull

struct postgres_state {
    struct kv_common c;          /* first: kv_check reads it so */
    uint64_t scale, shared_buffers, duration_ns, transactions;
    unsigned jobs, mode, fsync;
    char dir[PATH_MAX];
    struct pg_plan plan;         /* resolved by check */
};

#define PS(field) offsetof(struct postgres_state, field)
static const struct opt postgres_options[] = {
    { .name = "dataset", .type = OPT_STRING, .offset = PS(c.dataset), .size = sizeof(((struct kv_common *)0)->dataset),
      .metavar = "SIZE|PCT", .set = wl_dataset_set,
      .help = "data set pgbench -i makes: a size, or a share of --mem-cap (default 150% of the cap, 256M without "
              "one), in whole units of pgbench's scale, 15 MiB each" },
    { .name = "scale", .type = OPT_U64, .offset = PS(scale), .metavar = "N", .def = "0", .min = 0, .max = 1e7,
      .noun = "scale", .help = "pgbench's scale (-s) instead of --dataset (0: from --dataset)" },
    { .name = "mode", .type = OPT_CHOICE, .offset = PS(mode), .metavar = "MODE", .def = "tpcb", .words = mode_words,
      .noun = "mode", .help = "pgbench's script: tpcb, its TPC-B-like default (three updates, an insert and a "
                              "select), or select (-S, one select by key)" },
    { .name = "clients", .type = OPT_UINT, .offset = PS(c.clients), .metavar = "N", .def = "8", .min = 1,
      .max = 5000, .noun = "client count", .help = "pgbench's clients, a connection each (-c)" },
    { .name = "jobs", .type = OPT_UINT, .offset = PS(jobs), .metavar = "N", .def = "0", .min = 0, .max = PG_JOBS_MAX,
      .noun = "thread count", .help = "pgbench's threads (-j; 0: one per client, at most one per CPU and 256)" },
    { .name = "duration", .type = OPT_DURATION, .offset = PS(duration_ns), .metavar = "D", .min = 0, .max = 864e11,
      .help = "how long the measured phase runs (pgbench -T, whole seconds; 30s unless --transactions)" },
    { .name = "transactions", .type = OPT_U64, .offset = PS(transactions), .metavar = "N", .def = "0", .min = 0,
      .max = 1e12, .noun = "transaction count", .help = "transactions each client runs instead of --duration "
                                                        "(pgbench -t; 0: --duration)" },
    { .name = "shared-buffers", .type = OPT_SIZE, .offset = PS(shared_buffers), .metavar = "SIZE", .def = "0",
      .min = 0, .max = 1e15, .help = "the server's shared_buffers (0: a quarter of --mem-cap, PostgreSQL's "
                                     "128M without a cap)" },
    { .name = "fsync", .type = OPT_CHOICE, .offset = PS(fsync), .metavar = "on|off", .def = "on",
      .words = onoff_words, .noun = "fsync setting",
      .help = "the server's fsync: on (the default, PostgreSQL's) flushes each commit's WAL to the disk; off "
              "leaves the disk's flushes out of what is measured" },
    { .name = "port", .type = OPT_UINT, .offset = PS(c.port), .metavar = "N", .def = "0", .min = 0, .max = 65535,
      .noun = "port", .help = "TCP port on 127.0.0.1 for pgbench instead of the socket in the run's directory, 1024 "
                              "or above (0: the socket)" },
    { .name = "dir", .type = OPT_STRING, .offset = PS(dir), .size = sizeof(((struct postgres_state *)0)->dir),
      .metavar = "DIR", .help = "where the run's directory is made (default $TMPDIR, else /var/tmp): the "
                                "cluster's files, the data set read from its disk" },
    { .name = "client-timeout", .type = OPT_DURATION, .offset = PS(c.client_timeout_ns), .metavar = "D",
      .def = "10m", .min = 1e9, .max = 1e14, .flags = OPT_NO_DESCRIBE,
      .help = "the most initdb and pgbench -i may take, and pgbench beyond --duration (with --transactions, "
              "pgbench has the run's --timeout alone)" },
    { .type = OPT_END },
};

/* Can the server's user pass through every directory down to dir (the
 * run's directory is made in it)? Others' search permission on each: the
 * postgres user is neither root nor, usually, in a directory's group. As
 * root only: otherwise the server is this user's. */
static int traversable(const char *dir, struct pm_err *err)
{
    char walk[PATH_MAX];
    size_t n = strlen(dir);
    if (geteuid() != 0 || n >= sizeof walk)
        return 0;
    for (size_t i = 1; i <= n; i++) {
        if (i < n && dir[i] != '/')
            continue;
        memcpy(walk, dir, i);
        walk[i] = '\0';
        struct stat sb;
        if (stat(walk, &sb) < 0)
            return pm_errf(err, "%s: %s", walk, strerror(errno));
        if (!(sb.st_mode & S_IXOTH))
            return pm_errf(err, "%s is below %s, which the postgres user cannot pass through (mode %04o; accepted: "
                           "directories every user may pass through, o+x)", dir, walk,
                           (unsigned)(sb.st_mode & 07777));
    }
    return 0;
}

/* Where the run's directory goes: --dir, $TMPDIR, /var/tmp (a disk's on
 * Debian, where /tmp may be memory), resolved, only root or this user
 * able to change any directory down to it, the server's user able to
 * reach it, and a path PostgreSQL can carry. */
static int choose_parent(struct postgres_state *st, struct pm_err *err)
{
    const char *tmp = getenv("TMPDIR");
    const char *want = st->dir[0] ? st->dir : tmp && *tmp == '/' ? tmp : "/var/tmp";
    const char *what = st->dir[0] ? "--dir" : tmp && *tmp == '/' ? "TMPDIR" : "/var/tmp";
    char why[sizeof err->msg];
    struct stat sb;
    if (!realpath(want, st->plan.parent) || stat(st->plan.parent, &sb) < 0 ||
        (!S_ISDIR(sb.st_mode) && (errno = ENOTDIR)))
        return pm_errf(err, "%s: '%.200s': %s (accepted: an existing directory)", what, want, strerror(errno));
    if (pm_trusted_path(st->plan.parent, err) < 0 || traversable(st->plan.parent, err) < 0 ||
        pg_parent_check(st->plan.parent, st->c.port, err) < 0) {
        snprintf(why, sizeof why, "%s", err->msg);
        return pm_errf(err, "%s: %s", what, why);
    }
    return 0;
}

/* The data set: --scale as given, else --dataset (or its default) in
 * whole units, refused where memory and swap cannot hold it. */
static int choose_scale(struct postgres_state *st, const struct wl_limits *lim, struct pm_err *err)
{
    static const char *const none[] = { NULL };
    if (st->scale && st->c.dataset[0])
        return pm_errf(err, "--scale %llu and --dataset %s: one data set (accepted: either)",
                       (unsigned long long)st->scale, st->c.dataset);
    if (st->scale) {
        st->plan.scale = st->scale;
        if (st->c.port && kv_port_free(st->c.port, err) < 0)
            return pm_err_prefix(err, "--port");
        return wl_check_fits(lim, st->scale * PG_SCALE_BYTES, "--scale", err);
    }
    st->c.value_size = 1;        /* kv_check's keys are then bytes */
    if (kv_check(&st->c, lim, none, "", err) < 0)
        return -1;
    if ((st->plan.scale = pg_scale_of(st->c.dataset_bytes)) == 0)
        return pm_errf(err, "--dataset: %s comes to %.1f MiB, less than half a unit of pgbench's scale (%llu MiB; "
                       "accepted: 7.5M or more, or --scale N)", st->c.dataset[0] ? st->c.dataset : "150% of the cap",
                       (double)st->c.dataset_bytes / (1 << 20), PG_SCALE_BYTES >> 20);
    return 0;
}

/* The measured phase: --duration in whole seconds, or --transactions. */
static int choose_length(struct postgres_state *st, struct pm_err *err)
{
    if (st->duration_ns && st->transactions)
        return pm_errf(err, "--duration and --transactions: the measured phase is one of them (accepted: either)");
    if (!st->duration_ns && !st->transactions)
        st->duration_ns = DURATION_DEFAULT_NS;
    if (st->duration_ns % 1000000000ull)
        return pm_errf(err, "--duration: %.3f s is not whole seconds (pgbench -T counts seconds; accepted: 1s, "
                       "90s, 5m, ...)", (double)st->duration_ns / 1e9);
    return 0;
}

/* What runs the server as root needs besides its programs: the run's
 * cgroup, which ends every process of the server's (a backend that calls
 * setsid leaves the group a kill reaches, never the cgroup), and a port
 * the postgres user may listen on (root's test of the port would pass
 * where the server then fails). */
static int root_needs(const struct postgres_state *st, const struct wl_limits *lim, struct pm_err *err)
{
    if (st->c.port && st->c.port < 1024)
        return pm_errf(err, "--port: '%u' is a port only root may listen on, and the server runs as the postgres "
                       "user (accepted: 1024 to 65535, or 0 for the socket alone)", st->c.port);
    if (geteuid() == 0 && lim->no_cgroup)
        return pm_errf(err, "%s: the server would run without the run's cgroup, which as root is what ends all of its "
                       "processes (accepted: a cgroup cap, or none, where there is a memory cgroup hierarchy)",
                       lim->no_cgroup);
    return 0;
}

static int postgres_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct postgres_state *st = state;
    static const char *const setpriv[] = { "setpriv", NULL };
    if (pg_find_bindir(st->plan.bindir, sizeof st->plan.bindir, err) < 0 ||
        kv_need_programs(setpriv, "util-linux", err) < 0 || kv_need_user("postgres", "postgresql", err) < 0 ||
        root_needs(st, lim, err) < 0 || choose_scale(st, lim, err) < 0 || choose_length(st, err) < 0 ||
        choose_parent(st, err) < 0)
        return -1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    st->plan.jobs = pg_jobs_of(st->jobs, st->c.clients, cpus);
    if (st->plan.jobs > st->c.clients)
        return pm_errf(err, "--jobs: %u is more threads than --clients %u (accepted: at most one a client)",
                       st->plan.jobs, st->c.clients);
    st->plan.shared_buffers = pg_shared_buffers_of(st->shared_buffers, lim->mem_cap);
    if (wl_check_fits(lim, st->plan.shared_buffers, "--shared-buffers", err) < 0)
        return -1;
    st->plan.duration_ns = st->duration_ns;
    st->plan.transactions = st->transactions;
    st->plan.client_timeout_ns = st->c.client_timeout_ns;
    st->plan.clients = st->c.clients;
    st->plan.port = st->c.port;
    st->plan.select_only = st->mode == MODE_SELECT;
    st->plan.fsync = st->fsync == FSYNC_ON;
    return 0;
}

/* A counter's growth over the measured phase; none when it went back (a
 * reset of the statistics: no figure rather than a wrong one). */
static void put_delta(struct run_ctx *rc, const struct pg_result *res, int k, const struct metric_def *d)
{
    if (res->after[k] >= res->before[k])
        run_metric(rc, d, (double)(res->after[k] - res->before[k]));
}

static void put_figures(struct run_ctx *rc, const struct pg_plan *p, const struct pg_result *res)
{
    if (res->loaded) {
        run_metric(rc, &postgres_defs[M_SCALE], (double)p->scale);
        run_metric(rc, &postgres_defs[M_DATASET], (double)(p->scale * PG_SCALE_BYTES));
        run_metric(rc, &postgres_defs[M_DB_BYTES], (double)res->before[PG_DB_BYTES]);
        run_metric(rc, &postgres_defs[M_LOAD_S], res->load_s);
    }
    if (!res->counted)
        return;
    put_delta(rc, res, PG_BLKS_HIT, &postgres_defs[M_HIT]);
    put_delta(rc, res, PG_BLKS_READ, &postgres_defs[M_READ]);
    put_delta(rc, res, PG_TEMP_FILES, &postgres_defs[M_TEMP_FILES]);
    put_delta(rc, res, PG_TEMP_BYTES, &postgres_defs[M_TEMP_BYTES]);
    put_delta(rc, res, PG_XACT_COMMIT, &postgres_defs[M_XACT]);
    uint64_t hit = res->after[PG_BLKS_HIT] - res->before[PG_BLKS_HIT];
    uint64_t read = res->after[PG_BLKS_READ] - res->before[PG_BLKS_READ];
    if (res->after[PG_BLKS_HIT] >= res->before[PG_BLKS_HIT] && res->after[PG_BLKS_READ] >= res->before[PG_BLKS_READ] &&
        hit + read > 0)
        run_metric(rc, &postgres_defs[M_HIT_PCT], 100.0 * (double)hit / (double)(hit + read));
}

static int postgres_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct postgres_state *st = state;
    struct pg_result res;
    int r = pg_run(&st->plan, rc, &res, err);
    put_figures(rc, &st->plan, &res);
    return r;
}

/* The configuration as it runs: the scale, threads and buffers resolved. */
static void postgres_describe(void *state, char *buf, size_t len)
{
    const struct postgres_state *st = state;
    const struct pg_plan *p = &st->plan;
    char sb[32], length[64], port[32] = "";
    pm_fmt_size(sb, sizeof sb, p->shared_buffers);
    if (p->duration_ns)
        snprintf(length, sizeof length, "--duration %llus", (unsigned long long)(p->duration_ns / 1000000000ull));
    else
        snprintf(length, sizeof length, "--transactions %llu", (unsigned long long)p->transactions);
    if (p->port)
        snprintf(port, sizeof port, " --port %u", p->port);
    snprintf(buf, len, "--scale %llu --mode %s --clients %u --jobs %u %s --shared-buffers %s --fsync %s%s",
             (unsigned long long)p->scale, mode_words[st->mode], p->clients, p->jobs, length, sb,
             onoff_words[st->fsync], port);
}

/* Beside the headline, per cell: the latency, and the server's own view
 * of the pressure (what its buffers answered, what spilled to files). */
static const char *const postgres_compare_also[] = { MN_pgbench_latency_avg_ms, MN_postgres_hit_pct,
                                                     MN_postgres_temp_files, NULL };

const struct workload_ops workload_postgres = {
    .metrics = &postgres_metrics,
    .name = "postgres",
    .summary = "pgbench against a private PostgreSQL server under the cap, its data set loaded by pgbench -i",
    .headline = MN_pgbench_tps,
    .headline_title = "tps",
    .compare_also = postgres_compare_also,
    .options = postgres_options,
    .state_size = sizeof(struct postgres_state),
    .check = postgres_check,
    .run = postgres_run,
    .describe = postgres_describe,
    .journals = true,
    .guest_packages = "postgresql",
};
