/* The server workloads' run (kvrun.h). */
#include "workloads/kvrun.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "figures/figures.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "workloads/dataset.h"
#include "workloads/kvuser.h"
#include "workloads/latency.h"

#define READY_NS 15000000000ull
/* The most of a tool's output read back (its CSV is a few lines). */
#define OUTPUT_MAX (1u << 20)

int kv_check(struct kv_common *c, const struct wl_limits *lim, const char *const *progs, const char *pkgs,
             struct pm_err *err)
{
    if (kv_need_programs(progs, pkgs, err) < 0)
        return -1;
    /* Below 1024 a port is a system service's to have (the server's user
     * could not bind it anyway, root pressmark could have checked it):
     * never the private instance's. */
    if (c->port && c->port < KV_PORT_MIN)
        return pm_errf(err, "--port: '%u' is a privileged port (accepted: 0 for the run's own Unix socket, or a free "
                       "port from %u to 65535)", c->port, KV_PORT_MIN);
    if (c->port && kv_port_free(c->port, err) < 0)
        return pm_err_prefix(err, "--port");
    if (wl_dataset_resolve(c->dataset, lim->mem_cap, &c->dataset_bytes, err) < 0)
        return -1;
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
    struct run_exit ex;          /* how the last client ended (run_client) */
};

static int probe(void *arg, struct pm_err *err)
{
    struct kv_life *l = arg;
    return l->w->probe(&l->srv, &l->where, err);
}

