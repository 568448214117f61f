#include "experiment/run_opts.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "collectors/sources.h"
#include "harness/profile.h"
#include "harness/sibling.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "pressure/undo.h"
#include "export/push.h"
#include "store/db.h"
#include "store/runs.h"

/* The run options' setters where a field alone does not say it all. */
static int set_label(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    _Static_assert(sizeof ro->label_buf > RUN_LABEL_MAX, "a label fits its buffer");
    if (!value[0] || strlen(value) > RUN_LABEL_MAX)
        return pm_errf(err, "'%s' is not a label (accepted: 1 to %d characters)", value, RUN_LABEL_MAX);
    /* "--label -- make" would take "--" for the label and lose the command. */
    if (!store_run_label_ok(value))
        return pm_errf(err, "'%s' is not a label (accepted: 1 to %d characters, not starting with '-'; "
                       "was the label left out?)", value, RUN_LABEL_MAX);
    snprintf(ro->label_buf, sizeof ro->label_buf, "%s", value);
    return 0;
}

static int set_db(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    if (!value[0])
        return pm_errf(err, "'' is not a path (accepted: a file path)");
    store_set_db_path(value);
    return 0;
}

static int set_push(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    if (strncmp(value, "http://", 7) != 0 && strncmp(value, "https://", 8) != 0)
        return pm_errf(err, "'%s' is not a URL (accepted: http:// or https://)", value);
    if (push_token(NULL, ro->push_token, sizeof ro->push_token, err) < 0 ||
        (ro->push_token[0] && push_token_allowed(value, false, err) < 0))
        return -1;
    ro->push_url = value;
    return 0;
}

static int set_profile(void *state, const char *value, struct pm_err *err)
{
    (void)value;
    if (!profile_available())
        return pm_errf(err, "perf is not installed (as root: apt-get install linux-perf)");
    ((struct run_opts *)state)->profile = true;
    return 0;
}

static int set_trace_reclaim(void *state, const char *value, struct pm_err *err)
{
    (void)value;
    if (geteuid() != 0)
        return pm_errf(err, "needs root (it sets up a trace instance in tracefs)");
    ((struct run_opts *)state)->trace_reclaim = true;
    return 0;
}

static int set_collect(void *state, const char *value, struct pm_err *err)
{
    return sources_parse_collect(value, &((struct run_opts *)state)->collect_off, err);
}

static int set_mem_cap(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    if (strcmp(value, "none") == 0) {       /* a suite's axis: the uncapped cell */
        ro->env.has_cap = false;
        ro->env.mem_cap = 0;
        return 0;
    }
    int64_t total_kb = pm_meminfo_kb("MemTotal");
    uint64_t v;
    if (pm_parse_size(value, total_kb > 0 ? (uint64_t)total_kb * 1024 : 0, &v) < 0 || v < (4ull << 20))
        return pm_errf(err, "'%s' is not a memory cap (accepted: %s; at least 4M; or none)", value, PM_SIZE_FORMS);
    /* A cap at or above MemTotal caps nothing: the run would measure an
     * uncapped machine under a capped label. */
    if (total_kb > 0 && v >= (uint64_t)total_kb * 1024) {
        char total[32];
        pm_fmt_size(total, sizeof total, (uint64_t)total_kb * 1024);
        return pm_errf(err, "'%s' is not below this machine's MemTotal of %s (accepted: a cap below it, e.g. 75%%)",
                       value, total);
    }
    ro->env.has_cap = true;
    ro->env.mem_cap = v;
    return 0;
}

static int set_limit(const char *value, bool *has, uint64_t *field, struct pm_err *err)
{
    if (pm_parse_size(value, 0, field) < 0)
        return pm_errf(err, "'%s' is not a size (accepted: %s)", value, PM_SIZE_FORMS);
    *has = true;
    return 0;
}

static int set_swap_cap(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return set_limit(value, &ro->env.has_swap_cap, &ro->env.swap_cap, err);
}

#define CAP_SHARE_FORMS "a byte count with K, M, G or T (binary), e.g. 48M, 1G, or a percentage of --mem-cap such as 75%"

/* A cgroup control's size: bytes, or a share of --mem-cap kept in *pct
 * for exp_run_opts_check (the cap may not have been read yet); "max" where
 * the control takes it (UINT64_MAX). */
