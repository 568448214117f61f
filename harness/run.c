#include "harness/run.h"
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "collectors/heartbeat.h"
#include "collectors/sampler.h"
#include "collectors/sources.h"
#include "store/db.h"
#include "collectors/sources.h"
#include "pressure/env.h"
#include "pressure/probe.h"
#include "store/machines.h"
#include "harness/profile.h"
#include "harness/sibling.h"
#include "harness/stalls.h"
#include "store/latency_hist.h"
#include "store/runs.h"
#include "store/reserve.h"
#include "store/ticks.h"
#include "store/unstored.h"
#include "lib/timeutil.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "harness/catalogue.h"
#include "harness/observer.h"
#include "pressure/undo.h"
#include "lib/units.h"
#include "lib/version.h"
#include "lib/spawn.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */
#include <sys/mman.h>

#define HEARTBEAT_PERIOD_NS 100000000ull

static int sleep_interruptible(uint64_t ns);
static char observer_note[256] = "not protected";
#define KILL_GRACE_NS 3000000000ull

struct run_ctx {
    const struct run_ops *ops;   /* first: workloads reach the run through it (workloads/workload.h) */
    struct run_plan *plan;
    struct pm_db *db;
    int64_t run_id;
    unsigned index;
    struct run_row row;
    struct metric_set metrics;
    struct kv_list meta;
    struct run_hists hists;                  /* run_latency's and the stall tracer's, stored at the end */
    struct run_symbol symbols[PROFILE_TOP];  /* --profile's top kernel symbols */
    size_t nsymbols;
    char status[16];
    char reason[1024];
    char exe[PATH_MAX];
    struct run_env env;
    uint64_t spawn_ns;
    int abort_sig;
    struct db_reserve reserve;
    /* run_live_count: written by the workload's threads, read by the sampler's. */
    atomic_uint_fast64_t live_count;
    _Atomic(const char *) live_unit;
    struct gauges gauges;        /* run_gauge: the workload's threads set, the sampler reads */
    struct kv_list user_metrics; /* run_user_metric's names: declared by the user, not a table */
    struct run_texts texts;      /* run_keep_text's */
    FILE *say;                   /* the session's (struct run_session) */
};

void harness_block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int harness_pending_abort(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    struct timespec zero = { 0, 0 };
    int sig = sigtimedwait(&set, NULL, &zero);
    return sig > 0 ? sig : 0;
}









/* The workload's first steps, as a fixed script: join the run's cgroup,
 * make itself killable by the OOM killer again (pressmark's -1000 would be
 * inherited), then become the workload; setpriv ties it to pressmark with
 * PR_SET_PDEATHSIG. Small programs on purpose: wait4 counts the CPU of
 * everything the child ran before exec'ing the workload, and loading
 * pressmark (libcurl's three dozen libraries) would add ~7 ms to every
 * workload process, setpriv and sh about 1.5 ms. The command's words are
 * passed as "$@", never put into the script. setpriv sets the
 * parent-death signal before it runs the script, and a pressmark killed
 * before that would leave a workload no signal reaches (under emulation
 * the window is long: make v2-host-check's t21 caught a 'sleep 60' so):
 * the script goes on only while its parent is the pressmark that started
 * it ($1). */
static const char exec_script[] =
    "pm=$1; cg=$2; shift 2; [ \"$PPID\" = \"$pm\" ] || exit 137; echo 0 > /proc/self/oom_score_adj 2>/dev/null; "
    "if [ -n \"$cg\" ]; then echo $$ > \"$cg\" || { echo \"pressmark: cannot enter the run's cgroup $cg\" >&2; exit 126; }; fi; "
    "exec \"$@\"";


/* argv started through exec_script into the cgroup whose cgroup.procs is
 * procs ("" for none), with envp as its environment (NULL: pressmark's
 * without its secrets). No other descriptor of pressmark's reaches it
 * (the run lock's, a caller's pipe): only 0-2 and the report's 4. */
static int spawn_in(const char *procs, char *const argv[], char *const envp_given[], int pass_fd, int out_fd,
                    pid_t *pid, struct pm_err *err)
{
    char me[24];
    snprintf(me, sizeof me, "%d", (int)getpid());
    char *const prelude[] = { "sh", "-c", (char *)exec_script, "sh", me, (char *)procs };
    char **hargv = pm_argv_prefixed(prelude, sizeof prelude / sizeof prelude[0], argv);
    if (!hargv)
        return pm_errf(err, "out of memory");
    const struct pm_fd_map report = { pass_fd, 4 };
    /* Its own process group, so the whole workload (make's children too)
     * can be signalled at once and a terminal's Ctrl-C reaches only us. */
    struct pm_spawn sp = { .argv = hargv, .what = argv[0], .out = out_fd >= 0 ? out_fd : PM_FD_INHERIT,
                           .err = out_fd >= 0 ? out_fd : PM_FD_INHERIT, .map = &report,
                           .nmap = pass_fd >= 0 ? 1 : 0, .new_group = true, .die_with_parent = true,
                           .close_others = true };
    /* The workload never sees pressmark's secrets. */
    char **envp = envp_given ? NULL : pm_env_without_secrets();
    if (!envp_given && !envp) {
        free(hargv);
        return pm_errf(err, "out of memory");
    }
    sp.envp = envp_given ? envp_given : envp;
    /* A program given an environment of its own is a server's, run as
     * another user (workloads/kvrun.c): it gets neither root's terminal
     * (TIOCSTI would type into root's shell) nor its stdin. */
    if (envp_given) {
        sp.new_session = true;
        sp.in = PM_FD_NULL;
    }
    int rc_spawn = pm_spawn(&sp, pid, err);
    free(envp);
    free(hargv);
    return rc_spawn;
}

