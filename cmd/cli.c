#include "cmd/cli.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "store/db.h"
#include "harness/profile.h"
#include "reports/push.h"
#include "lib/fileio.h"
#include "lib/units.h"
#include <unistd.h>

static char db_path[PATH_MAX];

int pm_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pressmark %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return PM_EXIT_USAGE;
}

void pm_set_db_path(const char *path)
{
    snprintf(db_path, sizeof db_path, "%s", path);
}

const char *pm_db_path(void)
{
    if (!db_path[0] && pm_db_default_path(db_path, sizeof db_path) < 0)
        snprintf(db_path, sizeof db_path, "results.db");
    return db_path;
}

enum {
    OPT_LABEL = 1000, OPT_INTERVAL, OPT_RUNS, OPT_GAP, OPT_TIMEOUT, OPT_DB, OPT_QUIET,
    OPT_PROFILE, OPT_PUSH, OPT_MEM_CAP, OPT_CAP_METHOD, OPT_SWAP_CAP, OPT_MEM_HIGH, OPT_SWAP, OPT_ZSWAP, OPT_SYSCTL, OPT_THP,
};

const struct option pm_run_long_options[] = {
    { "label", required_argument, NULL, OPT_LABEL },
    { "interval", required_argument, NULL, OPT_INTERVAL },
    { "runs", required_argument, NULL, OPT_RUNS },
    { "gap", required_argument, NULL, OPT_GAP },
    { "timeout", required_argument, NULL, OPT_TIMEOUT },
    { "db", required_argument, NULL, OPT_DB },
    { "quiet", no_argument, NULL, OPT_QUIET },
    { "profile", no_argument, NULL, OPT_PROFILE },
    { "push", required_argument, NULL, OPT_PUSH },
    { "mem-cap", required_argument, NULL, OPT_MEM_CAP },
    { "cap-method", required_argument, NULL, OPT_CAP_METHOD },
    { "swap-cap", required_argument, NULL, OPT_SWAP_CAP },
    { "mem-high", required_argument, NULL, OPT_MEM_HIGH },
    { "swap", required_argument, NULL, OPT_SWAP },
    { "zswap", required_argument, NULL, OPT_ZSWAP },
    { "sysctl", required_argument, NULL, OPT_SYSCTL },
    { "thp", required_argument, NULL, OPT_THP },
    { NULL, 0, NULL, 0 },
};

const char pm_run_options_help[] =
    "  --label L         the configuration these runs measure (default: uname -r)\n"
    "  --interval I      sampling interval, 10ms to 1h (default 1s)\n"
    "  --runs N          how many runs, each stored (default 1)\n"
    "  --gap D           pause between runs (default 0s)\n"
    "  --timeout D       end a run that takes longer as failed (default: none)\n"
    "  --db PATH         results database (default: $PRESSMARK_DB or results.db beside the binary)\n"
    "  --quiet           no per-run line on stderr\n"
    "  --profile         a system-wide kernel profile per run (perf record -e cpu-clock -a), top 10 stored\n"
    "  --push URL        push each run to a time-series database when stored (see 'pressmark push --help')\n"
    "\nmemory cap, swap and VM settings (root; all undone after each run):\n"
    "  --mem-cap SIZE|PCT       cap the workload's memory (e.g. 64M, 3G, 75%% of MemTotal)\n"
    "  --cap-method M           auto|cgroup2|cgroup1|balloon|none (auto: cgroup2, then cgroup1, then balloon)\n"
    "  --swap-cap SIZE          swap the capped workload may use (cgroup caps; 0: none)\n"
    "  --mem-high SIZE          cgroup v2 memory.high, the throttling point below the cap\n"
    "  --swap SIZE              add a temporary swap file of SIZE for the run\n"
    "  --swap zram:SIZE[:ALGO]  add a temporary zram swap device instead\n"
    "  --zswap on|off           switch zswap for the run\n"
    "  --sysctl vm.NAME=VALUE   set a VM sysctl for the run (repeatable)\n"
    "  --thp always|madvise|never  transparent hugepage mode for the run\n";

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