static int set_cap_share(const char *value, bool takes_max, bool *has, uint64_t *bytes, double *pct,
                         struct pm_err *err)
{
    char *end;
    double p = strtod(value, &end);
    if (value[0] >= '0' && value[0] <= '9' && strcmp(end, "%") == 0 && p > 0 && p <= 100) {
        *pct = p;
        *bytes = 0;
    } else if (takes_max && strcmp(value, "max") == 0) {
        *pct = 0;
        *bytes = UINT64_MAX;
    } else if (pm_parse_size(value, 0, bytes) == 0) {
        *pct = 0;
    } else {
        return pm_errf(err, "'%s' is not a size (accepted: %s%s)", value, CAP_SHARE_FORMS, takes_max ? "; or max" : "");
    }
    *has = true;
    return 0;
}

static int set_mem_high(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return set_cap_share(value, false, &ro->env.has_mem_high, &ro->env.mem_high, &ro->mem_high_pct, err);
}

static int set_mem_low(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return set_cap_share(value, false, &ro->env.has_mem_low, &ro->env.mem_low, &ro->mem_low_pct, err);
}

static int set_mem_min(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return set_cap_share(value, false, &ro->env.has_mem_min, &ro->env.mem_min, &ro->mem_min_pct, err);
}

static int set_zswap_max(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return set_cap_share(value, true, &ro->env.has_zswap_max, &ro->env.zswap_max, &ro->zswap_max_pct, err);
}

static int set_zswap_writeback(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    if (strcmp(value, "on") && strcmp(value, "off"))
        return pm_errf(err, "'%s' is not a zswap writeback setting (accepted: on, off)", value);
    ro->env.zswap_writeback = strcmp(value, "on") == 0 ? 1 : 2;
    return 0;
}

static int set_sibling(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    if (strcmp(value, "none") == 0) {       /* a suite's axis: the cell without a hog */
        ro->env.sibling[0] = '\0';
        return 0;
    }
    bool ctl = false;
    for (const char *c = value; *c; c++)
        ctl |= (unsigned char)*c < 0x20 && *c != '\t';
    if (!value[0] || strlen(value) >= sizeof ro->env.sibling || ctl) {
        char shown[160];
        quote_terminal(value, shown, sizeof shown);
        return pm_errf(err, "'%s' is not a hog (accepted: 'WORKLOAD [OPTIONS]', under %zu characters, no control characters; "
                       "or none)", shown, sizeof ro->env.sibling);
    }
    snprintf(ro->env.sibling, sizeof ro->env.sibling, "%s", value);
    return 0;
}

static int set_swap(void *state, const char *value, struct pm_err *err)
{
    struct swap_config *sw = &((struct run_opts *)state)->env.swap;
    if (swap_parse(value, sw) < 0)
        return pm_errf(err, "'%s' is not a swap set-up (accepted: SIZE or file:SIZE for a swap file, zram:SIZE or "
                       "zram:SIZE:ALGO, SIZE at least 1M or a share of MemTotal, e.g. 256M, 25%%, zram:512M:lz4; "
                       "or none)", value);
    return swap_check_fits(sw, err);
}

/* The VM settings' parsers check this kernel has the setting, unless the
 * suite cell boots another kernel (env.kernel_checks_deferred). */
static int set_zswap(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return vmknobs_parse_zswap(&ro->env.knobs, value, !ro->env.kernel_checks_deferred, err);
}

static int set_sysctl(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return vmknobs_parse_sysctl(&ro->env.knobs, value, !ro->env.kernel_checks_deferred, err);
}

static int set_thp(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return vmknobs_parse_thp(&ro->env.knobs, value, !ro->env.kernel_checks_deferred, err);
}

static int set_lru_gen(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return vmknobs_parse_lru_gen(&ro->env.knobs, value, !ro->env.kernel_checks_deferred, err);
}

static int set_lru_gen_min_ttl(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return vmknobs_parse_lru_gen_min_ttl(&ro->env.knobs, value, !ro->env.kernel_checks_deferred, err);
}

const struct opt exp_db_option[] = {
    { .name = "db", .type = OPT_CALLBACK, .set = set_db, .metavar = "PATH",
      .help = "results database (default: $PRESSMARK_DB, else results.db beside the binary in a clone, installed $XDG_DATA_HOME/pressmark/results.db)" },
    { .type = OPT_END },
};