/* A client's cgroup (client) is made on first use, so a run whose
 * workload has no client has none. A client's start is not the
 * workload's: the run's timeout and elapsed time count from the
 * workload's own spawn. */
static int ops_spawn_env(struct run_ctx *rc, char *const argv[], char *const envp[], bool client, int pass_fd,
                         int out_fd, pid_t *pid, struct pm_err *err)
{
    if (client && env_client(&rc->env, &rc->meta, err) < 0)
        return -1;
    if (!client)
        rc->spawn_ns = pm_now_ns();
    return spawn_in(client ? rc->env.client_procs : rc->env.cgroup_procs, argv, envp, pass_fd, out_fd, pid, err);
}

static int ops_spawn_io(struct run_ctx *rc, char *const argv[], int pass_fd, int out_fd, pid_t *pid, struct pm_err *err)
{
    return ops_spawn_env(rc, argv, NULL, false, pass_fd, out_fd, pid, err);
}

/* The run's side of a wait: a SIGINT, SIGTERM or SIGHUP to pressmark
 * aborts the run, the workload given the grace to end; a second one ends
 * it at once. */
struct abort_watch {
    struct run_ctx *rc;
    bool aborted;
};

static int abort_on_signal(void *arg, int sig)
{
    struct abort_watch *aw = arg;
    if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
        return aw->aborted ? PM_WAIT_STOP : PM_WAIT_GO_ON;
    aw->rc->abort_sig = sig;
    if (aw->aborted)
        return PM_WAIT_KILL;   /* a second Ctrl-C: no more grace */
    aw->aborted = true;
    return PM_WAIT_STOP;
}

/* The workload's process group ends at the run's timeout (counted from
 * the workload's spawn) or the caller's deadline, whichever is first, or
 * when pressmark is told to stop: SIGTERM, KILL_GRACE_NS, SIGKILL; what
 * it left in its group is killed when it ends. */
static int ops_wait_until(struct run_ctx *rc, pid_t pid, uint64_t deadline_ns, struct run_exit *ex,
                          struct pm_err *err)
{
    memset(ex, 0, sizeof *ex);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    uint64_t timeout_at = rc->plan->timeout_ns ? rc->spawn_ns + rc->plan->timeout_ns : 0;
    if (deadline_ns && (!timeout_at || deadline_ns < timeout_at))
        timeout_at = deadline_ns;
    struct abort_watch aw = { .rc = rc };
    const struct pm_wait_opts w = { .deadline_ns = timeout_at, .first_sig = SIGTERM, .grace_ns = KILL_GRACE_NS,
                                    .group = true, .sweep = true, .poll_ns = 1000000000ull, .wake = &set,
                                    .stop = abort_on_signal, .arg = &aw };
    struct pm_wait_result res;
    if (pm_wait_deadline(pid, &w, &res, err) < 0)
        return -1;
    ex->wstatus = res.status;
    ex->ru = res.ru;
    ex->elapsed_ns = pm_now_ns() - rc->spawn_ns;
    ex->timed_out = res.timed_out;
    ex->aborted = aw.aborted;
    return 0;
}

static int ops_wait(struct run_ctx *rc, pid_t pid, struct run_exit *ex, struct pm_err *err)
{
    return ops_wait_until(rc, pid, 0, ex, err);
}

/* The run's side of what workloads ask of it (workloads/run_api.c). */
static void ops_metric(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir)
{
    metric_set_put(&rc->metrics, name, value, unit, dir);
}

static void ops_live_count(struct run_ctx *rc, uint64_t count, const char *unit)
{
    atomic_store(&rc->live_count, count);
    atomic_store(&rc->live_unit, unit);
}

static void ops_gauge(struct run_ctx *rc, const char *name, double value)
{
    if (gauges_set(&rc->gauges, name, value) < 0)
        pm_kv_set(&rc->meta, "workload.gauge_dropped", name);
}

/* Kept for the run's end: nothing writes the database while the sampler's
 * connection does. */
static int ops_keep_hist(struct run_ctx *rc, const char *name, const struct loghist *h)
{
    return store_run_hists_put(&rc->hists, name, h);
}

static void ops_meta(struct run_ctx *rc, const char *key, const char *value)
{
    pm_kv_set(&rc->meta, key, value);
}

