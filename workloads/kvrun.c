/* The server workloads' run (kvrun.h). */
#include "workloads/kvrun.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "figures/figures.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "workloads/kvuser.h"

#define READY_NS 15000000000ull
/* The default data set: half again the cap, so a third of it cannot be
 * resident; without a cap, a size this machine holds with room to spare. */
#define DATASET_PCT_DEFAULT 150
#define DATASET_UNCAPPED "256M"
/* A share of the cap above it is the point (the default is 150%); past
 * ten times the cap a run is a load phase of swap alone. */
#define DATASET_PCT_MAX 1000
/* The most of a tool's output read back (its CSV is a few lines). */
#define OUTPUT_MAX (1u << 20)

/* A size, or N% of the cap with 0 < N <= DATASET_PCT_MAX (pm_parse_size
 * stops at 100%: a share of MemTotal cannot exceed it, of a cap it may). */
static int parse_dataset(const char *s, uint64_t cap, uint64_t *bytes)
{
    size_t n = strlen(s);
    if (!n || s[n - 1] != '%')
        return pm_parse_size(s, cap, bytes);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end != s + n - 1 || !(s[0] >= '0' && s[0] <= '9') || !(v > 0) || v > DATASET_PCT_MAX)
        return -1;
    *bytes = (uint64_t)(v / 100.0 * (double)cap);
    return 0;
}

int kv_dataset_set(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    uint64_t b;
    /* Syntax only here: a percentage's bytes need the cap (kv_check). */
    if (parse_dataset(value, 1ull << 30, &b) < 0 || b == 0)
        return pm_errf(err, "'%s' is not a size (accepted: a byte count with K, M, G or T, e.g. 64M, or a "
                       "percentage of --mem-cap up to %d%% such as 150%%)", value, DATASET_PCT_MAX);
    return 0;
}

int kv_check(struct kv_common *c, const struct wl_limits *lim, const char *const *progs, const char *pkgs,
             struct pm_err *err)
{
    if (kv_need_programs(progs, pkgs, err) < 0)
        return -1;
    if (c->port && kv_port_free(c->port, err) < 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return pm_errf(err, "--port: %s", why);
    }
    bool pct = c->dataset[0] && c->dataset[strlen(c->dataset) - 1] == '%';
    if (pct && !lim->mem_cap)
        return pm_errf(err, "--dataset: '%s' is a share of the cap and there is none (accepted without --mem-cap: "
                       "a size such as 256M)", c->dataset);
    char def[32];
    snprintf(def, sizeof def, "%d%%", DATASET_PCT_DEFAULT);
    const char *ds = c->dataset[0] ? c->dataset : lim->mem_cap ? def : DATASET_UNCAPPED;
    if (parse_dataset(ds, lim->mem_cap, &c->dataset_bytes) < 0 || c->dataset_bytes == 0)
        return pm_errf(err, "--dataset: '%s' comes to no bytes", ds);
    if (c->value_size > c->dataset_bytes)
        return pm_errf(err, "--value-size: %llu is larger than the data set (%llu bytes)",
                       (unsigned long long)c->value_size, (unsigned long long)c->dataset_bytes);
    c->keys = c->dataset_bytes / c->value_size;
    return wl_check_fits(lim, c->dataset_bytes, "--dataset", err);
}

/* One run's parts, handed between its phases. */
struct kv_life {
    const struct kv_workload *w;
    const void *state;
    const struct kv_common *c;
    struct run_ctx *rc;
    struct kv_server srv;
    struct kv_where where;
};

static int probe(void *arg, struct pm_err *err)
{
    struct kv_life *l = arg;
    return l->w->probe(&l->srv, &l->where, err);
}

/* A client that did not end well: the run's status says how, with the
 * last line it wrote. */
