#include <stdio.h>
#include <string.h>
#include "cmd/cli.h"
#include "store/db.h"
#include "reports/html_report.h"

int cmd_report(int argc, char **argv)
{
    const char *out = "out/report";
    static const struct option longopts[] = {
        { "out", required_argument, NULL, 'o' }, { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'd': pm_set_db_path(optarg); break;
        case 'h':
            printf("usage: pressmark report [--out DIR] [--db PATH]\n\n"
                   "Writes DIR/report.html (default out/report): one self-contained page with, per\n"
                   "workload, the comparison of its labels (seed table, ratio sentences, every\n"
                   "statistic, environment differences), the charts inlined as SVG, and each run's\n"
                   "details. It loads nothing from the network; the charts' .gp and .dat files are\n"
                   "kept in DIR/charts.\n");
            return 0;
        default:
            return pm_usage("report", "unknown option or missing value '%s' (see 'pressmark report --help')", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return pm_usage("report", "unexpected argument '%s'", argv[optind]);
    struct pm_db db;
    struct pm_err err;
    if (pm_db_open(&db, pm_db_path(), false, &err) < 0) {
        fprintf(stderr, "pressmark report: %s\n", err.msg);
        return 2;
    }
    char page[4200];
    int rc = html_report_write(&db, out, pm_db_path(), page, sizeof page, &err);
    pm_db_close(&db);
    if (rc < 0) {
        fprintf(stderr, "pressmark report: %s\n", err.msg);
        return 2;
    }
    printf("%s\n", page);
    return 0;
}