static void ops_user_metric(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir)
{
    metric_set_put(&rc->metrics, name, value, unit, dir);
    pm_kv_set(&rc->user_metrics, name, unit);
}

static int ops_keep_text(struct run_ctx *rc, const char *what, const char *data, size_t len, bool cut)
{
    return store_run_texts_add(&rc->texts, what, data, len, cut);
}

static void ops_set_status(struct run_ctx *rc, const char *status, const char *reason)
{
    snprintf(rc->status, sizeof rc->status, "%s", status);
    snprintf(rc->reason, sizeof rc->reason, "%s", reason);
}

static const char *ops_status(struct run_ctx *rc)
{
    return rc->status;
}

static const char *ops_exe(struct run_ctx *rc)
{
    return rc->exe;
}

static int ops_abort_signal(struct run_ctx *rc)
{
    if (!rc->abort_sig)
        rc->abort_sig = harness_pending_abort();
    return rc->abort_sig;
}

static const char *ops_cgroup(struct run_ctx *rc)
{
    return rc->env.cgroup_dir[0] ? rc->env.cgroup_dir : NULL;
}

static const char *ops_client_cgroup(struct run_ctx *rc)
{
    return rc->env.client_dir[0] ? rc->env.client_dir : NULL;
}

static uint64_t ops_timeout_ns(struct run_ctx *rc)
{
    return rc->plan->timeout_ns;
}

static FILE *ops_say(struct run_ctx *rc)
{
    return rc->say;
}

static const struct run_ops harness_ops = {
    .spawn_io = ops_spawn_io, .spawn_env = ops_spawn_env, .wait = ops_wait,
    .wait_until = ops_wait_until, .metric = ops_metric, .live_count = ops_live_count,
    .gauge = ops_gauge, .keep_hist = ops_keep_hist, .meta = ops_meta, .user_metric = ops_user_metric,
    .keep_text = ops_keep_text, .set_status = ops_set_status,
    .status = ops_status, .exe = ops_exe, .abort_signal = ops_abort_signal, .cgroup = ops_cgroup,
    .client_cgroup = ops_client_cgroup,
    .timeout_ns = ops_timeout_ns, .say = ops_say,
};



/* A failed run whose cgroup (or, uncapped, the system) saw the OOM killer
 * during the run was killed for memory: say so, it is the thing measured. */
static void classify_oom(struct run_ctx *rc)
{
    /* A capped run's cgroup counts its own OOM kills; an uncapped run's
     * (a tracking cgroup without limits) meets only the system's. */
    const char *cap = pm_kv_get(&rc->meta, "cap.method");
    bool capped = cap && strcmp(cap, "none") != 0;
    const struct metric *m = capped ? metric_set_find(&rc->metrics, MN_memcg_oom_kill) : NULL;
    double kills = m ? m->value : 0;
    if (!m) {
        const struct metric *v = metric_set_find(&rc->metrics, MN_vmstat_oom_kill);
        kills = v ? v->value : 0;
    }
    if (kills > 0 && strcmp(rc->status, "failed") == 0) {
        char was[sizeof rc->reason];
        snprintf(was, sizeof was, "%s", rc->reason);
        run_set_status(rc, "oom", "OOM killer: %.0f kill%s %s (%s)", kills, kills == 1 ? "" : "s",
                       m ? "in the run's cgroup" : "system-wide", was);
    }
}

/* The tests set PRESSMARK_TEST_STRICT_METRICS=1: a metric the catalogue
 * (harness/catalogue.h) lacks, or stores with another unit or direction, fails
 * the run, so pressmark-metrics(7) cannot fall behind the code. */
static void check_catalogue(struct run_ctx *rc)
{
    const char *strict = getenv("PRESSMARK_TEST_STRICT_METRICS");
    if (!strict || strcmp(strict, "1") != 0)
        return;
    for (size_t i = 0; i < rc->metrics.n; i++) {
        const struct metric *m = &rc->metrics.v[i];
        if (pm_kv_get(&rc->user_metrics, m->name))
            continue;                      /* the user declared it (record --figure) */
        const char *why = catalogue_check(m->name, m->unit, metric_dir_parse(m->direction));
        if (why) {
            fprintf(rc->say, "pressmark: %s\n", why);
            run_set_status(rc, "failed", "%s", why);
            return;
        }
    }
}


/* The run's line; a figure the run does not have is "-", never 0. The
 * headline is the run's own where it names one (record's figures). */
