#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "store/db.h"
#include "reports/compare.h"
#include "reports/plot.h"

#define MAX_LABELS 64

static void plot_help(void)
{
    printf("usage: pressmark plot [LABEL...] [--workload W] [--out DIR] [--format png|svg] [--per-run] [--db PATH]\n\n"
           "Draws five charts per workload with gnuplot, one line per label (the mean of its ok\n"
           "runs, tick by tick) or per run with --per-run, time in seconds from the run's start:\n"
           "  WORKLOAD-swap      swap-in + swap-out KB/s and each apart (seed 000's chart a)\n"
           "  WORKLOAD-cpu       user, system and iowait %% (seed 000's chart b)\n"
           "  WORKLOAD-memory    MemFree, MemAvailable and SwapFree\n"
           "  WORKLOAD-pressure  PSI memory some and full, heartbeat lateness\n"
           "  WORKLOAD-headline  the headline per run and each label's mean ±sd (seed 002's drift)\n"
           "Each image has its gnuplot script (.gp) and data (.dat) beside it. --out defaults\n"
           "to out/plots.\n");
}

int cmd_plot(int argc, char **argv)
{
    const char *workload = NULL, *format = "png";
    struct plot_request rq = { .out_dir = "out/plots" };
    static const struct option longopts[] = {
        { "workload", required_argument, NULL, 'w' }, { "out", required_argument, NULL, 'o' },
        { "format", required_argument, NULL, 'f' }, { "per-run", no_argument, NULL, 'r' },
        { "db", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'w': workload = optarg; break;
        case 'o': rq.out_dir = optarg; break;
        case 'f': format = optarg; break;
        case 'r': rq.per_run = true; break;
        case 'd': pm_set_db_path(optarg); break;
        case 'h': plot_help(); return 0;
        default:
            return pm_usage("plot", "unknown option or missing value '%s' (see 'pressmark plot --help')", argv[optind - 1]);
        }
    }
    if (strcmp(format, "png") && strcmp(format, "svg"))
        return pm_usage("plot", "--format: '%s' is not a chart format (accepted: png, svg)", format);
    rq.svg = strcmp(format, "svg") == 0;
    if (!plot_have_gnuplot())
        return pm_usage("plot", "gnuplot is not installed (as root: apt-get install gnuplot-nox)");
    const char *labels[MAX_LABELS];
    size_t nlabels = 0;
    for (; optind < argc && nlabels < MAX_LABELS; optind++)
        labels[nlabels++] = argv[optind];
    struct pm_db db;
    struct pm_err err;
    if (pm_db_open(&db, pm_db_path(), false, &err) < 0) {
        fprintf(stderr, "pressmark plot: %s\n", err.msg);
        return 2;
    }
    char **workloads = NULL;
    size_t nw = 0;
    if (workload) {
        workloads = malloc(sizeof *workloads);
        if (workloads && (workloads[0] = strdup(workload)))
            nw = 1;
    } else if (compare_workloads(&db, labels, nlabels, &workloads, &nw, &err) < 0) {
        fprintf(stderr, "pressmark plot: %s\n", err.msg);
        pm_db_close(&db);
        return 2;
    }
    int rc = nw ? 0 : 2;
    if (!nw)
        fprintf(stderr, "pressmark plot: no runs to plot in %s\n", pm_db_path());
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
    pm_db_close(&db);
    return rc;
}
