/* One run of pgbench against a private PostgreSQL (pgrun.h). */
#include "workloads/pgrun.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "figures/figures.h"
#include "lib/timeutil.h"
#include "pressure/undo.h"
#include "workloads/kvclient.h"
#include "workloads/kvrun.h"
#include "workloads/kvuser.h"
#include "workloads/pgclient.h"
#include "workloads/pgconf.h"
#include "workloads/pglogs.h"
#include "workloads/pgserver.h"
#include "workloads/pgwire.h"

/* The most of pgbench's output read back: its summary is a dozen lines
 * at the end, after a progress line a second. */
#define OUTPUT_MAX (1u << 20)

/* Debian's package's own user. It is not the run's alone: it is the
 * system cluster's too, and whoever acts as it (that cluster's processes,
 * su postgres) can reach the run's server, its directory and its figures.
 * A run trusts it with nothing of root's (docs/security.md says what it
 * can and cannot do); it is never nobody, whom every daemon shares. */
static const char *const pg_users[] = { "postgres", NULL };

/* The counters, and whether a session other than the asking one is open
 * (a backend's last counts reach pg_stat_database as it exits, before it
 * leaves pg_stat_activity). Fixed statements: no value of anyone's in them. */
static const char counters_sql[] =
    "SELECT blks_hit, blks_read, temp_files, temp_bytes, xact_commit, pg_database_size(datid) "
    "FROM pg_stat_database WHERE datname = current_database()";
static const char others_sql[] =
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()";

/* One run's parts, handed between its phases. */
struct pg_life {
    const struct pg_plan *p;
    struct run_ctx *rc;
    struct pg_result *res;
    struct kv_server srv;
    char sock[PATH_MAX];
    int undo_cg;                 /* the run's cgroup, journalled after the directories */
};

/* pgbench's way to the server: the socket's directory, or 127.0.0.1:port
 * (with the password in its environment). */
static void target(const struct pg_life *l, struct kv_argv *a)
{
    kv_arg(a, "%s/pgbench", l->p->bindir);
    kv_arg(a, "--host=%s", l->p->port ? "127.0.0.1" : l->srv.srv);
    kv_arg(a, "--port=%u", l->p->port ? l->p->port : PG_SOCKET_PORT);
    kv_arg(a, "--username=postgres");
}

/* Before each pgbench: the server still up and, with --port, the
 * listener on 127.0.0.1 still its own (pgbench sends the password there,
 * and the server may have ended and another user taken the port since it
 * was started). 0, or 1 with the run failed. */
static int server_still(struct pg_life *l, const char *before)
{
    struct pm_err err;
    if (pg_server_alive(&l->srv, l->p->port, &err) == 0)
        return 0;
    run_set_status(l->rc, "failed", "before %s: %s", before, err.msg);
    return 1;
}

static int load_phase(struct pg_life *l, struct pm_err *err)
{
    struct kv_argv a = { .n = 0 };
    target(l, &a);
    kv_arg(&a, "--initialize");
    kv_arg(&a, "--scale=%llu", (unsigned long long)l->p->scale);
    kv_arg(&a, "--quiet");
    kv_arg(&a, "postgres");
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: pgbench -i's command line is too long");
    char out[8192];
    pid_t pid;
    if (server_still(l, "pgbench -i"))
        return 1;
    run_gauge(l->rc, "workload.phase", 1);
    uint64_t t0 = pm_now_ns();
    int r = pg_client(l->rc, &l->srv, a.v, l->p->port != 0, "pgbench -i", "pgbench-init.log",
                      l->p->client_timeout_ns, out, sizeof out, &pid, err);
    l->res->load_s = (double)(pm_now_ns() - t0) / 1e9;
    return r;
}

/* The counters once no other session is open, over a checked session;
 * one deadline (--client-timeout) for all of it, and Ctrl-C ends it. */
