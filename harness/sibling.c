/* The sibling hog, pressmark's side: its spec parsed and checked, the
 * helper started in the sibling cgroup, stopped, and what it got done
 * during the measured workload's run turned into metrics. */
#include "harness/sibling.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/spawn.h"
#include "lib/timeutil.h"

enum { SIB_PASSES, SIB_PASSES_PER_S, SIB_FAILED_PASSES };
static const struct metric_def sibling_defs[] = {
    [SIB_PASSES] = METRIC("sibling.passes", "count", PM_HIGHER,
                  "the hog's passes while the measured workload ran, each counted by the share of its time that fell "
                  "in that run (a pass half inside counts 0.5; the pass cut off at the end counts nothing)"),
    [SIB_PASSES_PER_S] = METRIC("sibling.passes_per_s", "1/s", PM_HIGHER,
                  "sibling.passes per second of the measured workload's run: the hog's progress"),
    [SIB_FAILED_PASSES] = METRIC("sibling.failed_passes", "count", PM_LOWER,
                  "the hog's passes that failed or were OOM-killed while the measured workload ran"),
};
const struct metric_group sibling_metrics = METRIC_GROUP(
    "sibling: the sibling hog (--sibling) while the measured workload ran; its workload's headline, the mean of "
    "its passes then, and its cgroup's figures are stored as sibling.NAME (sibling.usemem.mb_per_s, "
    "sibling.memcg.pgscan), each as NAME is declared",
    sibling_defs);

void sibling_spec_free(struct sibling_spec *sp)
{
    free(sp->state);
    sp->state = NULL;
}

/* One --NAME[=VALUE] of the spec; *used is 2 when it took the next word. */
static int spec_option(const struct sibling_spec *sp, char **w, int left, int *used, struct pm_err *err)
{
    char name[64];
    bool dashes = strncmp(w[0], "--", 2) == 0;
    const char *eq = dashes ? strchr(w[0] + 2, '=') : NULL;
    size_t nlen = !dashes ? 0 : eq ? (size_t)(eq - w[0] - 2) : strlen(w[0] + 2);
    if (!dashes || nlen == 0 || nlen >= sizeof name)
        return pm_errf(err, "'%s' is not an option of %s (accepted: --NAME VALUE or --NAME=VALUE; see "
                       "'pressmark run %s --help')", w[0], sp->wl->name, sp->wl->name);
    snprintf(name, sizeof name, "%.*s", (int)nlen, w[0] + 2);
    const struct opt *o = sp->wl->options ? opt_find(sp->wl->options, name) : NULL;
    if (!o)
        return pm_errf(err, "'--%s' is not an option of %s (see 'pressmark run %s --help')", name, sp->wl->name,
                       sp->wl->name);
    *used = 1;
    const char *value = eq ? eq + 1 : NULL;
    if (!value && o->type != OPT_FLAG) {
        if (left < 2)
            return pm_errf(err, "'--%s' of %s needs a value", name, sp->wl->name);
        value = w[1];
        *used = 2;
    }
    struct pm_err e;
    if (opt_set(o, sp->state, value ? value : "", &e) < 0)
        return pm_errf(err, "%s --%s: %s", sp->wl->name, name, e.msg);
    return 0;
}

static int split_words(char *buf, char **w, int max)
{
    int n = 0;
    for (char *tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (n == max)
            return -1;
        w[n++] = tok;
    }
    return n;
}

