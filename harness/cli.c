#include "harness/cli.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "harness/db.h"
#include "harness/units.h"

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
};

const struct option pm_run_long_options[] = {
    { "label", required_argument, NULL, OPT_LABEL },
    { "interval", required_argument, NULL, OPT_INTERVAL },
    { "runs", required_argument, NULL, OPT_RUNS },
    { "gap", required_argument, NULL, OPT_GAP },
    { "timeout", required_argument, NULL, OPT_TIMEOUT },
    { "db", required_argument, NULL, OPT_DB },
    { "quiet", no_argument, NULL, OPT_QUIET },
    { NULL, 0, NULL, 0 },
};

const char pm_run_options_help[] =
    "  --label L         the configuration these runs measure (default: uname -r)\n"
    "  --interval I      sampling interval, 10ms to 1h (default 1s)\n"
    "  --runs N          how many runs, each stored (default 1)\n"
    "  --gap D           pause between runs (default 0s)\n"
    "  --timeout D       end a run that takes longer as failed (default: none)\n"
    "  --db PATH         results database (default: $PRESSMARK_DB or results.db beside the binary)\n"
    "  --quiet           no per-run line on stderr\n";

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
    default:
        return 0;
    }
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
}