static int counters(struct pg_life *l, uint64_t v[PG_COUNTERS], struct pm_err *err)
{
    struct kv_io io = { .deadline_ns = pm_now_ns() + l->p->client_timeout_ns, .rc = l->rc };
    struct pg_conn c;
    if (pg_connect(&c, &l->srv, l->sock, &io, err) < 0)
        return -1;
    uint64_t others = 0;
    int r;
    while ((r = pg_query_u64(&c, others_sql, &others, 1, err)) == 0 && others > 0) {
        if (pm_now_ns() >= io.deadline_ns) {
            r = pm_errf(err, "%llu sessions still open at the deadline", (unsigned long long)others);
            break;
        }
        struct timespec ts = { 0, 20000000 };
        nanosleep(&ts, NULL);
    }
    if (r == 0)
        r = pg_query_u64(&c, counters_sql, v, PG_COUNTERS, err);
    pg_close(&c);
    return r;
}

/* counters(), a failure being the run's: 0, or 1 with its status set. */
static int counted(struct pg_life *l, uint64_t v[PG_COUNTERS], const char *when)
{
    struct pm_err err;
    if (counters(l, v, &err) == 0)
        return 0;
    if (!run_check_abort(l->rc))
        run_set_status(l->rc, "failed", "the server's own figures %s: %s", when, err.msg);
    return 1;
}

/* pgbench's own figures from its output and its logs, each stored under
 * the name its parser declares. 0, or 1 with the run failed. */
static int tool_figures(struct pg_life *l, const char *out, pid_t pid)
{
    char *log;
    size_t len;
    struct pm_err err;
    if (pg_logs_read(&l->srv, pid, l->p->jobs, &log, &len, &err) < 0) {
        run_set_status(l->rc, "failed", "pgbench's per-transaction log: %s", err.msg);
        return 1;
    }
    if (!log) {
        char why[160], size[48];
        snprintf(size, sizeof size, len == SIZE_MAX ? "more than %zu bytes" : "%zu bytes", len);
        snprintf(why, sizeof why, "not read: %s, over the %u MiB a parser reads; no percentiles stored", size,
                 FIGURES_MAX_TEXT >> 20);
        run_meta(l->rc, "postgres.latency_log", why);
    }
    struct figure_set fs = { .n = 0 };
    int r = figures_parse_log("pgbench", out, strlen(out), log, log ? len : 0, &fs, &err);
    for (size_t i = 0; r == 0 && i < fs.n; i++)
        run_declared_metric(l->rc, fs.v[i].name, fs.v[i].value, fs.v[i].unit, fs.v[i].dir);
    figure_set_free(&fs);
    free(log);
    if (r < 0)
        run_set_status(l->rc, "failed", "%s", err.msg);
    return r < 0 ? 1 : 0;
}

static int measured_phase(struct pg_life *l, struct pm_err *err)
{
    const struct pg_plan *p = l->p;
    struct kv_argv a = { .n = 0 };
    target(l, &a);
    kv_arg(&a, "--client=%u", p->clients);
    kv_arg(&a, "--jobs=%u", p->jobs);
    if (p->duration_ns)
        kv_arg(&a, "--time=%llu", (unsigned long long)(p->duration_ns / 1000000000ull));
    else
        kv_arg(&a, "--transactions=%llu", (unsigned long long)p->transactions);
    /* -P: pgbench prints its latency stddev only with progress reports. */
    kv_arg(&a, "--progress=1");
    kv_arg(&a, "--log");
    kv_arg(&a, "--log-prefix=%s/" PG_LOG_NAME, l->srv.srv);
    if (p->select_only)
        kv_arg(&a, "--select-only");
    kv_arg(&a, "postgres");
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: pgbench's command line is too long");
    if (server_still(l, "pgbench"))
        return 1;
    char *out = malloc(OUTPUT_MAX);
    if (!out)
        return pm_errf(err, "out of memory");
    pid_t pid;
    run_gauge(l->rc, "workload.phase", 2);
    /* -T ends by itself: --client-timeout beyond it. -t takes as long as
     * its transactions do, under the run's --timeout alone (0: none). */
    uint64_t timeout = p->duration_ns ? p->duration_ns + p->client_timeout_ns : 0;
    int r = pg_client(l->rc, &l->srv, a.v, p->port != 0, "pgbench", "pgbench.log", timeout, out, OUTPUT_MAX, &pid,
                      err);
    if (r == 0)
        r = tool_figures(l, out, pid);
    /* What pgbench printed (its end, when long), so a figure can be
     * checked against the tool's own words: the postgres user's words
     * too (the server's messages, pgbench itself), so its lines keep
     * printable ASCII alone. */
    size_t n = strlen(out);
    char *kept = n > 4000 ? out + n - 4000 : out;
    kv_printable_lines(kept);
    run_meta(l->rc, "postgres.client_output", kept);
    free(out);
    return r;
}

