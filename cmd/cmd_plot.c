#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "store/db.h"
#include "reports/compare.h"
#include "reports/plot.h"

#define MAX_LABELS 64

static const char *const chart_formats[] = { "png", "svg", NULL };

struct plot_opts {
    char workload[64], out[4096];
    unsigned svg;                     /* index in chart_formats */
    bool per_run;
};

#define PO(field) offsetof(struct plot_opts, field)
static const struct opt plot_options[] = {
    { .name = "workload", .type = OPT_STRING, .offset = PO(workload),
      .size = sizeof(((struct plot_opts *)0)->workload), .metavar = "W", .set = cli_check_workload, .help = "only this workload" },
    { .name = "out", .type = OPT_STRING, .offset = PO(out), .size = sizeof(((struct plot_opts *)0)->out),
      .metavar = "DIR", .def = "out/plots", .help = "where the charts go" },
    { .name = "format", .type = OPT_CHOICE, .offset = PO(svg), .metavar = "F", .def = "png", .words = chart_formats,
      .noun = "chart format", .help = "png or svg" },
    { .name = "per-run", .type = OPT_FLAG, .offset = PO(per_run), .help = "one line per run instead of per label" },
    { .type = OPT_END },
};

static const char plot_usage[] =
    "usage: pressmark plot [LABEL...] [--workload W] [--out DIR] [--format png|svg] [--per-run] [--db PATH]\n\n"
    "Draws five charts per workload with gnuplot, one line per label (the mean of its ok\n"
    "runs, tick by tick) or per run with --per-run, time in seconds from the run's start:\n"
    "  WORKLOAD-swap      swap-in + swap-out KB/s and each apart (the 2002 VolanoMark report's chart a)\n"
    "  WORKLOAD-cpu       user, system and iowait % (its chart b)\n"
    "  WORKLOAD-memory    MemFree, MemAvailable and SwapFree\n"
    "  WORKLOAD-pressure  PSI memory some and full, heartbeat lateness\n"
    "  WORKLOAD-headline  the headline per run and each label's mean ±sd (the drift 'make -j' runs show)\n"
    "Each image has its gnuplot script (.gp) and data (.dat) beside it.\n";

int cmd_plot(int argc, char **argv)
{
    struct plot_opts o = { .per_run = false };
    const struct cmd_group groups[] = { { NULL, plot_options, &o }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = { .name = "plot", .usage = plot_usage, .groups = groups, .ngroups = 2,
                                   .max_args = MAX_LABELS };
    int optind_ = cmd_parse(&spec, argc, argv);
    if (optind_ < 0)
        return cmd_parse_exit(optind_);
    struct pm_err err;
    struct plot_request rq = { .out_dir = o.out, .per_run = o.per_run, .svg = o.svg == 1 };
    const char *workload = o.workload[0] ? o.workload : NULL;
    if (!plot_have_gnuplot())
        return cli_usage("plot", "gnuplot is not installed (as root: apt-get install gnuplot-nox)");
    const char *labels[MAX_LABELS];
    size_t nlabels = 0;
    for (; optind_ < argc && nlabels < MAX_LABELS; optind_++)
        labels[nlabels++] = argv[optind_];
    struct pm_db db;
    if (cmd_open_db(&db, "plot") != 0)
        return PM_EXIT_USAGE;
    char **workloads = NULL;
    size_t nw = 0;
    if (workload) {
        workloads = malloc(sizeof *workloads);
        if (workloads && (workloads[0] = strdup(workload)))
            nw = 1;
    } else if (compare_workloads(&db, labels, nlabels, &workloads, &nw, &err) < 0) {
        fprintf(stderr, "pressmark plot: %s\n", err.msg);
        store_db_close(&db);
        return 2;
    }
    int rc = nw ? 0 : 2;
    if (!nw)
        fprintf(stderr, "pressmark plot: no runs to plot in %s\n", store_db_path());
    for (size_t w = 0; w < nw && rc == 0; w++) {
        struct comparison cmp;
        char written[PLOT_CHARTS][4096];
        struct compare_request req = { .workload = workloads[w], .labels = labels, .nlabels = nlabels, .alpha = 0.05 };
        if (compare_build(&db, &req, &cmp, &err) < 0 ||
            plot_comparison(&db, &cmp, &rq, written, &err) < 0) {
            fprintf(stderr, "pressmark plot: %s\n", err.msg);
            rc = 2;
        } else {
            for (int i = 0; i < PLOT_CHARTS; i++)
                printf("%s\n", written[i]);
        }
        compare_free(&cmp);
    }
    for (size_t w = 0; w < nw; w++)
        free(workloads[w]);
    free(workloads);
    store_db_close(&db);
    return rc;
}