static void print_run_line(struct run_ctx *rc)
{
    if (rc->plan->quiet)
        return;
    const char *headline = pm_kv_get(&rc->meta, "headline");
    if (!headline)
        headline = rc->plan->wl->headline;
    const struct metric *h = metric_set_find(&rc->metrics, headline);
    const struct metric *so = metric_set_find(&rc->metrics, MN_swap_out_kb);
    const struct metric *hb = metric_set_find(&rc->metrics, MN_heartbeat_late_p99_ms);
    char head[96] = "-", swapout[32] = "-", beat[32] = "-";
    if (h)
        pm_fmt_quantity(head, sizeof head, h->value, h->unit);
    if (so)
        pm_fmt_thousands(swapout, sizeof swapout, (int64_t)so->value);
    if (hb)
        snprintf(beat, sizeof beat, "%.2f ms", hb->value);
    /* The reason can name what the command wrote (a --figures-from path,
     * a figure's pattern): the terminal sees it escaped. */
    char reason[sizeof rc->reason * 4 + 8];
    quote_terminal(rc->reason, reason, sizeof reason);
    fprintf(rc->say, "pressmark: run %lld [%s] %s%s%s: %s %s, swap-out %s KB, heartbeat p99 %s\n",
            (long long)rc->run_id, rc->plan->label, rc->status, rc->reason[0] ? " - " : "", reason, headline, head,
            swapout, beat);
}

/* What measures one run: the heartbeat, the sources, the tick store and
 * the sampler, each torn down by measure_free only if it was started. */
struct measure {
    struct heartbeat hb;
    struct source_set ss;
    struct tick_store ts;
    struct tick_writer live;     /* the tick store, then the plan's on_tick */
    const struct run_plan *plan;
    struct run_ctx *rc;
    struct sampler sampler;
    struct run_trace trace;      /* --trace-reclaim */
    bool hb_on, sources_on, ts_on, sampler_on, trace_on;
};

static int write_live(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const struct series_table *t,
                      size_t first_new, uint64_t mark, struct pm_err *err)
{
    struct measure *m = (struct measure *)((char *)w - offsetof(struct measure, live));
    if (m->ts.base.write(&m->ts.base, seq, t_ns, t, first_new, mark, err) < 0)
        return -1;
    struct run_live live = { .count = atomic_load(&m->rc->live_count), .unit = atomic_load(&m->rc->live_unit) };
    m->plan->on_tick(m->plan->hook_arg, t, t_ns, live.unit ? &live : NULL);
    return 0;
}

static int flush_live(struct tick_writer *w, struct pm_err *err)
{
    struct measure *m = (struct measure *)((char *)w - offsetof(struct measure, live));
    return m->ts.base.flush(&m->ts.base, err);
}

static int measure_start(struct run_ctx *rc, struct measure *m, struct pm_err *err)
{
    m->plan = rc->plan;
    m->rc = rc;
    if (rc->plan->no_sample) {
        /* The observer's own baseline: the workload with nothing watching
         * it but wait4 (bench/observer.sh measures the difference). */
        pm_kv_set(&rc->meta, "sampler", "off (--no-sample)");
        return 0;
    }
    m->hb_on = heartbeat_start(&m->hb, HEARTBEAT_PERIOD_NS, err) == 0;
    if (!m->hb_on)
        return -1;
    struct source_opts so = {
        .memcg_dir = rc->env.cgroup_dir[0] ? rc->env.cgroup_dir : NULL,
        .memcg_version = rc->env.cgroup_version,
        .sibling_dir = rc->env.sibling_dir[0] ? rc->env.sibling_dir : NULL,
        .hb = &m->hb,
        .gauges = &rc->gauges,
        .off = rc->plan->collect_off,
    };
    sources_init(&m->ss, &so);
    /* MGLRU's state: whether the multi-gen LRU does the reclaiming. */
    char lru[64];
    if (pm_read_file("/sys/kernel/mm/lru_gen/enabled", lru, sizeof lru) == 0) {
        pm_kv_set(&rc->meta, "mglru.enabled", lru);
        if (pm_read_file("/sys/kernel/mm/lru_gen/min_ttl_ms", lru, sizeof lru) == 0)
            pm_kv_set(&rc->meta, "mglru.min_ttl_ms", lru);
    } else {
        pm_kv_set(&rc->meta, "mglru.enabled", "absent (a kernel without CONFIG_LRU_GEN)");
    }
    if (rc->plan->collect_off) {
        char off[256];
        sources_describe_off(rc->plan->collect_off, off, sizeof off);
        pm_kv_set(&rc->meta, "collect.off", off);
    }
    sources_open(&m->ss);
    m->sources_on = true;
    if (tick_store_open(&m->ts, rc->db->path, rc->run_id, err) < 0)
        return -1;
    m->ts_on = true;
    /* The tick store opened the path: the same file as the run's only if
     * the path has not been given another since. */
    if (store_db_moved(rc->db))
        return pm_errf(err, "%s was removed or replaced during the run", rc->db->path);
    m->plan = rc->plan;
    m->rc = rc;
    m->live.write = write_live;
    m->live.flush = flush_live;
    struct tick_writer *w = rc->plan->on_tick ? &m->live : &m->ts.base;
    if (sampler_start(&m->sampler, w, rc->plan->interval_ns, m->ss.cols, m->ss.n, err) < 0)
        return -1;
    m->sampler_on = true;
    if (rc->plan->trace_reclaim) {
        /* pressmark itself, and so every process and thread it starts for
         * the workload from now on. Where tracing is not possible the run
         * goes on without it, said once per invocation. */
        static bool said;
        struct pm_err terr;
        if (harness_trace_start(&m->trace, getpid(), &terr) == 0) {
            m->trace_on = true;
        } else {
            pm_kv_set(&rc->meta, "trace.error", terr.msg);
            if (!said && !rc->plan->quiet)
                fprintf(rc->say, "pressmark: --trace-reclaim: %s; runs go on without stall tracing\n", terr.msg);
            said = true;
        }
    }
    return 0;
}

