/* pressmark record: any command under the samplers, stored as runs. */
#include <stdio.h>
#include <stdlib.h>
#include "cmd/cli.h"
#include "cmd/run_progress.h"
#include "cmd/parse.h"
#include "harness/run.h"
#include "workloads/workload.h"

int cmd_record(int argc, char **argv)
{
    struct run_opts ro;
    run_opts_defaults(&ro);
    const struct cmd_group groups[] = {
        { NULL, pm_run_options, &ro },
        { pm_env_options_title, pm_env_options, &ro },
    };
    const struct cmd_spec spec = {
        .name = "record",
        .usage = "usage: pressmark record [options] -- CMD [ARGS...]\n\n"
                 "Runs CMD (no shell: use sh -c for one) with the samplers on, measures it\n"
                 "as GNU time does (wait4 rusage), and stores each run in the database.\n",
        .groups = groups, .ngroups = 2, .stop_at_command = true, .max_args = -1,
    };
    int first = cmd_parse(&spec, argc, argv);
    if (first < 0)
        return cmd_parse_exit(first);
    if (run_opts_finish(&ro, "record") != 0)
        return PM_EXIT_USAGE;
    const struct workload_ops *wl = workload_find("record");
    void *state = calloc(1, wl->state_size);
    if (!state)
        return pm_usage("record", "out of memory");
    struct pm_err err;
    if (wl->set_args(state, argc - first, argv + first, &err) < 0) {
        free(state);
        return pm_usage("record", "%s", err.msg);
    }
    struct run_plan plan = { .wl = wl, .wl_state = state };
    run_opts_to_plan(&ro, &plan);
    if (ro.push_url) {
        plan.after_store = cli_push_after_store;
        plan.after_store_arg = &ro;
    }
    run_block_signals();
    struct run_progress rp;
    run_progress_attach(&rp, &plan);
    int rc = run_plan_execute(&plan);
    run_progress_detach(&rp);
    free(state);
    return rc;
}