static void client_failed(struct kv_life *l, const char *what, const struct run_exit *ex, const char *out)
{
    char tail[256] = "";
    const char *nl = out + strlen(out);
    while (nl > out && (nl[-1] == '\n' || nl[-1] == '\r'))
        nl--;
    const char *start = nl;
    while (start > out && start[-1] != '\n' && start[-1] != '\r')
        start--;
    size_t o = 0;
    for (const char *p = start; p < nl && o + 1 < sizeof tail; p++)
        tail[o++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
    tail[o] = '\0';
    if (ex->timed_out && !ex->aborted)
        run_set_status(l->rc, "failed", "%s did not finish within %.0f s (--client-timeout, or the run's --timeout)",
                       what, (double)l->c->client_timeout_ns / 1e9);
    else
        run_status_from_exit(l->rc, what, ex);
    if (tail[0] && strcmp(rc_status(l->rc), "ok") != 0) {
        char reason[1024];
        snprintf(reason, sizeof reason, "%s: %s", what, tail);
        run_meta(l->rc, "workload.client_said", reason);
    }
}

/* Run argv as a client outside the cap, its output (both streams) in the
 * file name; the output's text into out. 0 when it ended well, 1 when
 * the run failed (its status says why), -1 on harness errors. */
static int run_client(struct kv_life *l, char *const argv[], const char *what, const char *name, int pass_fd,
                      char *out, size_t len, struct pm_err *err)
{
    /* As the server's user, like the server: the socket it reaches is in
     * that user's directory, and whatever the user put there is the
     * user's own to reach. Only the loader needs the password. */
    struct kv_argv a = { .n = 0 };
    if (kv_arg_program(&l->srv, &a, argv[0], err) < 0)
        return -1;
    for (int i = 1; argv[i]; i++)
        kv_arg(&a, "%s", argv[i]);
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: %s's command line is too long", what);
    struct kv_env env;
    kv_user_env(&l->srv, pass_fd >= 0, &env);
    char path[PATH_MAX];
    int fd = kv_file_create(&l->srv, name, path, sizeof path, err);
    if (fd < 0)
        return -1;
    /* Its output file is root's: the user writes it through the
     * descriptor it is given, never by name. */
    pid_t pid;
    struct run_exit ex;
    if (run_spawn_env(l->rc, a.v, env.v, true, pass_fd, fd, &pid, err) < 0 ||
        run_wait_until(l->rc, pid, pm_now_ns() + l->c->client_timeout_ns, &ex, err) < 0) {
        close(fd);
        return -1;
    }
    close(fd);
    kv_file_read(path, false, out, len);
    if (!ex.timed_out && !ex.aborted && WIFEXITED(ex.wstatus) && WEXITSTATUS(ex.wstatus) == 0)
        return 0;
    client_failed(l, what, &ex, out);
    return 1;
}

static int load_phase(struct kv_life *l, struct pm_err *err)
{
    struct kv_argv a = { .n = 0 };
    kv_arg(&a, "%s", run_exe(l->rc));
    kv_arg(&a, "__kv-load");
    kv_arg(&a, "--proto=%s", l->w->proto == KV_REDIS ? "redis" : "memcached");
    if (l->where.sock[0])
        kv_arg(&a, "--socket=%s", l->where.sock);
    else
        kv_arg(&a, "--port=%u", l->where.port);
    kv_arg(&a, "--keys=%llu", (unsigned long long)l->c->keys);
    kv_arg(&a, "--value-size=%llu", (unsigned long long)l->c->value_size);
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    run_gauge(l->rc, "workload.phase", 1);
    char out[4096], report[512];
    int r = run_client(l, a.v, "the loader (pressmark __kv-load)", "load.log", p[1], out, sizeof out, err);
    close(p[1]);
    ssize_t n = r == 0 ? read(p[0], report, sizeof report - 1) : 0;
    close(p[0]);
    report[n > 0 ? n : 0] = '\0';
    if (r != 0)
        return r;
    unsigned long long sets, errors, ns;
    if (sscanf(report, "sets %llu errors %llu ns %llu", &sets, &errors, &ns) != 3) {
        run_set_status(l->rc, "failed", "the loader (pressmark __kv-load) ended without its report");
        return 1;
    }
    l->w->load_figures(l->rc, sets, errors, (double)ns / 1e9);
    const char *first = strstr(report, "\nerror ");
    if (first) {
        char key[64];
        snprintf(key, sizeof key, "%s.load_first_error", l->w->name);
        run_meta(l->rc, key, first + 7);
    }
    return 0;
}

/* The tool's figures, each stored under the name its parser declares. */
static int tool_figures(struct kv_life *l, const char *text)
{
    struct figure_set fs = { .n = 0 };
    struct pm_err ferr;
    int r = figures_parse(l->w->tool, text, strlen(text), &fs, &ferr);
    for (size_t i = 0; r == 0 && i < fs.n; i++) {
        const struct metric_def d = METRIC(fs.v[i].name, fs.v[i].unit, fs.v[i].dir, "");
        run_metric(l->rc, &d, fs.v[i].value);
    }
    figure_set_free(&fs);
    if (r < 0)
        run_set_status(l->rc, "failed", "%s", ferr.msg);
    return r < 0 ? 1 : 0;
}

static int measured_phase(struct kv_life *l, struct pm_err *err)
{
    struct kv_argv a = { .n = 0 };
    l->w->client_argv(l->state, &l->where, &a);
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: %s's command line is too long", l->w->tool);
    char *out = malloc(OUTPUT_MAX);
    if (!out)
        return pm_errf(err, "out of memory");
    run_gauge(l->rc, "workload.phase", 2);
    int r = run_client(l, a.v, l->w->tool, "client.out", -1, out, OUTPUT_MAX, err);
    if (r == 0)
        r = tool_figures(l, out);
    char key[64];
    snprintf(key, sizeof key, "%s.client_output", l->w->name);
    /* What the tool printed (its end, when long), so a figure can be
     * checked against the tool's own words. */
    size_t n = strlen(out);
    run_meta(l->rc, key, n > 4000 ? out + n - 4000 : out);
    free(out);
    return r;
}

/* The server's own figures, over its socket, after the measured phase. */
static void stats_phase(struct kv_life *l)
{
    struct pm_err err;
    char *buf = malloc(KV_STATS_MAX);
    int fd = buf ? l->w->probe(&l->srv, &l->where, &err) : pm_errf(&err, "out of memory");
    /* One deadline for all of it (--client-timeout), and Ctrl-C ends it. */
    struct kv_io io = { .deadline_ns = pm_now_ns() + l->c->client_timeout_ns, .rc = l->rc };
    if (fd >= 0 && kv_stats(fd, l->w->proto, &io, buf, KV_STATS_MAX, &err) == 0)
        l->w->server_figures(l->state, l->rc, buf);
    else if (strcmp(rc_status(l->rc), "ok") == 0)
        run_set_status(l->rc, "failed", "the server's own figures: %s", err.msg);
    if (fd >= 0)
        close(fd);
    free(buf);
}

/* Its configuration and whereabouts, in the run's record. */
static void describe_server(struct kv_life *l, const struct kv_argv *a)
{
    char line[4096] = "", key[64];
    size_t o = 0;
    for (int i = 0; i < a->n && o < sizeof line; i++)
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", i ? " " : "", a->v[i][0] ? a->v[i] : "''");
    snprintf(key, sizeof key, "%s.server_command", l->w->name);
    run_meta(l->rc, key, line);
    snprintf(key, sizeof key, "%s.user", l->w->name);
    run_meta(l->rc, key, l->srv.user);
    snprintf(key, sizeof key, "%s.dataset_bytes", l->w->name);
    snprintf(line, sizeof line, "%llu", (unsigned long long)l->c->dataset_bytes);
    run_meta(l->rc, key, line);
}

/* The server up and answering: 0, 1 when it did not come up (the run's
 * status says why), -1 on harness errors. */
static int server_up(struct kv_life *l, struct pm_err *err)
{
    struct kv_argv own = { .n = 0 }, a = { .n = 0 };
    char word[PATH_MAX];
    if (l->w->server_argv(l->state, &l->srv, &l->where, &own, word, sizeof word, err) < 0)
        return -1;
    /* As the server's user (setpriv), its program found in root's PATH. */
    if (!kv_argv_full(&own) && kv_arg_program(&l->srv, &a, own.v[0], err) < 0)
        return -1;
    for (int i = 1; i < own.n && !kv_argv_full(&own); i++)
        kv_arg(&a, "%s", own.v[i]);
    if (kv_argv_full(&own) || kv_argv_full(&a))
        return pm_errf(err, "internal: the server's command line is too long");
    describe_server(l, &a);
    if (kv_server_start(&l->srv, l->rc, a.v, word, err) < 0)
        return -1;
    struct pm_err rerr;
    if (kv_server_ready(&l->srv, l->rc, READY_NS, probe, l, &rerr) < 0) {
        if (!run_check_abort(l->rc))
            run_set_status(l->rc, "failed", "%s: %s", a.v[0], rerr.msg);
        return 1;
    }
    return 0;
}

int kv_run(const struct kv_workload *w, const void *state, const struct kv_common *c, struct run_ctx *rc,
           struct pm_err *err)
{
    struct kv_life l = { .w = w, .state = state, .c = c, .rc = rc };
    run_gauge(rc, "workload.phase", 0);
    int r = kv_dirs_make(&l.srv, w->name, w->users, err);
    if (r == 0)
        r = server_up(&l, err);
    if (r == 0)
        r = load_phase(&l, err);
    if (r == 0)
        r = measured_phase(&l, err);
    run_gauge(rc, "workload.phase", 0);
    if (r >= 0 && l.srv.pid && !run_check_abort(rc))
        stats_phase(&l);
    if (l.srv.pid) {
        struct run_exit ex;
        struct pm_err serr;
        int st = kv_server_stop(&l.srv, rc, &ex, &serr);
        if (st < 0 && r >= 0)
            r = pm_errf(err, "%s", serr.msg);
        /* GNU time's figures are the server's: its faults are the paging. */
        if (st >= 0)
            run_rusage_metrics(rc, &ex);
        if (st == 1 && strcmp(rc_status(rc), "ok") == 0)
            run_status_from_exit(rc, "the server", &ex);
    }
    /* What the server left running (a child in a session of its own) goes
     * before its directory does: it could write there meanwhile. */
    kv_cgroup_empty(run_cgroup(rc));
    kv_dirs_remove(&l.srv);
    if (r >= 0 && run_check_abort(rc) && strcmp(rc_status(rc), "aborted") != 0)
        run_set_status(rc, "aborted", "interrupted");
    return r < 0 ? -1 : 0;
}

const struct wl_helper kv_helpers[] = {
    { "__kv-load", kv_load_main },
    { NULL, NULL },
};