static void measure_free(struct measure *m)
{
    if (m->trace_on)
        harness_trace_free(&m->trace);
    if (m->sampler_on)
        sampler_free(&m->sampler);
    if (m->ts_on)
        tick_store_close(&m->ts);
    if (m->hb_on) {
        heartbeat_stop(&m->hb);
        heartbeat_free(&m->hb);
    }
    if (m->sources_on)
        sources_close(&m->ss);
}

/* The sibling hog started in its cgroup, and given its lead before the
 * measured workload starts (interruptible, as the run is). -1 when it
 * could not start or did not live through its lead: the run fails. */
static int sibling_begin(struct run_ctx *rc, struct sibling *sib)
{
    const struct env_config *cfg = rc->plan->env;
    struct wl_limits lim = { .mem_cap = cfg->has_cap ? cfg->mem_cap : 0,
                             .swap_planned = cfg->swap.kind != SWAP_NONE ? cfg->swap.size : 0,
                             .swap_dir = cfg->swap.kind == SWAP_FILE ? cfg->swap.dir : NULL };
    struct pm_err err;
    if (sibling_start(sib, rc->exe, cfg->sibling, rc->env.sibling_procs, rc->env.sibling_dir, &lim, &err) < 0) {
        run_set_status(rc, "failed", "sibling: %s", err.msg);
        return -1;
    }
    int sig = sleep_interruptible(cfg->sibling_lead_ns);
    if (sig) {
        rc->abort_sig = sig;
        run_set_status(rc, "aborted", "interrupted by %s while the sibling hog took its lead", strsignal(sig));
        return -1;
    }
    char why[256];
    if (sibling_alive(sib, why, sizeof why) < 0) {
        run_set_status(rc, "failed", "%s", why);
        return -1;
    }
    return 0;
}

/* The measured part: the workload (and the profile) under the samplers,
 * then the metrics derived from what they saw, while the environment is
 * still up (so a cap lost mid-run is noticed). */
static void measure_workload(struct run_ctx *rc, struct measure *m, const struct machine_info *mi)
{
    struct run_plan *plan = rc->plan;
    struct pm_err werr = { "" };
    struct profile prof = { .pid = 0 };
    struct sibling sib = { .pid = 0, .fd = -1 };
    uint64_t w0 = 0;
    if (rc->env.sibling_dir[0] && sibling_begin(rc, &sib) < 0)
        ;                                  /* the run's status says why */
    else if (plan->profile && profile_start(&prof, &werr) < 0)
        run_set_status(rc, "failed", "profile: %s", werr.msg);
    else if ((w0 = pm_now_ns()), plan->wl->run(plan->wl_state, rc, &werr) < 0)
        run_set_status(rc, "failed", "%s", werr.msg);
    if (rc->env.sibling_dir[0])
        sibling_stop(&sib, plan->env->sibling, w0 ? w0 : pm_now_ns(), pm_now_ns(), &rc->metrics, &rc->meta);
    if (plan->profile && profile_finish(&prof, rc->symbols, &rc->nsymbols, &rc->meta, &werr) < 0)
        pm_kv_set(&rc->meta, "profile.error", werr.msg);
    if (m->trace_on) {
        harness_trace_finish(&m->trace, &rc->metrics, &rc->meta);
        if (harness_trace_hists(&m->trace, &rc->hists) < 0)
            pm_kv_set(&rc->meta, "trace.error", "out of memory keeping the stall histograms");
    }
    struct pm_err serr = { "" };
    if (sampler_stop(&m->sampler, &serr) < 0 && m->ts.full) {
        /* The end of the run still has to be written: the reserve makes
         * the room for it. */
        db_reserve_release(&rc->reserve);
        run_set_status(rc, "failed", "the filesystem of %s is full: sampling stopped after %llu ticks, of which the "
                       "first %llu are kept", rc->db->path, (unsigned long long)m->sampler.seq,
                       (unsigned long long)m->ts.committed);
    } else if (serr.msg[0] && strcmp(rc->status, "ok") == 0) {
        run_set_status(rc, "failed", "%s", serr.msg);
    }
    heartbeat_stop(&m->hb);
    if (m->sampler_on) {
        struct derive_notes notes;
        derive_metrics(&m->sampler.table, mi->page_size, &rc->metrics, &notes);
        if (notes.swap_source)
            pm_kv_set(&rc->meta, "derive.swap_source", notes.swap_source);
        if (notes.steal_source)
            pm_kv_set(&rc->meta, "derive.pgsteal_source", notes.steal_source);
        observer_put_metrics(rc, &m->sampler, &m->hb, m->ts.deferred);
    }
    classify_oom(rc);
    check_catalogue(rc);
    char lost[256];
    if (env_intact(&rc->env, lost, sizeof lost) < 0 && strcmp(rc->status, "ok") == 0)
        run_set_status(rc, "failed", "%s", lost);
}

