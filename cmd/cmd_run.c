#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "harness/run.h"
#include "workloads/workload.h"

#define WL_OPT_BASE 2000

static void list_workloads(FILE *f)
{
    fprintf(f, "workloads:\n");
    for (size_t i = 0; pm_workloads[i]; i++)
        if (strcmp(pm_workloads[i]->name, "record") != 0)
            fprintf(f, "  %-9s %s\n", pm_workloads[i]->name, pm_workloads[i]->summary);
}

static void run_help(const struct workload_ops *wl)
{
    if (!wl) {
        printf("usage: pressmark run WORKLOAD [options]\n\n");
        list_workloads(stdout);
        printf("\n'pressmark run WORKLOAD --help' shows a workload's options.\n");
        return;
    }
    printf("usage: pressmark run %s [options]\n\n%s.\n\nworkload options:\n", wl->name, wl->summary);
    for (const struct wl_option *o = wl->options; o->name; o++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        printf("  %-22s %s%s%s%s\n", left, o->help, o->def ? " (default " : "", o->def ? o->def : "",
               o->def ? ")" : "");
    }
    printf("\nrun options:\n%s", pm_run_options_help);
}

int cmd_run(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        run_help(NULL);
        return argc < 2 ? PM_EXIT_USAGE : 0;
    }
    const struct workload_ops *wl = workload_find(argv[1]);
    if (!wl || strcmp(wl->name, "record") == 0) {
        fprintf(stderr, "pressmark run: '%s' is not a workload (accepted:", argv[1]);
        for (size_t i = 0; pm_workloads[i]; i++)
            if (strcmp(pm_workloads[i]->name, "record") != 0)
                fprintf(stderr, " %s", pm_workloads[i]->name);
        fprintf(stderr, "; any command: pressmark record -- CMD)\n");
        return PM_EXIT_USAGE;
    }
    char cmd[64];
    snprintf(cmd, sizeof cmd, "run %s", wl->name);
    struct run_opts ro;
    run_opts_defaults(&ro);
    size_t nwl = 0;
    while (wl->options[nwl].name)
        nwl++;
    size_t nrun = 0;
    while (pm_run_long_options[nrun].name)
        nrun++;
    struct option *longopts = calloc(nrun + nwl + 2, sizeof *longopts);
    void *state = calloc(1, wl->state_size ? wl->state_size : 1);
    if (!longopts || !state) {
        free(longopts);
        free(state);
        return pm_usage(cmd, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < nrun; i++)
        longopts[k++] = pm_run_long_options[i];
    for (size_t i = 0; i < nwl; i++)
        longopts[k++] = (struct option){ wl->options[i].name, wl->options[i].arg ? required_argument : no_argument,
                                         NULL, WL_OPT_BASE + (int)i };
    longopts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
    int rc = PM_EXIT_USAGE;
    struct pm_err err;
    for (size_t i = 0; i < nwl; i++) {
        if (wl->options[i].def && wl->set_option(state, wl->options[i].name, wl->options[i].def, &err) < 0) {
            pm_usage(cmd, "default of --%s: %s", wl->options[i].name, err.msg);
            goto out;
        }
    }
    opterr = 0;
    optind = 2;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            run_help(wl);
            rc = 0;
            goto out;
        }
        if (c == '?' || c == ':') {
            pm_usage(cmd, "unknown option or missing value '%s' (see 'pressmark run %s --help')",
                     argv[optind - 1], wl->name);
            goto out;
        }
        if (c >= WL_OPT_BASE) {
            const struct wl_option *o = &wl->options[c - WL_OPT_BASE];
            if (wl->set_option(state, o->name, optarg ? optarg : "1", &err) < 0) {
                pm_usage(cmd, "--%s: %s", o->name, err.msg);
                goto out;
            }
            continue;
        }
        if (run_opts_handle(&ro, cmd, c, optarg) < 0)
            goto out;
    }
    if (optind < argc) {
        pm_usage(cmd, "unexpected argument '%s' (workload options start with --)", argv[optind]);
        goto out;
    }
    if (run_opts_finish(&ro, cmd) != 0)
        goto out;
    if (wl->set_args && wl->set_args(state, 0, NULL, &err) < 0) {
        pm_usage(cmd, "%s", err.msg);
        goto out;
    }
    struct run_plan plan = { .wl = wl, .wl_state = state };
    run_opts_to_plan(&ro, &plan);
    run_block_signals();
    /* Phases (a list of --jobs) run one after the other, each a label of
     * its own, "LABEL/j8", so compare and plot see separate configurations. */
    int nphases = wl->phases ? wl->phases(state) : 1;
    char label[512];
    rc = 0;
    for (int p = 0; p < nphases; p++) {
        if (wl->set_phase) {
            char suffix[64] = "";
            wl->set_phase(state, p, suffix, sizeof suffix);
            if (nphases > 1) {
                snprintf(label, sizeof label, "%s/%s", ro.label, suffix);
                plan.label = label;
            }
        }
        int prc = run_plan_execute(&plan);
        if (prc > rc)
            rc = prc;
        if (prc >= 128)
            break;
    }
out:
    free(longopts);
    free(state);
    return rc;
}