int run_opts_handle(struct run_opts *ro, const char *cmd, int id, const char *arg)
{
    uint64_t v;
    switch (id) {
    case OPT_LABEL:
        if (!arg[0] || strlen(arg) >= sizeof ro->label_buf) {
            pm_usage(cmd, "--label: '%s' is not a label (accepted: 1 to %zu characters)", arg,
                     sizeof ro->label_buf - 1);
            return -1;
        }
        snprintf(ro->label_buf, sizeof ro->label_buf, "%s", arg);
        return 1;
    case OPT_INTERVAL:
        if (pm_parse_duration(arg, &v) < 0 || v < 10000000ull || v > 3600000000000ull) {
            pm_usage(cmd, "--interval: '%s' is not a sampling interval (accepted: %s; from 10ms to 1h)",
                     arg, PM_DURATION_FORMS);
            return -1;
        }
        ro->interval_ns = v;
        return 1;
    case OPT_RUNS:
        if (pm_parse_uint(arg, 1, 100000, &v) < 0) {
            pm_usage(cmd, "--runs: '%s' is not a run count (accepted: a whole number from 1 to 100000)", arg);
            return -1;
        }
        ro->runs = (unsigned)v;
        return 1;
    case OPT_GAP:
        if (pm_parse_duration(arg, &v) < 0) {
            pm_usage(cmd, "--gap: '%s' is not a duration (accepted: %s)", arg, PM_DURATION_FORMS);
            return -1;
        }
        ro->gap_ns = v;
        return 1;
    case OPT_TIMEOUT:
        if (pm_parse_duration(arg, &v) < 0 || v == 0) {
            pm_usage(cmd, "--timeout: '%s' is not a duration (accepted: %s; above zero)", arg, PM_DURATION_FORMS);
            return -1;
        }
        ro->timeout_ns = v;
        return 1;
    case OPT_DB:
        if (!arg[0]) {
            pm_usage(cmd, "--db: '' is not a path (accepted: a file path)");
            return -1;
        }
        pm_set_db_path(arg);
        return 1;
    case OPT_QUIET:
        ro->quiet = true;
        return 1;
    case OPT_PUSH: {
        if (strncmp(arg, "http://", 7) != 0 && strncmp(arg, "https://", 8) != 0) {
            pm_usage(cmd, "--push: '%s' is not a URL (accepted: http:// or https://)", arg);
            return -1;
        }
        struct pm_err err;
        if (push_token(NULL, ro->push_token, sizeof ro->push_token, &err) < 0) {
            pm_usage(cmd, "--push: %s", err.msg);
            return -1;
        }
        ro->push_url = arg;
        return 1;
    }
    case OPT_PROFILE:
        if (!profile_available()) {
            pm_usage(cmd, "--profile: perf is not installed (as root: apt-get install linux-perf)");
            return -1;
        }
        ro->profile = true;
        return 1;
    case OPT_MEM_CAP: {
        int64_t total_kb = pm_meminfo_kb("MemTotal");
        if (pm_parse_size(arg, total_kb > 0 ? (uint64_t)total_kb * 1024 : 0, &v) < 0 || v < (4ull << 20)) {
            pm_usage(cmd, "--mem-cap: '%s' is not a memory cap (accepted: %s; at least 4M)", arg, PM_SIZE_FORMS);
            return -1;
        }
        ro->env.has_cap = true;
        ro->env.mem_cap = v;
        return 1;
    }
    case OPT_CAP_METHOD: {
        static const char *names[] = { "auto", "cgroup2", "cgroup1", "balloon", "none" };
        for (int i = 0; i < 5; i++) {
            if (strcmp(arg, names[i]) == 0) {
                ro->env.method = (enum cap_method)i;
                return 1;
            }
        }
        pm_usage(cmd, "--cap-method: '%s' is not a cap method (accepted: auto, cgroup2, cgroup1, balloon, none)", arg);
        return -1;
    }
    case OPT_SWAP_CAP:
    case OPT_MEM_HIGH:
        if (pm_parse_size(arg, 0, &v) < 0) {
            pm_usage(cmd, "--%s: '%s' is not a size (accepted: %s)", id == OPT_SWAP_CAP ? "swap-cap" : "mem-high",
                     arg, PM_SIZE_FORMS);
            return -1;
        }
        if (id == OPT_SWAP_CAP) {
            ro->env.has_swap_cap = true;
            ro->env.swap_cap = v;
        } else {
            ro->env.has_mem_high = true;
            ro->env.mem_high = v;
        }
        return 1;
    case OPT_SWAP:
        if (swap_parse(arg, &ro->env.swap) < 0) {
            pm_usage(cmd, "--swap: '%s' is not a swap set-up (accepted: SIZE for a swap file, zram:SIZE or "
                     "zram:SIZE:ALGO, SIZE at least 1M, e.g. 256M, zram:512M:lz4)", arg);
            return -1;
        }
        return 1;
    case OPT_ZSWAP:
    case OPT_SYSCTL:
    case OPT_THP: {
        struct pm_err err;
        int rc = id == OPT_ZSWAP ? vm_knob_parse_zswap(&ro->env.knobs, arg, &err)
               : id == OPT_THP ? vm_knob_parse_thp(&ro->env.knobs, arg, &err)
               : vm_knob_parse_sysctl(&ro->env.knobs, arg, &err);
        if (rc < 0) {
            pm_usage(cmd, "--%s: %s", id == OPT_ZSWAP ? "zswap" : id == OPT_THP ? "thp" : "sysctl", err.msg);
            return -1;
        }
        return 1;
    }
    default:
        return 0;
    }
}