/* The run's sources as the store keeps them. */
static struct run_source *run_sources(const struct measure *m, size_t *n)
{
    *n = 0;
    if (!m->sources_on || !m->ss.n)
        return NULL;
    struct run_source *v = calloc(m->ss.n, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < m->ss.n; i++) {
        const struct collector *c = &m->ss.cols[i];
        v[i] = (struct run_source){ .source = c->source, .path = c->path, .note = c->note, .ticks = c->ticks };
    }
    *n = m->ss.n;
    return v;
}

/* When the database would not take a run's end: everything it measured on
 * the session's say, and where it is kept for the next pressmark to store. */
static void say_unstored(struct run_ctx *rc, const char *why, const char *kept, const char *kept_why)
{
    fprintf(rc->say, "pressmark: run %lld [%s]: its results could not be stored in %s: %s\n", (long long)rc->run_id,
            rc->plan->label, rc->db->path, why);
    if (kept)
        fprintf(rc->say, "pressmark: they are kept in %s; the next pressmark run, record or suite run stores them\n",
                kept);
    else
        fprintf(rc->say, "pressmark: nor could they be kept beside it (%s): these lines are all that is left of them\n",
                kept_why);
    fprintf(rc->say, "pressmark: run %lld [%s] %s%s%s; its %zu metrics:\n", (long long)rc->run_id, rc->plan->label,
            rc->status, rc->reason[0] ? " - " : "", rc->reason, rc->metrics.n);
    /* Every digit the value has, none in e-notation: these may be copied
     * out by hand. */
    for (size_t i = 0; i < rc->metrics.n; i++) {
        char v[400];
        pm_fmt_sig(v, sizeof v, rc->metrics.v[i].value, 15);
        fprintf(rc->say, "  %-40s %s %s\n", rc->metrics.v[i].name, v, rc->metrics.v[i].unit);
    }
}

/* The run's end into the database in one transaction. Where the database
 * will not take it (a full disk even after the reserve is given back, the
 * file removed, locked past PM_DB_RESULT_WAIT_MS), the record is kept
 * beside it instead (store/unstored.h) and said in full: a storage failure
 * never costs the run's figures. */
static int store_end(struct run_ctx *rc, const struct machine_info *mi, const struct measure *m,
                     struct pm_err *err)
{
    size_t nsrc;
    struct run_source *src = run_sources(m, &nsrc);
    struct run_record rec = { .status = rc->status, .reason = rc->reason, .metrics = &rc->metrics,
                              .meta = &rc->meta, .sources = src, .nsources = nsrc, .hists = &rc->hists,
                              .symbols = rc->symbols, .nsymbols = rc->nsymbols, .texts = &rc->texts };
    int stored = store_run_end(rc->db, rc->run_id, &rec, err);
    if (stored < 0) {
        bool full = store_db_full(rc->db);
        if (full && strcmp(rc->status, "ok") == 0)
            run_set_status(rc, "failed", "the filesystem of %s is full: the run's results did not fit", rc->db->path);
        rec.ended_ns = pm_wall_ns();
        char kept[PATH_MAX + 64];
        struct pm_err kerr = { "" };
        /* Kept first, in the reserve's blocks when it is held: on a full
         * disk that frees the rest of the reserve for the second try. */
        bool is_kept = unstored_keep(rc->db->path, mi, &rc->row, &rec, err->msg, &rc->reserve, kept, sizeof kept,
                                     &kerr) == 0;
        if (full) {
            db_reserve_release(&rc->reserve);
            struct pm_err again;
            if ((stored = store_run_end(rc->db, rc->run_id, &rec, &again)) < 0)
                *err = again;
        }
        if (stored == 0 && is_kept)
            unstored_forget(rc->db->path, rc->row.uuid);
        else if (stored < 0)
            say_unstored(rc, err->msg, is_kept ? kept : NULL, kerr.msg);
    }
    db_reserve_release(&rc->reserve);
    free(src);
    return stored;
}

/* One run, start to end. Returns 0 when it was stored (whatever its status),
 * -1 on harness errors (err says what). Every path ends the same way: the
 * environment is undone first, so what the undo did, or failed to do
 * (env.undone, env.undo_failed), is stored with the run. */
