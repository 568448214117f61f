#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "store/db.h"
#include "lib/json.h"
#include "store/runinfo.h"
#include "reports/summary.h"

static void show_help(void)
{
    printf("usage: pressmark show [RUN|UUID|LABEL] [--format text|json] [--db PATH]\n\n"
           "A run's summary in seed 000's layout (label, headline, %%CPU, %%sys/%%user,\n"
           "Total swpin, Total swpout, Total swapio), its GNU time line, heartbeat, reclaim\n"
           "and PSI; for a label, every run of it and the average. Without an argument,\n"
           "the most recent run. JSON carries every stored metric with its unit, the\n"
           "run's metadata, status and reason, and the ticks recorded per source.\n");
}

int cmd_show(int argc, char **argv)
{
    const char *format = "text";
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' }, { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'd': pm_set_db_path(optarg); break;
        case 'h': show_help(); return 0;
        default:
            return pm_usage("show", "unknown option or missing value '%s' (see 'pressmark show --help')", argv[optind - 1]);
        }
    }
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
        return pm_usage("show", "--format: '%s' is not a format (accepted: text, json)", format);
    if (argc - optind > 1)
        return pm_usage("show", "one run, UUID or label at a time (got '%s' and '%s')", argv[optind], argv[optind + 1]);
    struct pm_db db;
    struct pm_err err;
    if (pm_db_open(&db, pm_db_path(), false, &err) < 0) {
        fprintf(stderr, "pressmark show: %s\n", err.msg);
        return 1;
    }
    int64_t *ids = NULL;
    int n;
    bool one_run;
    const char *sel = optind < argc ? argv[optind] : NULL;
    if (sel) {
        n = run_select(&db, sel, &ids, &err);
        one_run = n == 1;
    } else {
        int64_t latest = run_latest(&db, &err);
        n = latest > 0 ? 1 : (latest < 0 ? -1 : 0);
        if (n == 1 && (ids = malloc(sizeof *ids)))
            ids[0] = latest;
        one_run = true;
    }
    if (n < 0 || (n > 0 && !ids)) {
        fprintf(stderr, "pressmark show: %s\n", err.msg);
        pm_db_close(&db);
        return 1;
    }
    if (n == 0) {
        if (sel)
            fprintf(stderr, "pressmark show: no run, UUID or label '%s' in %s (see 'pressmark list')\n", sel, db.path);
        else
            fprintf(stderr, "pressmark show: no runs in %s yet\n", db.path);
        pm_db_close(&db);
        free(ids);
        return 1;
    }
    struct run_info *runs = calloc((size_t)n, sizeof *runs);
    int rc = 0;
    int loaded = 0;
    for (; runs && loaded < n; loaded++) {
        if (run_info_load(&db, ids[loaded], &runs[loaded], &err) < 0) {
            fprintf(stderr, "pressmark show: %s\n", err.msg);
            rc = 1;
            break;
        }
    }
    if (rc == 0 && runs) {
        if (strcmp(format, "json") == 0) {
            struct json j;
            json_init(&j, stdout, true);
            if (one_run) {
                summary_json_run(&j, &runs[0]);
            } else {
                json_object_begin(&j, NULL);
                json_string(&j, "label", sel);
                json_array_begin(&j, "runs");
                for (int i = 0; i < n; i++)
                    summary_json_run(&j, &runs[i]);
                json_array_end(&j);
                json_object_end(&j);
            }
            json_end(&j);
        } else {
            /* A label may span workloads: one table per workload. */
            int start = 0;
            for (int i = 1; i <= n; i++) {
                if (i == n || strcmp(runs[i].workload, runs[start].workload) != 0) {
                    if (start)
                        putchar('\n');
                    summary_print_runs(stdout, runs + start, (size_t)(i - start), one_run);
                    start = i;
                }
            }
        }
    }
    for (int i = 0; runs && i < loaded; i++)
        run_info_free(&runs[i]);
    free(runs);
    free(ids);
    pm_db_close(&db);
    return rc;
}
