/* pressmark record: any command under the samplers, stored as runs. */
#include <stdio.h>
#include <stdlib.h>
#include "cmd/cli.h"
#include "cmd/run_progress.h"
#include "cmd/parse.h"
#include "harness/catalogue.h"
#include "harness/run.h"
#include "workloads/workload.h"

/* The options checked together and the command found, before anything is
 * written: 0, or the exit status after saying why. */
static int record_ready(const struct workload_ops *wl, void *state, struct run_opts *ro, int argc, char **argv)
{
    struct pm_err err;
    struct wl_limits lim;
    if (cli_run_opts_finish(ro, "record") != 0)
        return PM_EXIT_USAGE;
    exp_run_opts_limits(ro, &lim);
    if (wl->check(state, &lim, &err) < 0 || catalogue_check_declared(wl, state, &err) < 0 ||
        wl->set_args(state, argc, argv, &err) < 0)
        return cli_usage("record", "%s", err.msg);
    return 0;
}

int cmd_record(int argc, char **argv)
{
    struct run_opts ro;
    exp_run_opts_defaults(&ro);
    const struct workload_ops *wl = workload_find("record");
    void *state = calloc(1, wl->state_size);
    if (!state)
        return cli_usage("record", "out of memory");
    const struct cmd_group groups[] = {
        { NULL, exp_run_options, &ro },
        { "the tool's own figures (docs/guide/figures.md)", wl->options, state },
        { exp_env_options_title, exp_env_options, &ro },
    };
    const struct cmd_spec spec = {
        .name = "record",
        .usage = "usage: pressmark record [options] -- CMD [ARGS...]\n\n"
                 "Runs CMD (no shell: use sh -c for one) with the samplers on, measures it\n"
                 "as GNU time does (wait4 rusage), and stores each run in the database; with\n"
                 "--figures or --figure, the tool's own figures from what it writes too.\n",
        .groups = groups, .ngroups = 3, .stop_at_command = true, .max_args = -1,
    };
    int first = cmd_parse(&spec, argc, argv);
    int rc = first < 0 ? cmd_parse_exit(first) : record_ready(wl, state, &ro, argc - first, argv + first);
    if (first < 0 || rc != 0) {
        free(state);
        return rc;
    }
    struct run_plan plan = { .wl = wl, .wl_state = state };
    exp_run_opts_to_plan(&ro, &plan);
    if (ro.push_url) {
        plan.after_store = cli_push_after_store;
        plan.after_store_arg = &ro;
    }
    harness_block_signals();
    struct run_progress rp;
    progress_attach(&rp, &plan);
    struct run_outcome o;
    harness_plan_execute(&plan, stderr, &o);
    rc = cli_run_outcome(&o);
    progress_detach(&rp);
    free(state);
    return rc;
}