static int execute_one(struct run_ctx *rc, const struct machine_info *mi, int64_t machine_id,
                       struct pm_err *err)
{
    struct run_plan *plan = rc->plan;
    char params[2048] = "";
    workload_describe(plan->wl, plan->wl_state, params, sizeof params);
    run_set_status(rc, "ok", "%s", "");
    /* A database removed or replaced since the session opened it would
     * take this run into a file nobody reads: nothing more is run. */
    if (store_db_moved(rc->db))
        return pm_errf(err, "%s was removed or replaced since this pressmark opened it: no more runs go into it",
                       rc->db->path);
    rc->row = (struct run_row){ .label = plan->label, .workload = plan->wl->name, .params = params,
                                .interval_ns = plan->interval_ns };
    if (store_run_begin(rc->db, machine_id, &rc->row, err) < 0)
        return -1;
    rc->run_id = rc->row.id;
    if (plan->on_begin)
        plan->on_begin(plan->hook_arg, rc->db, rc->run_id);
    for (size_t i = 0; plan->extra_meta && i < plan->extra_meta->n; i++)
        pm_kv_set(&rc->meta, plan->extra_meta->v[i].key, plan->extra_meta->v[i].value);
    /* Stored at once too: a run whose pressmark is killed keeps its cell. */
    if (plan->extra_meta && store_run_meta(rc->db, rc->run_id, plan->extra_meta, err) < 0)
        return -1;
    int result = 0;
    db_reserve_take(&rc->reserve, rc->db->path);
    struct measure m = { .hb_on = false };
    int env_rc = env_up(&rc->env, rc->run_id, &rc->meta, err);
    /* Collected after the environment is up: the metadata is the run's
     * environment, with its sysctls, swap devices and THP mode. */
    env_collect(&rc->meta);
    pm_kv_set(&rc->meta, "pressmark.observer", observer_note);
    /* What measured it: a difference between labels is said by compare. */
    pm_kv_set(&rc->meta, "pressmark.version", pm_version());
    if (env_rc < 0) {
        run_set_status(rc, "failed", "environment: %s", err->msg);
        /* A suite's cell for a named kernel is judged by that kernel only
         * now (a control or knob it lacks): that is this run's failure,
         * and the suite goes on; anywhere else it is the harness's. */
        result = plan->env && plan->env->kernel_checks_deferred ? 0 : -1;
    } else if (measure_start(rc, &m, err) < 0) {
        run_set_status(rc, "failed", "samplers: %s", err->msg);
        result = -1;
    } else {
        measure_workload(rc, &m, mi);
    }
    env_down(&rc->env, &rc->meta);
    const char *undo_failed = pm_kv_get(&rc->meta, "env.undo_failed");
    if (undo_failed && strcmp(rc->status, "ok") == 0)
        run_set_status(rc, "failed", "the machine could not be put back: %s", undo_failed);
    struct pm_err store_err;
    if (store_end(rc, mi, &m, &store_err) < 0 && result == 0) {
        *err = store_err;
        result = -1;
    }
    print_run_line(rc);
    if (result == 0 && plan->after_store)
        plan->after_store(plan->after_store_arg, rc->db, rc->run_id);
    measure_free(&m);
    return result;
}

static int sleep_interruptible(uint64_t ns)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    uint64_t until = pm_now_ns() + ns;
    for (;;) {
        uint64_t now = pm_now_ns();
        if (now >= until)
            return 0;
        struct timespec ts = pm_ns_to_timespec(until - now);
        int sig = sigtimedwait(&set, NULL, &ts);
        if (sig > 0)
            return sig;
    }
}

/* The pressure pressmark creates must not take out the observer: never the
 * OOM killer's choice, and its pages locked as they are touched (on fault,
 * so untouched stack and heap reservations stay unbacked). */
static void protect_observer(void)
{
    struct pm_err err;
    bool adj = pm_write_file("/proc/self/oom_score_adj", "-1000", &err) == 0;
    int adj_errno = errno;
    int mrc = mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
    int lock_errno = errno;
    char adj_note[96], lock_note[96];
    if (adj)
        snprintf(adj_note, sizeof adj_note, "oom_score_adj -1000");
    else
        snprintf(adj_note, sizeof adj_note, "oom_score_adj unchanged (%s; lowering it needs CAP_SYS_RESOURCE)",
                 strerror(adj_errno));
    if (mrc == 0)
        snprintf(lock_note, sizeof lock_note, "memory locked on fault");
    else
        snprintf(lock_note, sizeof lock_note, "memory not locked (mlockall: %s)", strerror(lock_errno));
    snprintf(observer_note, sizeof observer_note, "%s; %s", adj_note, lock_note);
}