int sibling_spec_parse(const char *spec, const struct wl_limits *lim, struct sibling_spec *sp, struct pm_err *err)
{
    memset(sp, 0, sizeof *sp);
    char buf[512], names[512];
    char *w[SIBLING_MAX_WORDS];
    workload_names(names, sizeof names);
    if (strlen(spec) >= sizeof buf || strpbrk(spec, "\n\r"))
        return pm_errf(err, "the hog's spec must be one line under %zu characters", sizeof buf);
    snprintf(buf, sizeof buf, "%s", spec);
    int n = split_words(buf, w, SIBLING_MAX_WORDS);
    if (n <= 0)
        return pm_errf(err, "'%s' is not a hog (accepted: 'WORKLOAD [OPTIONS]', WORKLOAD one of %s, at most %d words)",
                       spec, names, SIBLING_MAX_WORDS);
    sp->wl = workload_find(w[0]);
    if (sp->wl && sp->wl->set_args)
        return pm_errf(err, "%s takes a command; the hog runs a workload of options only (e.g. usemem --size 300M)",
                       sp->wl->name);
    if (!sp->wl || sp->wl->hidden)
        return pm_errf(err, "'%s' is not a workload (accepted: %s)", w[0], names);
    if (sp->wl->journals)
        return pm_errf(err, "%s keeps a scratch directory in the run's undo journal, which is the measured run's own "
                       "(accepted: a workload that does not, e.g. usemem)", sp->wl->name);
    sp->state = calloc(1, sp->wl->state_size ? sp->wl->state_size : 1);
    if (!sp->state)
        return pm_errf(err, "out of memory");
    struct pm_err e;
    if (sp->wl->options && opt_set_defaults(sp->wl->options, sp->state, &e) < 0)
        goto bad;
    for (int i = 1; i < n;) {
        int used = 1;
        if (spec_option(sp, w + i, n - i, &used, err) < 0)
            goto fail;
        i += used;
    }
    if (sp->wl->check && sp->wl->check(sp->state, lim, &e) < 0)
        goto bad;
    /* A list of values makes phases, each a configuration of its own: a
     * hog is one. */
    if (sp->wl->phases && sp->wl->phases(sp->state) > 1) {
        pm_errf(err, "%s: a list of values makes phases, and the hog runs one configuration (accepted: one value)",
                sp->wl->name);
        goto fail;
    }
    if (sp->wl->set_phase) {
        char suffix[64];
        sp->wl->set_phase(sp->state, 0, suffix, sizeof suffix);
    }
    return 0;
bad:
    pm_errf(err, "%s: %s", sp->wl->name, e.msg);
fail:
    sibling_spec_free(sp);
    return -1;
}

int sibling_start(struct sibling *s, const char *exe, const char *spec, const char *procs, const char *cgdir,
                  const struct wl_limits *lim, struct pm_err *err)
{
    s->pid = 0;
    s->fd = -1;
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    char cap[32], swap[32];
    snprintf(cap, sizeof cap, "%llu", (unsigned long long)lim->mem_cap);
    snprintf(swap, sizeof swap, "%llu", (unsigned long long)lim->swap_planned);
    char *argv[] = { "pressmark", "__sibling", (char *)procs, (char *)cgdir, cap, swap, (char *)spec, NULL };
    const struct pm_fd_map report = { p[1], 4 };
    char **envp = pm_env_without_secrets();
    if (!envp) {
        close(p[0]);
        close(p[1]);
        return pm_errf(err, "out of memory");
    }
    struct pm_spawn sp = { .argv = argv, .path = exe, .what = "the sibling hog", .out = PM_FD_NULL, .map = &report,
                           .nmap = 1, .new_group = true, .die_with_parent = true, .envp = envp };
    int rc = pm_spawn(&sp, &s->pid, err);
    free(envp);
    close(p[1]);
    if (rc < 0) {
        close(p[0]);
        s->pid = 0;
        return -1;
    }
    s->fd = p[0];
    return 0;
}

int sibling_alive(struct sibling *s, char *why, size_t len)
{
    int st;
    if (s->pid <= 0 || waitpid(s->pid, &st, WNOHANG) == 0)
        return 0;
    char how[128];
    pm_wait_describe(st, how, sizeof how);
    snprintf(why, len, "the sibling hog ended before the measured workload did: it %s (its reason is on stderr)", how);
    s->pid = 0;
    return -1;
}

