#ifndef PM_EXPERIMENT_RUN_OPTS_H
#define PM_EXPERIMENT_RUN_OPTS_H
/* The options of every run, declared once as option tables: the command
 * line of run and record, a suite file's keys, the stored configuration.
 * Their state is a struct run_opts, which becomes a run plan. */
#include <stdbool.h>
#include <stdint.h>
#include "harness/run.h"
#include "lib/opt.h"
#include "pressure/env.h"
#include "workloads/workload.h"

/* The option table of --db, for commands that take nothing else of the
 * run options. */
extern const struct opt exp_db_option[];

/* Options shared by every command that runs a workload. */
struct run_opts {
    const char *label;
    uint64_t interval_ns;
    unsigned runs;
    uint64_t gap_ns;
    uint64_t timeout_ns;
    bool quiet;
    bool profile;
    bool trace_reclaim;
    unsigned collect_off;
    bool no_sample;
    const char *push_url;
    char push_token[1024];
    struct env_config env;
    /* --mem-high, --mem-low, --mem-min and --zswap-max given as a share of
     * --mem-cap, in percent (0: given in bytes): kept as given until
     * exp_run_opts_check turns them into bytes, so the cap may come after them
     * on the command line or in a suite. */
    double mem_high_pct, mem_low_pct, mem_min_pct, zswap_max_pct;
    char label_buf[256];
};

/* The run options and the environment options, as option tables whose
 * state is a struct run_opts (for cmd_parse groups). */
extern const struct opt exp_run_options[];
extern const struct opt exp_env_options[];
extern const char exp_env_options_title[];

void exp_run_opts_defaults(struct run_opts *ro);
/* The cap and planned swap, as a workload's check sees them. */
void exp_run_opts_limits(const struct run_opts *ro, struct wl_limits *lim);
/* Check the options together: the cgroup controls' percentages made bytes
 * of the cap and kept within it, and, unless env.kernel_checks_deferred,
 * the cap method and controls this machine has; then root. 0, or -1 with
 * err saying why (cli_run_opts_finish prints it). */
int exp_run_opts_check(struct run_opts *ro, struct pm_err *err);
/* Fill the plan's common fields from the options (not --push's hook: its
 * caller says where a failure to deliver is told, exp_run_opts_push does it). */
void exp_run_opts_to_plan(const struct run_opts *ro, struct run_plan *plan);
/* --push: send the stored run to ro->push_url now. -1 with err when it
 * could not be delivered (the run stays queued for 'pressmark push'). */
int exp_run_opts_push(const struct run_opts *ro, struct pm_db *db, int64_t run_id, struct pm_err *err);

#endif