int harness_session_open(struct run_session *rs, const char *db_path, const char *what, FILE *say, struct pm_err *err)
{
    memset(rs, 0, sizeof *rs);
    rs->say = say;
    if (!say)
        return pm_errf(err, "out of memory");    /* (exp_say_file's only failure) */
    ssize_t n = readlink("/proc/self/exe", rs->exe, sizeof rs->exe - 1);
    if (n <= 0)
        return pm_errf(err, "cannot find its own binary: %s", strerror(errno));
    rs->exe[n] = '\0';
    if (pm_machine_read(&rs->mi, err) < 0)
        return -1;
    /* What a killed pressmark left behind goes first; then the lock keeps a
     * second pressmark from running beside this one. */
    undo_recover(say);
    if (undo_lock(what, err) < 0)
        return -1;
    if (store_db_open(&rs->db, db_path, true, err) < 0) {
        undo_unlock();
        return -1;
    }
    /* A run's results that an earlier pressmark could not store are
     * stored first: their runs are not abandoned. */
    unstored_store_all(&rs->db, say);
    store_db_set_wait(&rs->db, store_db_result_wait_ms());
    struct pm_err aerr;
    if (store_run_abandoned(&rs->db, "pressmark was killed during this run (found by the next invocation)", &aerr) > 0)
        fprintf(say, "pressmark: marked runs left 'running' by a killed pressmark as aborted\n");
    protect_observer();
    rs->machine_id = store_machine(&rs->db, &rs->mi, err);
    if (rs->machine_id < 0) {
        store_db_close(&rs->db);
        undo_unlock();
        return -1;
    }
    rs->open = true;
    return 0;
}

void harness_session_close(struct run_session *rs)
{
    if (!rs->open)
        return;
    store_db_close(&rs->db);
    undo_unlock();
    rs->open = false;
}

void harness_outcome_error(const struct run_outcome *o, char *line, size_t len)
{
    if (len)
        line[0] = '\0';
    switch (o->error) {
    case RUN_NO_ERROR:
        snprintf(line, len, "no error");
        return;
    case RUN_ERR_SESSION:
        snprintf(line, len, "%s", o->err.msg);
        return;
    case RUN_ERR_PREPARE: {
        /* The workload's words can hold what the command was given. */
        char shown[sizeof o->err.msg * 4];
        quote_terminal(o->err.msg, shown, sizeof shown);
        snprintf(line, len, "%s: %s", o->workload, shown);
        return;
    }
    case RUN_ERR_RUN:
        snprintf(line, len, "run %u of %u: %s", o->run, o->runs, o->err.msg);
        return;
    }
}

void harness_session_execute(struct run_session *rs, struct run_plan *plan, struct run_outcome *o)
{
    memset(o, 0, sizeof *o);
    struct run_ctx prep = { .ops = &harness_ops, .plan = plan, .db = &rs->db, .say = rs->say };
    snprintf(prep.exe, sizeof prep.exe, "%s", rs->exe);
    if (plan->wl->prepare && plan->wl->prepare(plan->wl_state, &prep, &o->err) < 0) {
        /* Interrupted while preparing (a kernel's priming build): as a
         * run interrupted, with nothing stored. */
        /* (run_check_abort took the signal off the pending set into
         * prep's abort_sig; one still pending is asked for too) */
        if ((o->abort_sig = prep.abort_sig ? prep.abort_sig : harness_pending_abort()))
            return;
        o->error = RUN_ERR_PREPARE;
        o->workload = plan->wl->name;
        return;
    }
    int abort_sig = 0;
    for (unsigned i = 0; i < plan->runs; i++) {
        if ((abort_sig = harness_pending_abort()))
            break;
        struct run_ctx rc = { .ops = &harness_ops, .plan = plan, .db = &rs->db, .index = i, .say = rs->say };
        gauges_init(&rc.gauges);
        rc.env.cfg = plan->env;
        snprintf(rc.exe, sizeof rc.exe, "%s", rs->exe);
        rc.env.exe = rc.exe;
        rc.env.say = rs->say;
        if (execute_one(&rc, &rs->mi, rs->machine_id, &o->err) < 0) {
            o->error = RUN_ERR_RUN;
            o->run = i + 1;
            o->runs = plan->runs;
        } else if (strcmp(rc.status, "ok") != 0) {
            o->some_failed = true;
        }
        abort_sig = rc.abort_sig;
        metric_set_free(&rc.metrics);
        pm_kv_free(&rc.meta);
        pm_kv_free(&rc.user_metrics);
        store_run_texts_free(&rc.texts);
        store_run_hists_free(&rc.hists);
        gauges_destroy(&rc.gauges);
        if (abort_sig || o->error)
            break;
        if (plan->gap_ns && i + 1 < plan->runs && (abort_sig = sleep_interruptible(plan->gap_ns)))
            break;
    }
    if (plan->wl->cleanup)
        plan->wl->cleanup(plan->wl_state);
    o->abort_sig = abort_sig;
}

void harness_plan_execute(struct run_plan *plan, FILE *say, struct run_outcome *o)
{
    char what[512];
    snprintf(what, sizeof what, "%s %s, label %s", plan->wl->hidden ? "record" : "run",
             plan->wl->name, plan->label);
    struct run_session rs;
    memset(o, 0, sizeof *o);
    if (harness_session_open(&rs, plan->db_path, what, say, &o->err) < 0) {
        o->error = RUN_ERR_SESSION;
        return;
    }
    harness_session_execute(&rs, plan, o);
    harness_session_close(&rs);
}