int run_opts_finish(struct run_opts *ro, const char *cmd)
{
    struct env_config *e = &ro->env;
    if (e->has_mem_high && !e->has_cap)
        return pm_usage(cmd, "--mem-high: needs --mem-cap (memory.high is a point below the cap)");
    if (e->has_swap_cap && !e->has_cap)
        return pm_usage(cmd, "--swap-cap: needs --mem-cap (it limits the capped workload's swap)");
    if (e->has_mem_high && e->mem_high > e->mem_cap)
        return pm_usage(cmd, "--mem-high: %llu bytes is above the cap of %llu bytes (accepted: at most the cap)",
                        (unsigned long long)e->mem_high, (unsigned long long)e->mem_cap);
    if (e->has_cap) {
        enum cap_method got;
        struct pm_err err;
        if (env_resolve_method(e->method, &got, &err) < 0)
            return pm_usage(cmd, "--cap-method: %s", err.msg);
        if (got == CAP_BALLOON && (e->has_swap_cap || e->has_mem_high))
            return pm_usage(cmd, "--cap-method: the balloon caps the whole system; --swap-cap and --mem-high need cgroup1 or cgroup2");
        if (got == CAP_CGROUP1 && e->has_mem_high)
            return pm_usage(cmd, "--mem-high: needs cgroup v2 (accepted with --cap-method cgroup2)");
    }
    if (env_changes_machine(e) && geteuid() != 0)
        return pm_usage(cmd, "--mem-cap, --swap, --zswap, --sysctl and --thp change the machine and need root "
                        "(run as root, or without them)");
    return 0;
}

/* --push: each run goes out as soon as it is stored; a server that is
 * down leaves it queued for the next 'pressmark push'. */
static void push_after_store(void *arg, struct pm_db *db, int64_t run_id)
{
    const struct run_opts *ro = arg;
    struct push_request prq = { .url = ro->push_url, .token = ro->push_token, .only_run = run_id };
    int pushed;
    size_t lines;
    struct pm_err perr;
    if (push_runs(db, &prq, &pushed, &lines, &perr) < 0)
        fprintf(stderr, "pressmark: push: %s; run %lld stays queued for the next 'pressmark push'\n", perr.msg,
                (long long)run_id);
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
    if (ro->push_url) {
        plan->after_store = push_after_store;
        plan->after_store_arg = (void *)ro;
    }
}
