#include "experiment/run_opts.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "collectors/sources.h"
#include "harness/profile.h"
#include "lib/fileio.h"
#include "lib/units.h"
#include "pressure/undo.h"
#include "reports/push.h"
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
    if (!run_label_ok(value))
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
    pm_set_db_path(value);
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

static int set_mem_high(void *state, const char *value, struct pm_err *err)
{
    struct run_opts *ro = state;
    return set_limit(value, &ro->env.has_mem_high, &ro->env.mem_high, err);
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

static int set_zswap(void *state, const char *value, struct pm_err *err)
{
    return vm_knob_parse_zswap(&((struct run_opts *)state)->env.knobs, value, err);
}

static int set_sysctl(void *state, const char *value, struct pm_err *err)
{
    return vm_knob_parse_sysctl(&((struct run_opts *)state)->env.knobs, value, err);
}

static int set_thp(void *state, const char *value, struct pm_err *err)
{
    return vm_knob_parse_thp(&((struct run_opts *)state)->env.knobs, value, err);
}

const struct opt pm_db_option[] = {
    { .name = "db", .type = OPT_CALLBACK, .set = set_db, .metavar = "PATH",
      .help = "results database (default: $PRESSMARK_DB, else results.db beside the binary in a clone, installed $XDG_DATA_HOME/pressmark/results.db)" },
    { .type = OPT_END },
};

#define RO(field) offsetof(struct run_opts, field)
const struct opt pm_run_options[] = {
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
      .help = "switch sources off (-buddyinfo) or on (+buddyinfo): stat vmstat meminfo psi memcg heartbeat buddyinfo "
              "zoneinfo diskstats procs mthp workload (default: all)" },
    { .name = "no-sample", .type = OPT_FLAG, .offset = RO(no_sample),
      .help = "no sampler, heartbeat or sources: the workload's figures and wait4's only (the observer's baseline)" },
    { .name = "trace-reclaim", .type = OPT_CALLBACK, .set = set_trace_reclaim,
      .help = "trace the run's reclaim and compaction stalls (tracefs, root): latency histograms and percentiles" },
    { .name = "push", .type = OPT_CALLBACK, .set = set_push, .metavar = "URL",
      .help = "push each run to a time-series database when stored (see 'pressmark push --help')" },
    { .type = OPT_END },
};

const struct opt pm_env_options[] = {
    { .name = "mem-cap", .type = OPT_CALLBACK, .set = set_mem_cap, .metavar = "SIZE|PCT",
      .help = "cap the workload's memory (e.g. 64M, 3G, 75% of MemTotal; none: no cap)" },
    { .name = "cap-method", .type = OPT_CHOICE, .offset = RO(env.method), .metavar = "M", .words = cap_method_names,
      .noun = "cap method", .help = "auto|cgroup2|cgroup1|balloon|none (auto: cgroup2, then cgroup1, then balloon)" },
    { .name = "swap-cap", .type = OPT_CALLBACK, .set = set_swap_cap, .metavar = "SIZE",
      .help = "swap the capped workload may use (cgroup caps; 0: none)" },
    { .name = "mem-high", .type = OPT_CALLBACK, .set = set_mem_high, .metavar = "SIZE",
      .help = "cgroup v2 memory.high, the throttling point below the cap" },
    { .name = "swap", .type = OPT_CALLBACK, .set = set_swap, .metavar = "SIZE|zram:SIZE[:ALGO]",
      .help = "a temporary swap file of SIZE (or file:SIZE) for the run, or a zram swap device; none: no swap" },
    { .name = "zswap", .type = OPT_CALLBACK, .set = set_zswap, .metavar = "on|off", .help = "switch zswap for the run" },
    { .name = "sysctl", .type = OPT_CALLBACK, .set = set_sysctl, .metavar = "vm.NAME=VALUE",
      .help = "set a VM sysctl for the run (repeatable)" },
    { .name = "thp", .type = OPT_CALLBACK, .set = set_thp, .metavar = "MODE",
      .help = "transparent hugepage mode for the run: always, madvise or never" },
    { .type = OPT_END },
};

const char pm_env_options_title[] = "memory cap, swap and VM settings (root; all undone after each run)";

void run_opts_limits(const struct run_opts *ro, struct wl_limits *lim)
{
    lim->mem_cap = ro->env.has_cap ? ro->env.mem_cap : 0;
    lim->swap_planned = ro->env.swap.kind != SWAP_NONE ? ro->env.swap.size : 0;
}

void run_opts_defaults(struct run_opts *ro)
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
}

int run_opts_check(struct run_opts *ro, struct pm_err *err)
{
    struct env_config *e = &ro->env;
    if (e->has_mem_high && !e->has_cap)
        return pm_errf(err, "--mem-high: needs --mem-cap (memory.high is a point below the cap)");
    if (e->has_swap_cap && !e->has_cap)
        return pm_errf(err, "--swap-cap: needs --mem-cap (it limits the capped workload's swap)");
    if (e->has_mem_high && e->mem_high > e->mem_cap)
        return pm_errf(err, "--mem-high: %llu bytes is above the cap of %llu bytes (accepted: at most the cap)",
                       (unsigned long long)e->mem_high, (unsigned long long)e->mem_cap);
    /* The cap method and what it allows are the kernel's: one booted for
     * the run judges them itself (the run fails there with the reason). */
    if (e->has_cap && !e->kernel_checks_deferred) {
        enum cap_method got;
        struct pm_err merr;
        if (env_resolve_method(e->method, &got, &merr) < 0)
            return pm_errf(err, "--cap-method: %s", merr.msg);
        if (got == CAP_BALLOON && (e->has_swap_cap || e->has_mem_high))
            return pm_errf(err, "--cap-method: the balloon caps the whole system; --swap-cap and --mem-high need cgroup1 or cgroup2");
        if (got == CAP_CGROUP1 && e->has_mem_high)
            return pm_errf(err, "--mem-high: needs cgroup v2 (accepted with --cap-method cgroup2)");
    }
    if (env_changes_machine(e) && geteuid() != 0)
        return pm_errf(err, "--mem-cap, --swap, --zswap, --sysctl and --thp change the machine and need root "
                       "(run as root, or without them)");
    return 0;
}


int run_opts_push(const struct run_opts *ro, struct pm_db *db, int64_t run_id, struct pm_err *err)
{
    struct push_request prq = { .url = ro->push_url, .token = ro->push_token, .only_run = run_id };
    int pushed;
    size_t lines;
    return push_runs(db, &prq, &pushed, &lines, err);
}

void run_opts_to_plan(const struct run_opts *ro, struct run_plan *plan)
{
    plan->label = ro->label;
    plan->interval_ns = ro->interval_ns;
    plan->runs = ro->runs;
    plan->gap_ns = ro->gap_ns;
    plan->timeout_ns = ro->timeout_ns;
    plan->quiet = ro->quiet;
    plan->db_path = pm_db_path();
    plan->env = &ro->env;
    plan->profile = ro->profile;
    plan->trace_reclaim = ro->trace_reclaim;
    plan->collect_off = ro->collect_off;
    plan->no_sample = ro->no_sample;
}