/* Everything the helper writes until it closes its end, or the deadline. */
static size_t read_report(int fd, char *buf, size_t len, uint64_t deadline_ns)
{
    size_t got = 0;
    while (got + 1 < len) {
        uint64_t now = pm_now_ns();
        if (now >= deadline_ns)
            break;
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int pr = poll(&pfd, 1, (int)((deadline_ns - now) / 1000000 + 1));
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            break;
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return got;
}

/* A pass line "pass T0 T1 STATUS VALUE": its share of [w0, w1]. */
static void tally_line(struct sibling_tally *t, const char *line, uint64_t w0, uint64_t w1)
{
    unsigned long long a, b;
    char status[16], value[64];
    if (sscanf(line, "pass %llu %llu %15s %63s", &a, &b, status, value) != 4 || b < a)
        return;
    t->total++;
    if (b <= w0 || a >= w1)
        return;
    if (strcmp(status, "ok") != 0) {
        t->failed++;
        return;
    }
    uint64_t lo = a > w0 ? a : w0, hi = b < w1 ? b : w1;
    t->passes += b > a ? (double)(hi - lo) / (double)(b - a) : 1;
    char *end;
    double v = strtod(value, &end);
    if (*end == '\0' && isfinite(v)) {
        t->value_sum += v;
        t->nvalues++;
    }
}

static void put_figures(const struct sibling_tally *t, const char *spec, uint64_t w0, uint64_t w1, struct metric_set *out)
{
    metric_put(out, &sibling_defs[SIB_PASSES], t->passes);
    if (w1 > w0)
        metric_put(out, &sibling_defs[SIB_PASSES_PER_S], t->passes / ((double)(w1 - w0) / 1e9));
    metric_put(out, &sibling_defs[SIB_FAILED_PASSES], t->failed);
    char word[64];
    const struct workload_ops *wl;
    /* Only its workload's name is needed: the first word. */
    if (t->nvalues == 0 || sscanf(spec, "%63s", word) != 1 || !(wl = workload_find(word)) || !wl->headline)
        return;
    const char *unit;
    enum metric_dir dir;
    /* Declared by its workload, or one of every run's time.* figures. */
    const struct metric_group *g[] = { wl->metrics ? wl->metrics : &run_time_metrics, &run_time_metrics };
    if (!metric_groups_find(g, 2, wl->headline, &unit, &dir))
        return;
    char name[128];
    snprintf(name, sizeof name, "sibling.%s", wl->headline);
    metric_set_put(out, name, t->value_sum / t->nvalues, unit, dir);
}

void sibling_tally(char *report, uint64_t w0_ns, uint64_t w1_ns, struct sibling_tally *t)
{
    memset(t, 0, sizeof *t);
    char *save = NULL;
    for (char *line = strtok_r(report, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        tally_line(t, line, w0_ns, w1_ns);
}

void sibling_stop(struct sibling *s, const char *spec, uint64_t w0_ns, uint64_t w1_ns, struct metric_set *out,
                  struct kv_list *meta)
{
    pm_kv_set(meta, "sibling", spec);
    if (s->pid > 0 && kill(-s->pid, SIGTERM) < 0 && errno == ESRCH)
        kill(s->pid, SIGTERM);
    /* It ends its pass (its workload's processes killed) and reports;
     * under emulation that takes a while, so the wait is long. */
    static char buf[1 << 20];
    size_t got = s->fd >= 0 ? read_report(s->fd, buf, sizeof buf, pm_now_ns() + 20000000000ull) : 0;
    buf[got] = '\0';
    if (s->pid > 0) {
        kill(-s->pid, SIGKILL);
        int st;
        while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    s->pid = 0;
    struct sibling_tally t;
    sibling_tally(buf, w0_ns, w1_ns, &t);
    pm_kv_setf(meta, "sibling.passes_total", "%u", t.total);
    put_figures(&t, spec, w0_ns, w1_ns, out);
}