#define RO(field) offsetof(struct run_opts, field)
const struct opt exp_run_options[] = {
    { .name = "label", .type = OPT_CALLBACK, .set = set_label, .metavar = "L",
      .help = "the configuration these runs measure (default: uname -r)" },
    { .name = "interval", .type = OPT_DURATION, .offset = RO(interval_ns), .metavar = "I", .min = 10e6, .max = 3600e9,
      .noun = "sampling interval", .extra = "from 10ms to 1h", .help = "sampling interval, 10ms to 1h (default 1s)" },
    { .name = "runs", .type = OPT_UINT, .offset = RO(runs), .metavar = "N", .min = 1, .max = 100000,
      .noun = "run count", .help = "how many runs, each stored (default 1)" },
    { .name = "gap", .type = OPT_DURATION, .offset = RO(gap_ns), .metavar = "D", .help = "pause between runs (default 0s)" },
    { .name = "timeout", .type = OPT_DURATION, .offset = RO(timeout_ns), .metavar = "D", .min = 1, .max = 1e18,
      .extra = "above zero", .help = "end a run that takes longer as failed (default: none)" },
    { .name = "db", .type = OPT_CALLBACK, .set = set_db, .metavar = "PATH",
      .help = "results database (default: $PRESSMARK_DB, else results.db beside the binary in a clone, installed $XDG_DATA_HOME/pressmark/results.db)" },
    { .name = "quiet", .type = OPT_FLAG, .offset = RO(quiet), .help = "no per-run line on stderr" },
    { .name = "profile", .type = OPT_CALLBACK, .set = set_profile,
      .help = "a system-wide kernel profile per run (perf record -e cpu-clock -a), top 10 stored" },
    { .name = "collect", .type = OPT_CALLBACK, .set = set_collect, .metavar = "-SRC,...",
      .help = "switch sources off (-buddyinfo) or on (+buddyinfo):" PM_SOURCE_WORDS " (default: all)" },
    { .name = "no-sample", .type = OPT_FLAG, .offset = RO(no_sample),
      .help = "no sampler, heartbeat or sources: the workload's figures and wait4's only (the observer's baseline)" },
    { .name = "trace-reclaim", .type = OPT_CALLBACK, .set = set_trace_reclaim,
      .help = "trace the run's reclaim and compaction stalls (tracefs, root): latency histograms and percentiles" },
    { .name = "push", .type = OPT_CALLBACK, .set = set_push, .metavar = "URL",
      .help = "push each run to a time-series database when stored (see 'pressmark push --help')" },
    { .type = OPT_END },
};

const struct opt exp_env_options[] = {
    { .name = "mem-cap", .type = OPT_CALLBACK, .set = set_mem_cap, .metavar = "SIZE|PCT",
      .help = "cap the workload's memory (e.g. 64M, 3G, 75% of MemTotal; none: no cap)" },
    { .name = "cap-method", .type = OPT_CHOICE, .offset = RO(env.method), .metavar = "M", .words = cap_method_names,
      .noun = "cap method", .help = "auto|cgroup2|cgroup1|balloon|none (auto: cgroup2, then cgroup1, then balloon)" },
    { .name = "swap-cap", .type = OPT_CALLBACK, .set = set_swap_cap, .metavar = "SIZE",
      .help = "swap the capped workload may use (cgroup caps; 0: none)" },
    { .name = "mem-high", .type = OPT_CALLBACK, .set = set_mem_high, .metavar = "SIZE|PCT",
      .help = "cgroup v2 memory.high, the throttling point below the cap (e.g. 48M, or 75% of --mem-cap)" },
    { .name = "mem-low", .type = OPT_CALLBACK, .set = set_mem_low, .metavar = "SIZE|PCT",
      .help = "cgroup v2 memory.low, best-effort protection from reclaim of that much of the workload's memory "
              "(e.g. 32M, or 50% of --mem-cap; at most the cap)" },
    { .name = "mem-min", .type = OPT_CALLBACK, .set = set_mem_min, .metavar = "SIZE|PCT",
      .help = "cgroup v2 memory.min, hard protection: that much is never reclaimed, the OOM killer runs instead "
              "(e.g. 16M, or 25% of --mem-cap; at most the cap)" },
    { .name = "zswap-max", .type = OPT_CALLBACK, .set = set_zswap_max, .metavar = "SIZE|PCT|max",
      .help = "cgroup v2 memory.zswap.max, the workload's zswap pool limit (e.g. 16M, 25% of --mem-cap; 0: no zswap)" },
    { .name = "zswap-writeback", .type = OPT_CALLBACK, .set = set_zswap_writeback, .metavar = "on|off",
      .help = "cgroup v2 memory.zswap.writeback: off keeps the workload's pages off the swap device (zswap only)" },
    { .name = "swap", .type = OPT_CALLBACK, .set = set_swap, .metavar = "SIZE|zram:SIZE[:ALGO]",
      .help = "a temporary swap file of SIZE (or file:SIZE) for the run, or a zram swap device; none: no swap" },
    { .name = "zswap", .type = OPT_CALLBACK, .set = set_zswap, .metavar = "on|off", .help = "switch zswap for the run" },
    { .name = "sysctl", .type = OPT_CALLBACK, .set = set_sysctl, .metavar = "vm.NAME=VALUE",
      .help = "set a VM sysctl for the run (repeatable)" },
    { .name = "thp", .type = OPT_CALLBACK, .set = set_thp, .metavar = "MODE",
      .help = "transparent hugepage mode for the run: always, madvise or never" },
    { .name = "lru-gen", .type = OPT_CALLBACK, .set = set_lru_gen, .metavar = "on|off|FLAGS",
      .help = "the multi-gen LRU (MGLRU) for the run: on, off, or a mask of its components such as 0x0007 "
              "(/sys/kernel/mm/lru_gen/enabled)" },
    { .name = "lru-gen-min-ttl", .type = OPT_CALLBACK, .set = set_lru_gen_min_ttl, .metavar = "MS",
      .help = "MGLRU's thrashing prevention: keep the working set of the last MS milliseconds, else OOM-kill "
              "(/sys/kernel/mm/lru_gen/min_ttl_ms; 0: off)" },
    { .name = "sibling", .type = OPT_CALLBACK, .set = set_sibling, .metavar = "'WORKLOAD [OPTIONS]'",
      .help = "a hog beside the workload: WORKLOAD run pass after pass in a sibling cgroup under the same --mem-cap, "
              "from --sibling-lead before the workload until it ends (e.g. 'usemem --size 300M'; none: no hog)" },
    { .name = "sibling-lead", .type = OPT_DURATION, .offset = RO(env.sibling_lead_ns), .metavar = "D", .min = 0,
      .max = 3600e9, .extra = "0 to 1h", .help = "how long the hog runs before the workload starts (default 2s)" },
    { .type = OPT_END },
};

