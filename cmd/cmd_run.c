/* pressmark run WORKLOAD: a named workload with its own typed options,
 * the run options and the environment options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "cmd/run_progress.h"
#include "harness/run.h"
#include "workloads/workload.h"

static void list_workloads(FILE *f, const char *sep, bool with_summary)
{
    for (size_t i = 0; wl_registry[i]; i++) {
        if (wl_registry[i]->hidden)
            continue;
        if (with_summary)
            fprintf(f, "  %-11s %s\n", wl_registry[i]->name, wl_registry[i]->summary);
        else
            fprintf(f, "%s%s", sep, wl_registry[i]->name);
    }
}

/* Phases (a list of --jobs) run one after the other, each a label of its
 * own, "LABEL/j8", so compare and plot see separate configurations. */
static int run_phases(const struct workload_ops *wl, void *state, struct run_plan *plan, const char *label)
{
    int nphases = wl->phases ? wl->phases(state) : 1;
    char phase_label[512];
    int rc = 0;
    for (int p = 0; p < nphases; p++) {
        if (wl->set_phase) {
            char suffix[64] = "";
            wl->set_phase(state, p, suffix, sizeof suffix);
            if (nphases > 1) {
                snprintf(phase_label, sizeof phase_label, "%s/%s", label, suffix);
                plan->label = phase_label;
            }
        }
        struct run_plan pl = *plan;
        struct run_progress rp;
        progress_attach(&rp, &pl);
        struct run_outcome o;
        harness_plan_execute(&pl, stderr, &o);
        int prc = cli_run_outcome(&o);
        progress_detach(&rp);
        if (prc > rc)
            rc = prc;
        if (prc >= 128)
            break;
    }
    return rc;
}

int cmd_run(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        printf("usage: pressmark run WORKLOAD [options]\n\nworkloads:\n");
        list_workloads(stdout, "", true);
        printf("\n'pressmark run WORKLOAD --help' shows a workload's options.\n");
        return argc < 2 ? PM_EXIT_USAGE : 0;
    }
    const struct workload_ops *wl = workload_find(argv[1]);
    if (!wl || wl->hidden) {
        fprintf(stderr, "pressmark run: '%s' is not a workload (accepted:", argv[1]);
        list_workloads(stderr, " ", false);
        fprintf(stderr, "; any command: pressmark record -- CMD)\n");
        return PM_EXIT_USAGE;
    }
    char name[64], usage[512];
    snprintf(name, sizeof name, "run %s", wl->name);
    snprintf(usage, sizeof usage, "usage: pressmark run %s [options]\n\n%s.\n", wl->name, wl->summary);
    struct run_opts ro;
    exp_run_opts_defaults(&ro);
    void *state = calloc(1, wl->state_size ? wl->state_size : 1);
    if (!state)
        return cli_usage(name, "out of memory");
    const struct cmd_group groups[] = {
        { "workload options", wl->options, state },
        { "run options", exp_run_options, &ro },
        { exp_env_options_title, exp_env_options, &ro },
    };
    const struct cmd_spec spec = { .name = name, .usage = usage, .groups = groups, .ngroups = 3, .first = 2 };
    struct pm_err err;
    int rc = PM_EXIT_USAGE;
    int first = cmd_parse(&spec, argc, argv);
    if (first < 0) {
        rc = cmd_parse_exit(first);
        goto out;
    }
    if (cli_run_opts_finish(&ro, name) != 0)
        goto out;
    struct wl_limits lim;
    exp_run_opts_limits(&ro, &lim);
    if ((wl->check && wl->check(state, &lim, &err) < 0) || (wl->set_args && wl->set_args(state, 0, NULL, &err) < 0)) {
        cli_usage(name, "%s", err.msg);
        goto out;
    }
    struct run_plan plan = { .wl = wl, .wl_state = state };
    exp_run_opts_to_plan(&ro, &plan);
    if (ro.push_url) {
        plan.after_store = cli_push_after_store;
        plan.after_store_arg = &ro;
    }
    harness_block_signals();
    rc = run_phases(wl, state, &plan, ro.label);
out:
    free(state);
    return rc;
}
