/* pressmark report: one self-contained HTML page of everything stored. */
#include <stdio.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "store/db.h"
#include "reports/html_report.h"

static const struct opt report_options[] = {
    { .name = "out", .type = OPT_STRING, .offset = 0, .size = 4096, .metavar = "DIR", .def = "out/report",
      .help = "where report.html and its charts go" },
    { .type = OPT_END },
};

int cmd_report(int argc, char **argv)
{
    char out[4096];
    const struct cmd_group groups[] = { { NULL, report_options, out }, { "", pm_db_option, NULL } };
    const struct cmd_spec spec = {
        .name = "report", .groups = groups, .ngroups = 2, .max_args = 0,
        .usage = "usage: pressmark report [--out DIR] [--db PATH]\n\n"
                 "Writes DIR/report.html: one self-contained page with, per workload, the comparison\n"
                 "of its labels (the VolanoMark report's table, ratio sentences, every statistic,\n"
                 "environment differences), the charts inlined as SVG, and each run's details. It\n"
                 "loads nothing from the network; the charts' .gp and .dat files are kept in DIR/charts.\n",
    };
    int r = cmd_parse(&spec, argc, argv);
    if (r < 0)
        return cmd_parse_exit(r);
    struct pm_db db;
    if (cmd_open_db(&db, "report") != 0)
        return PM_EXIT_USAGE;
    struct pm_err err;
    char page[4200];
    int rc = html_report_write(&db, out, pm_db_path(), page, sizeof page, &err);
    pm_db_close(&db);
    if (rc < 0)
        return pm_usage("report", "%s", err.msg);
    printf("%s\n", page);
    return 0;
}