const char exp_env_options_title[] = "memory cap, swap and VM settings (root; all undone after each run)";

/* Why a run's processes will be in no cgroup of the run's: as root a
 * cgroup cap makes one and no cap a tracking one, both in a memory cgroup
 * hierarchy (pressure/env.c); the balloon and --cap-method none make none.
 * What a kernel a suite boots has is that kernel's to say. NULL: one. */
static const char *without_cgroup(const struct env_config *e)
{
    if (geteuid() != 0)
        return "not root";
    enum cap_method m = e->has_cap ? (enum cap_method)e->method : CAP_AUTO;
    if (m == CAP_BALLOON || m == CAP_NONE)
        return m == CAP_BALLOON ? "--cap-method balloon" : "--cap-method none";
    struct pm_err err;
    if (m == CAP_AUTO && !e->kernel_checks_deferred && env_resolve_method(CAP_AUTO, &m, &err) == 0 &&
        m == CAP_BALLOON)
        return "no memory cgroup hierarchy here";
    return NULL;
}

void exp_run_opts_limits(const struct run_opts *ro, struct wl_limits *lim)
{
    lim->mem_cap = ro->env.has_cap ? ro->env.mem_cap : 0;
    lim->swap_planned = ro->env.swap.kind != SWAP_NONE ? ro->env.swap.size : 0;
    lim->no_cgroup = without_cgroup(&ro->env);
    lim->swap_dir = ro->env.swap.kind == SWAP_FILE ? ro->env.swap.dir : NULL;
    lim->elsewhere = ro->env.kernel_checks_deferred;
}

void exp_run_opts_defaults(struct run_opts *ro)
{
    memset(ro, 0, sizeof *ro);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(ro->label_buf, sizeof ro->label_buf, "%s", u.release);
    else
        snprintf(ro->label_buf, sizeof ro->label_buf, "unknown");
    ro->label = ro->label_buf;
    ro->interval_ns = 1000000000ull;
    ro->runs = 1;
    ro->env.method = CAP_AUTO;
    ro->env.sibling_lead_ns = 2000000000ull;
}

/* The hog needs a cap to share (its method is the kernel's to judge:
 * env_controls_check) and a spec its workload takes. */
static int check_sibling(struct run_opts *ro, struct pm_err *err)
{
    struct env_config *e = &ro->env;
    if (!e->has_cap)
        return pm_errf(err, "--sibling: needs --mem-cap (the cap is the parent cgroup the hog and the workload share)");
    struct wl_limits lim;
    exp_run_opts_limits(ro, &lim);
    struct sibling_spec sp;
    struct pm_err serr;
    if (sibling_spec_parse(e->sibling, &lim, &sp, &serr) < 0)
        return pm_errf(err, "--sibling: %s", serr.msg);
    sibling_spec_free(&sp);
    return 0;
}

