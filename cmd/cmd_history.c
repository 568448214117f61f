/* pressmark history: one metric of one configuration across nights, as a
 * table, JSON or CSV, its change points, and a gnuplot chart of it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "reports/history.h"
#include "reports/history_chart.h"
#include "reports/history_fmt.h"
#include "reports/plot.h"

struct history_opts {
    char workload[64], metric[96], chart[4096];
    bool change_points, allow_emulated;
    unsigned seed;               /* 0: the change-point engine's own */
    unsigned format;             /* index in history_format_names */
};

/* A chart is a PNG or an SVG: the name says which. */
static int check_chart(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    size_t n = strlen(value);
    if (n > 4 && (strcmp(value + n - 4, ".png") == 0 || strcmp(value + n - 4, ".svg") == 0))
        return 0;
    return pm_errf(err, "'%s' is not a chart file (accepted: a path ending .png or .svg; its .gp script and .dat "
                   "data go beside it)", value);
}

#define HO(field) offsetof(struct history_opts, field)
#define STR(field) .type = OPT_STRING, .offset = HO(field), .size = sizeof(((struct history_opts *)0)->field)
static const struct opt history_options[] = {
    { .name = "workload", STR(workload), .metavar = "W", .set = cli_check_workload,
      .help = "the label's runs of this workload (needed when the label has runs of several)" },
    { .name = "metric", STR(metric), .metavar = "M",
      .help = "the metric (default: the workload's headline, as compare takes it)" },
    { .name = "change-points", .type = OPT_FLAG, .offset = HO(change_points),
      .help = "look for change points in the nights' means (E-Divisive means, permutation-tested):\n"
              "                         marked in the table and the chart, listed under the table" },
    { .name = "seed", .type = OPT_UINT, .offset = HO(seed), .metavar = "S", .min = 1, .max = 4294967295.0,
      .noun = "seed", .help = "the change points' permutation tests' seed: the same history and seed give the same\n"
                              "                         change points (default: the change-point engine's own)" },
    { .name = "format", .type = OPT_CHOICE, .offset = HO(format), .metavar = "F", .def = "text",
      .words = history_format_names, .noun = "format", .help = "text, json or csv" },
    { .name = "chart", STR(chart), .metavar = "FILE", .set = check_chart,
      .help = "draw the history with gnuplot into FILE (.png or .svg), its script FILE.gp and data\n"
              "                         FILE.dat beside it: each run a point, each night's mean a line, change\n"
              "                         points and new settings as vertical lines, kernels on the top axis" },
    { .name = "allow-emulated", .type = OPT_FLAG, .offset = HO(allow_emulated),
      .help = "show runs made under QEMU's TCG emulation (a kernel suite's VMs without KVM), with a caveat" },
    { .type = OPT_END },
};

static const char history_usage[] =
    "usage: pressmark history [--workload W] [--metric M] [--change-points [--seed S]] [--format F]\n"
    "                         [--chart FILE] [--db PATH] [--] LABEL\n\n"
    "One metric of one configuration across time: LABEL's ok runs (a suite's cell keeps its\n"
    "label night after night, so a database the nightly merges its nights into lines them\n"
    "up), grouped by night: a night is one suite run, or for runs outside any suite one UTC\n"
    "day (the first line says which). A row per night: its first run's start (UTC) and the\n"
    "suite's name, n, mean, sd, min and max of the metric, the kernel release(s) and pressmark\n"
    "version(s) its runs ran with, and marks where a change point, a new kernel, new settings\n"
    "(the runs' options, cap, swap and knobs) or a new pressmark begins; under the table each\n"
    "change point (the means before and after, the change in percent, its p), each kernel\n"
    "change and each change of settings. Runs that failed, ran out of memory or were aborted\n"
    "are not counted.\n";

/* The history's chart beside the table: FILE names its image, and its
 * script and data take its name without the extension. */
static int draw(const struct history *h, const char *chart)
{
    char dir[4096], base[4096], written[4096];
    struct pm_err err;
    snprintf(dir, sizeof dir, "%s", chart);
    char *slash = strrchr(dir, '/');
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : dir);
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    base[strlen(base) - 4] = '\0';
    bool svg = strcmp(chart + strlen(chart) - 4, ".svg") == 0;
    if (history_chart(h, dir, base, svg, written, &err) < 0)
        return cli_usage("history", "--chart: %s", err.msg);
    fprintf(stderr, "pressmark history: chart %s (its gnuplot script %s/%s.gp, data %s/%s.dat)\n", written, dir, base,
            dir, base);
    return 0;
}

static int show(const struct history *h, const struct history_opts *o)
{
    if (o->chart[0]) {
        int rc = draw(h, o->chart);
        if (rc)
            return rc;
    }
    if (o->format == HISTORY_JSON)
        return history_write_json(stdout, h) < 0 ? cli_usage("history", "the JSON could not be written") : 0;
    if (o->format == HISTORY_CSV) {
        history_print_csv(stdout, h);
        return 0;
    }
    cmd_human_output();
    history_print_text(stdout, h);
    return 0;
}

int cmd_history(int argc, char **argv)
{
    struct history_opts o = { .seed = 0 };
    const struct cmd_group groups[] = { { NULL, history_options, &o }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = { .name = "history", .usage = history_usage, .groups = groups, .ngroups = 2,
                                   .max_args = 1 };
    int first = cmd_parse(&spec, argc, argv);
    if (first < 0)
        return cmd_parse_exit(first);
    if (first >= argc)
        return cli_usage("history", "a label is needed: pressmark history [options] LABEL (see 'pressmark list')");
    if (o.chart[0] && !plot_have_gnuplot())
        return cli_usage("history", "--chart: gnuplot is not installed (as root: apt-get install gnuplot-nox)");
    struct cp_opts cp;
    cp_opts_default(&cp);
    if (o.seed)
        cp.seed = o.seed;
    struct pm_db db;
    if (cmd_open_db(&db, "history") != 0)
        return PM_EXIT_USAGE;
    struct history h;
    struct pm_err err;
    const struct history_request rq = { .label = argv[first], .workload = o.workload[0] ? o.workload : NULL,
                                        .metric = o.metric[0] ? o.metric : NULL, .allow_emulated = o.allow_emulated,
                                        .detect = o.change_points, .cp = &cp };
    int rc = history_build(&db, &rq, &h, &err) < 0 ? cli_usage("history", "%s", err.msg) : show(&h, &o);
    history_free(&h);
    store_db_close(&db);
    return rc;
}
