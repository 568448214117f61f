#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "harness/run.h"
#include "workloads/workload.h"

static void record_help(void)
{
    printf("usage: pressmark record [options] -- CMD [ARGS...]\n\n"
           "Runs CMD (no shell: use sh -c for one) with the samplers on, measures it\n"
           "as GNU time does (wait4 rusage), and stores each run in the database.\n\n"
           "options:\n%s", pm_run_options_help);
}

int cmd_record(int argc, char **argv)
{
    struct run_opts ro;
    run_opts_defaults(&ro);
    struct option longopts[32];
    size_t k = 0;
    for (const struct option *o = pm_run_long_options; o->name; o++)
        longopts[k++] = *o;
    longopts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
    longopts[k] = (struct option){ 0 };
    opterr = 0;
    optind = 1;
    int c;
    /* "+" stops at the first word that is not an option: the command. */
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        if (c == 'h') {
            record_help();
            return 0;
        }
        if (c == '?' || c == ':')
            return pm_usage("record", "unknown option or missing value '%s' (see 'pressmark record --help')",
                            argv[optind - 1]);
        int h = run_opts_handle(&ro, "record", c, optarg);
        if (h < 0)
            return PM_EXIT_USAGE;
    }
    if (run_opts_finish(&ro, "record") != 0)
        return PM_EXIT_USAGE;
    const struct workload_ops *wl = workload_find("record");
    void *state = calloc(1, wl->state_size);
    if (!state)
        return pm_usage("record", "out of memory");
    struct pm_err err;
    if (wl->set_args(state, argc - optind, argv + optind, &err) < 0) {
        free(state);
        return pm_usage("record", "%s", err.msg);
    }
    struct run_plan plan = { .wl = wl, .wl_state = state };
    run_opts_to_plan(&ro, &plan);
    run_block_signals();
    int rc = run_plan_execute(&plan);
    free(state);
    return rc;
}