/* The cgroup controls that take a size: each needs the cap, a share of
 * it becomes bytes, and the protection and throttling points lie within
 * it. (memory.min above memory.low is left to the kernel: the two are
 * independent in Documentation/admin-guide/cgroup-v2.rst.) */
static int check_sizes(struct run_opts *ro, struct pm_err *err)
{
    struct env_config *e = &ro->env;
    const struct {
        const char *option, *why;
        bool has, within_cap;
        uint64_t *bytes;
        double pct;
    } c[] = {
        { "mem-high", "memory.high is a point below the cap", e->has_mem_high, true, &e->mem_high, ro->mem_high_pct },
        { "mem-low", "memory.low protects part of the capped workload's memory", e->has_mem_low, true, &e->mem_low,
          ro->mem_low_pct },
        { "mem-min", "memory.min protects part of the capped workload's memory", e->has_mem_min, true, &e->mem_min,
          ro->mem_min_pct },
        { "zswap-max", "memory.zswap.max limits the capped workload's zswap pool", e->has_zswap_max, false,
          &e->zswap_max, ro->zswap_max_pct },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (!c[i].has)
            continue;
        if (!e->has_cap && c[i].pct > 0)
            return pm_errf(err, "--%s: '%g%%' is a share of --mem-cap, and there is none (accepted: a size, or "
                           "--mem-cap with it)", c[i].option, c[i].pct);
        if (!e->has_cap)
            return pm_errf(err, "--%s: needs --mem-cap (%s)", c[i].option, c[i].why);
        if (c[i].pct > 0)
            *c[i].bytes = (uint64_t)(c[i].pct / 100.0 * (double)e->mem_cap);
        if (c[i].within_cap && *c[i].bytes > e->mem_cap)
            return pm_errf(err, "--%s: %llu bytes is above the cap of %llu bytes (accepted: at most the cap)",
                           c[i].option, (unsigned long long)*c[i].bytes, (unsigned long long)e->mem_cap);
    }
    return 0;
}

/* What only the kernel that runs the workload can say: the cap method it
 * has and the controls that method and kernel give. */
static int check_kernel(const struct env_config *e, struct pm_err *err)
{
    enum cap_method got;
    struct pm_err merr;
    if (env_resolve_method(e->method, &got, &merr) < 0)
        return pm_errf(err, "--cap-method: %s", merr.msg);
    if (got == CAP_BALLOON && e->has_swap_cap)
        return pm_errf(err, "--cap-method: the balloon caps the whole system; --swap-cap needs cgroup1 or cgroup2");
    return env_controls_check(e, got, err);
}

int exp_run_opts_check(struct run_opts *ro, struct pm_err *err)
{
    struct env_config *e = &ro->env;
    if (check_sizes(ro, err) < 0)
        return -1;
    if (e->has_swap_cap && !e->has_cap)
        return pm_errf(err, "--swap-cap: needs --mem-cap (it limits the capped workload's swap)");
    if (e->zswap_writeback && !e->has_cap)
        return pm_errf(err, "--zswap-writeback: needs --mem-cap (memory.zswap.writeback is set on the capped "
                       "workload's cgroup)");
    if (e->has_cap && !e->kernel_checks_deferred && check_kernel(e, err) < 0)
        return -1;
    if (e->sibling[0] && check_sibling(ro, err) < 0)
        return -1;
    if (env_changes_machine(e) && geteuid() != 0)
        return pm_errf(err, "--mem-cap, --swap, --zswap, --sysctl, --thp and --lru-gen change the machine and need "
                       "root (run as root, or without them)");
    return 0;
}

int exp_run_opts_push(const struct run_opts *ro, struct pm_db *db, int64_t run_id, struct pm_err *err)
{
    struct push_request prq = { .url = ro->push_url, .token = ro->push_token, .only_run = run_id };
    int pushed;
    size_t lines;
    return push_runs(db, &prq, &pushed, &lines, err);
}

void exp_run_opts_to_plan(const struct run_opts *ro, struct run_plan *plan)
{
    plan->label = ro->label;
    plan->interval_ns = ro->interval_ns;
    plan->runs = ro->runs;
    plan->gap_ns = ro->gap_ns;
    plan->timeout_ns = ro->timeout_ns;
    plan->quiet = ro->quiet;
    plan->db_path = store_db_path();
    plan->env = &ro->env;
    plan->profile = ro->profile;
    plan->trace_reclaim = ro->trace_reclaim;
    plan->collect_off = ro->collect_off;
    plan->no_sample = ro->no_sample;
}