void kv_last_line(const char *out, char *tail, size_t len)
{
    const char *nl = out + strlen(out);
    while (nl > out && (nl[-1] == '\n' || nl[-1] == '\r'))
        nl--;
    const char *start = nl;
    while (start > out && start[-1] != '\n' && start[-1] != '\r')
        start--;
    size_t o = 0;
    for (const char *p = start; p < nl && o + 1 < len; p++)
        tail[o++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
    tail[o] = '\0';
}

/* A client that did not end well: the run's status says how, with the
 * last line it wrote. */
static void client_failed(struct kv_life *l, const char *what, const struct run_exit *ex, const char *out)
{
    char tail[256];
    kv_last_line(out, tail, sizeof tail);
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

/* How long a helper's report may take to end once the helper and its
 * cgroup are gone: a pipe that nobody else holds ends at once. */
#define DRAIN_NS 5000000000ull

/* A helper's report pipe (its descriptor 4): root's read end, which never
 * blocks, and the write end, the helper's alone once it is started (root
 * closes its copy right after the spawn). Read while the helper runs (rr)
 * or after it (text). */
struct kv_report {
    int rd, wr;
    struct wl_reader *rr;
    char text[512];
    bool whole;                  /* its end of file came by the deadline */
};

static int report_open(struct kv_report *rep, struct wl_reader *rr, struct pm_err *err)
{
    memset(rep, 0, sizeof *rep);
    rep->rd = rep->wr = -1;
    rep->rr = rr;
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    int fl = fcntl(p[0], F_GETFL);
    if (fl < 0 || fcntl(p[0], F_SETFL, fl | O_NONBLOCK) < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        return pm_errf(err, "pipe: %s", strerror(e));
    }
    rep->rd = p[0];
    rep->wr = p[1];
    return 0;
}

static void report_close(struct kv_report *rep)
{
    if (rep->rd >= 0)
        close(rep->rd);
    if (rep->wr >= 0)
        close(rep->wr);
    rep->rd = rep->wr = -1;
}

/* The report's text, once the helper is gone: read to the pipe's end of
 * file, but never past deadline (the memcache user may have reopened the
 * helper's /proc/PID/fd/4 and hold it, silent or writing for ever); what
 * is beyond text's size is read and dropped. true when the end came. */
static bool drain(int fd, char *text, size_t len, uint64_t deadline)
{
    size_t n = 0;
    char sink[4096];
    bool eof = false;
    for (uint64_t now = pm_now_ns(); !eof && now < deadline; now = pm_now_ns()) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        uint64_t ms = (deadline - now) / 1000000ull + 1;
        int r = poll(&p, 1, ms > 200 ? 200 : (int)ms);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        bool room = n + 1 < len;
        ssize_t k = read(fd, room ? text + n : sink, room ? len - 1 - n : sizeof sink);
        if (k < 0 && errno != EINTR && errno != EAGAIN)
            break;
        eof = k == 0;
        if (k > 0 && room)
            n += (size_t)k;
    }
    text[n] = '\0';
    return eof;
}

/* How a client that exited 0 still failed the run: its cgroup kept a
 * process through SIGKILL, or its report never ended. 0, or 1 (said). */
static int client_leftovers(struct kv_life *l, const char *what, bool emptied, const struct kv_report *rep)
{
    if (!emptied) {
        run_set_status(l->rc, "failed", "%s's cgroup still held processes 5 s after they were killed", what);
        return 1;
    }
    if (rep && !rep->whole) {
        run_set_status(l->rc, "failed", "%s's report did not end: its pipe was still open %.0f s after it ended, "
                       "held by a process outside the run's cgroups (its report is not taken)", what,
                       (double)DRAIN_NS / 1e9);
        return 1;
    }
    return 0;
}

/* Run argv as a client outside the cap, its output (both streams) in the
 * file name; the output's text into out. With rep, its report on
 * descriptor 4: read while it runs (rep->rr) or after. 0 when it ended
 * well, 1 when the run failed (its status says why), -1 on harness
 * errors. */
static int run_client(struct kv_life *l, char *const argv[], const char *what, const char *name,
                      struct kv_report *rep, char *out, size_t len, struct pm_err *err)
{
    /* As the server's user, like the server: the socket it reaches is in
     * that user's directory, and whatever the user put there is the
     * user's own to reach. pressmark's own helpers (they report on
     * descriptor 4) sign in with the password; a tool never gets it. */
    struct kv_argv a = { .n = 0 };
    if (kv_arg_program(&l->srv, &a, argv[0], err) < 0)
        return -1;
    for (int i = 1; argv[i]; i++)
        kv_arg(&a, "%s", argv[i]);
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: %s's command line is too long", what);
    struct kv_env env;
    kv_user_env(&l->srv, rep != NULL ? KV_AUTH_ENV : NULL, &env);
    char path[PATH_MAX];
    int fd = kv_file_create(&l->srv, name, path, sizeof path, err);
    if (fd < 0)
        return -1;
    /* Its output file is root's: the user writes it through the
     * descriptor it is given, never by name. Its reader first: a client
     * whose reports nobody read would block on a full pipe. */
    if (rep && rep->rr && wl_reader_start(rep->rr, rep->rd, l->rc, "get/s") < 0) {
        close(fd);
        return pm_errf(err, "cannot start a thread to read %s's reports", what);
    }
    pid_t pid;
    struct run_exit *ex = &l->ex;
    memset(ex, 0, sizeof *ex);
    int w = run_spawn_env(l->rc, a.v, env.v, true, rep ? rep->wr : -1, fd, &pid, err);
    /* Root's own copy of the write end goes at once: the report's end of
     * file must wait for no descriptor of pressmark's. */
    if (rep && rep->wr >= 0)
        close(rep->wr);
    if (rep)
        rep->wr = -1;
    explicit_bzero(&env, sizeof env);
    if (w == 0)
        w = run_wait_until(l->rc, pid, pm_now_ns() + l->c->client_timeout_ns, ex, err);
    /* What is left in the clients' cgroup (a child that left the
     * client's group) goes before the report is read: then nothing of the
     * run's holds its pipe, and a report that does not end is another's. */
    bool emptied = kv_cgroup_empty(run_client_cgroup(l->rc)) == 0;
    if (rep)
        rep->whole = rep->rr ? wl_reader_finish(rep->rr, pm_now_ns() + DRAIN_NS)
                             : drain(rep->rd, rep->text, sizeof rep->text, pm_now_ns() + DRAIN_NS);
    if (w < 0) {
        close(fd);
        return -1;
    }
    close(fd);
    kv_file_read(path, false, out, len);
    if (ex->timed_out || ex->aborted || !WIFEXITED(ex->wstatus) || WEXITSTATUS(ex->wstatus) != 0) {
        client_failed(l, what, ex, out);
        return 1;
    }
    return client_leftovers(l, what, emptied, rep);
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
    struct kv_report rep;
    if (report_open(&rep, NULL, err) < 0)
        return -1;
    run_gauge(l->rc, "workload.phase", 1);
    char out[4096];
    int r = run_client(l, a.v, "the loader (pressmark __kv-load)", "load.log", &rep, out, sizeof out, err);
    report_close(&rep);
    if (r != 0)
        return r;
    /* Read as strictly as the client's: the loader runs as the server's
     * user, so its report is that user's data. */
    uint64_t sets, errors, ns;
    const char *s = rep.text;
    if (kv_word_u64(&s, "sets", &sets) < 0 || *s++ != ' ' || kv_word_u64(&s, "errors", &errors) < 0 ||
        *s++ != ' ' || kv_word_u64(&s, "ns", &ns) < 0 || (*s != '\n' && *s != '\0')) {
        run_set_status(l->rc, "failed", "the loader (pressmark __kv-load) ended without its report");
        return 1;
    }
    l->w->load_figures(l->rc, sets, errors, (double)ns / 1e9);
    const char *first = strstr(rep.text, "\nerror ");
    if (first) {
        char key[64], said[128];
        snprintf(key, sizeof key, "%s.load_first_error", l->w->name);
        kv_quote_line(first + 7, said, sizeof said);
        run_meta(l->rc, key, said);
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

/* The client's figures: its counts, rate and latency histogram, which
 * must agree (its report is data from a process of the server's user). */
static int own_figures(struct kv_life *l, struct wl_reader *rr, struct pm_err *err)
{
    struct kv_get_report rep;
    if (kv_get_parse(rr->result, &rep) < 0 || !rr->lat_done || rr->lat.count != rep.gets) {
        run_set_status(l->rc, "failed", "the client (pressmark __kv-get) ended without its report");
        return 1;
    }
    l->w->get_figures(l->state, l->rc, &rep);
    if (rr->lat.count && run_latency(l->rc, l->w->latency, &rr->lat, err) < 0)
        return -1;
    return 0;
}

/* The client's own words on a failure it reported, added to pressmark's
 * verdict, never put in its place: only when that verdict is the client's
 * exit status 1 (its way of saying it failed) and its report came whole.
 * A timeout, a signal, an interrupt or a report another process held stay
 * as pressmark found them, whatever the report's last line claims (it is
 * the memcache user's to write). */
static void client_reason(struct kv_life *l, const char *what, const struct kv_report *rep, const char *result)
{
    const struct run_exit *ex = &l->ex;
    char said[128];
    if (!rep->whole || ex->timed_out || ex->aborted || !WIFEXITED(ex->wstatus) || WEXITSTATUS(ex->wstatus) != 1 ||
        strcmp(rc_status(l->rc), "failed") != 0 || !kv_get_failed(result, said, sizeof said))
        return;
    run_set_status(l->rc, "failed", "%s exited with status 1: %s", what, said);
}

/* pressmark's own client, its report read while it runs: the live count,
 * the latency windows, then its histogram and its sums. */
static int own_phase(struct kv_life *l, char *const argv[], struct pm_err *err)
{
    struct wl_reader rr;
    memset(&rr, 0, sizeof rr);
    struct kv_report rep;
    if (report_open(&rep, &rr, err) < 0)
        return -1;
    char out[4096];
    const char *what = "the client (pressmark __kv-get)";
    int r = run_client(l, argv, what, "client.out", &rep, out, sizeof out, err);
    report_close(&rep);
    if (r == 0)
        r = own_figures(l, &rr, err);
    else if (r == 1)
        client_reason(l, what, &rep, rr.result);
    /* Its last line, as another user's words are kept. */
    char key[64], said[sizeof rr.result];
    snprintf(key, sizeof key, "%s.client_output", l->w->name);
    kv_quote_text(rr.result, said, sizeof said);
    run_meta(l->rc, key, said);
    wl_reader_free(&rr);
    return r;
}

static int measured_phase(struct kv_life *l, struct pm_err *err)
{
    struct kv_argv a = { .n = 0 };
    /* pressmark's own client talks only to the server it is told of. */
    if (!l->w->tool) {
        kv_arg(&a, "%s", run_exe(l->rc));
        kv_arg(&a, "__kv-get");
        kv_arg(&a, "--server-pid=%d", (int)l->srv.pid);
    }
    l->w->client_argv(l->state, &l->where, &a);
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: the measured phase's command line is too long");
    run_gauge(l->rc, "workload.phase", 2);
    if (!l->w->tool)
        return own_phase(l, a.v, err);
    char *out = malloc(OUTPUT_MAX);
    if (!out)
        return pm_errf(err, "out of memory");
    int r = run_client(l, a.v, l->w->tool, "client.out", NULL, out, OUTPUT_MAX, err);
    if (r == 0)
        r = tool_figures(l, out);
    char key[64];
    snprintf(key, sizeof key, "%s.client_output", l->w->name);
    /* What the tool printed (its end, when long), so a figure can be
     * checked against the tool's own words: a process of the server's
     * user wrote it, so its lines keep printable ASCII alone. */
    size_t n = strlen(out);
    char *kept = n > 4000 ? out + n - 4000 : out;
    kv_printable_lines(kept);
    run_meta(l->rc, key, kept);
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
    /* From here on this process holds the run's password: no core dump of
     * it, and its memory is root's alone to read (ptrace, /proc/PID/mem),
     * whatever root's other processes are. Dumpable again after (PR_SET_
     * DUMPABLE takes only 0 and 1: a 2 from suid_dumpable stays 0). */
    int dumpable = prctl(PR_GET_DUMPABLE);
    if (dumpable < 0 || prctl(PR_SET_DUMPABLE, 0) < 0)
        return pm_errf(err, "prctl(PR_SET_DUMPABLE): %s", strerror(errno));
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
    if (kv_cgroup_empty(run_cgroup(rc)) < 0 && strcmp(rc_status(rc), "ok") == 0)
        run_set_status(rc, "failed", "the run's cgroup still held processes 5 s after they were killed");
    kv_dirs_remove(&l.srv);
    explicit_bzero(l.srv.secret, sizeof l.srv.secret);
    /* (a pressmark that stays undumpable loses nothing but its core) */
    if (dumpable == 1 && prctl(PR_SET_DUMPABLE, 1) < 0)
        run_meta(rc, "workload.dumpable", strerror(errno));
    if (r >= 0 && run_check_abort(rc) && strcmp(rc_status(rc), "aborted") != 0)
        run_set_status(rc, "aborted", "interrupted");
    return r < 0 ? -1 : 0;
}

const struct wl_helper kv_helpers[] = {
    { "__kv-load", kv_load_main },
    { "__kv-get", kv_get_main },
    { NULL, NULL },
};