/* The server stopped (its wait4 figures the run's time.*), what it left
 * in the run's cgroup killed, its directories removed. */
static int tear_down(struct pg_life *l, int r, struct pm_err *err)
{
    if (l->srv.pid) {
        struct run_exit ex;
        struct pm_err serr;
        int st = pg_server_stop(&l->srv, l->rc, &ex, &serr);
        if (st < 0 && r >= 0)
            r = pm_errf(err, "%s", serr.msg);
        /* GNU time's figures are the server's: its faults are the paging. */
        if (st >= 0)
            run_rusage_metrics(l->rc, &ex);
        if (st == 1 && strcmp(rc_status(l->rc), "ok") == 0)
            run_status_from_exit(l->rc, "the server", &ex);
    }
    /* What the server left running goes before its directory does: it
     * could write there meanwhile. */
    if (kv_cgroup_empty(run_cgroup(l->rc)) < 0 && strcmp(rc_status(l->rc), "ok") == 0)
        run_set_status(l->rc, "failed", "the run's cgroup still held processes 5 s after they were killed");
    if (l->undo_cg >= 0)
        undo_done(l->undo_cg);
    kv_dirs_remove(&l->srv);
    if (r >= 0 && run_check_abort(l->rc) && strcmp(rc_status(l->rc), "aborted") != 0)
        run_set_status(l->rc, "aborted", "interrupted");
    return r < 0 ? -1 : 0;
}

int pg_run(const struct pg_plan *p, struct run_ctx *rc, struct pg_result *res, struct pm_err *err)
{
    struct pg_life l = { .p = p, .rc = rc, .res = res, .undo_cg = -1 };
    memset(res, 0, sizeof *res);
    run_gauge(rc, "workload.phase", 0);
    /* As root, the run's cgroup is what ends every process of the
     * server's, one that left its session (setsid) too: check refused the
     * methods without one; this is the tracking cgroup that failed. */
    if (geteuid() == 0 && !run_cgroup(rc)) {
        run_set_status(rc, "failed", "the run has no cgroup (see its track.cgroup), and as root the server "
                       "needs one: a process of its that left its session would outlive the run");
        return 0;
    }
    int r = kv_dirs_make_in(&l.srv, p->parent, "postgres", pg_users, err);
    pg_socket_path(&l.srv, p->port, l.sock, sizeof l.sock);
    /* The journal undoes newest first: after a SIGKILL of pressmark the
     * server's children (a postmaster's outlive it for a moment) are
     * killed with the cgroup before the directory they write in goes,
     * which the run's own journalling of its cgroup, older, would not. */
    if (r == 0 && run_cgroup(rc) && (l.undo_cg = undo_push(UNDO_CGROUP, run_cgroup(rc), NULL, err)) < 0)
        r = -1;
    if (r == 0)
        r = pg_initdb(rc, &l.srv, p, err);
    if (r == 0)
        r = pg_server_up(rc, &l.srv, p, err);
    if (r == 0)
        r = load_phase(&l, err);
    if (r == 0)
        r = counted(&l, res->before, "after the load phase");
    res->loaded = r == 0;
    if (r == 0)
        r = measured_phase(&l, err);
    run_gauge(rc, "workload.phase", 0);
    if (r == 0 && !run_check_abort(rc))
        res->counted = counted(&l, res->after, "after the measured phase") == 0;
    return tear_down(&l, r, err);
}
