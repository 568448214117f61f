#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/cli.h"
#include "harness/db.h"
#include "reports/compare.h"
#include "reports/compare_fmt.h"

#define MAX_ITEMS 64

static void compare_help(void)
{
    printf("usage: pressmark compare [--baseline LABEL] [LABEL...] [--workload W] [--metric M]...\n"
           "                         [--long] [--alpha A] [--format text|markdown|csv|json|html] [--db PATH]\n\n"
           "Compares labels (configurations: a kernel, a patch, a setting); each label's ok runs\n"
           "are its samples. The default view is the seeds' table, one row per label: the\n"
           "workload's headline (msg/s, elapsed, MB/s), %%CPU, %%sys/%%user and total swap in,\n"
           "out and io, each as mean ±sd, then n and fail:runs; under it seed 000's ratio\n"
           "sentence for each label against the baseline, with Welch's t-test (p shown,\n"
           "significant below --alpha, default 0.05), and what differed in the environment.\n"
           "--long shows mmtests' layout: per metric n, mean, stddev, CV%%, min, median, max,\n"
           "the change against the baseline (+ is better) with its p-value and the 95%%\n"
           "confidence interval of the difference. Without labels: every label of the\n"
           "workload, the first one run as the baseline. Runs that ended failed, oom or\n"
           "aborted are counted, never averaged in.\n");
}

int cmd_compare(int argc, char **argv)
{
    const char *baseline = NULL, *workload = NULL, *format = "text";
    const char *metrics[MAX_ITEMS], *labels[MAX_ITEMS];
    size_t nmetrics = 0, nlabels = 0;
    bool long_view = false;
    double alpha = 0.05;
    static const struct option longopts[] = {
        { "baseline", required_argument, NULL, 'b' }, { "workload", required_argument, NULL, 'w' },
        { "metric", required_argument, NULL, 'm' }, { "long", no_argument, NULL, 'L' },
        { "alpha", required_argument, NULL, 'a' }, { "format", required_argument, NULL, 'f' },
        { "db", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'b': baseline = optarg; break;
        case 'w': workload = optarg; break;
        case 'm':
            if (nmetrics == MAX_ITEMS)
                return pm_usage("compare", "--metric: at most %d metrics", MAX_ITEMS);
            metrics[nmetrics++] = optarg;
            break;
        case 'L': long_view = true; break;
        case 'a': {
            char *end;
            errno = 0;
            alpha = strtod(optarg, &end);
            if (errno || *end || end == optarg || !(alpha > 0 && alpha < 1))
                return pm_usage("compare", "--alpha: '%s' is not a significance level (accepted: a number between 0 and 1, e.g. 0.05)", optarg);
            break;
        }
        case 'f': format = optarg; break;
        case 'd': pm_set_db_path(optarg); break;
        case 'h': compare_help(); return 0;
        default:
            return pm_usage("compare", "unknown option or missing value '%s' (see 'pressmark compare --help')", argv[optind - 1]);
        }
    }
    enum cmp_format fmt;
    if (cmp_format_parse(format, &fmt) < 0)
        return pm_usage("compare", "--format: '%s' is not a format (accepted: text, markdown, csv, json, html)", format);
    for (; optind < argc; optind++) {
        if (nlabels == MAX_ITEMS)
            return pm_usage("compare", "at most %d labels", MAX_ITEMS);
        labels[nlabels++] = argv[optind];
    }
    struct pm_db db;
    struct pm_err err;
    if (pm_db_open(&db, pm_db_path(), false, &err) < 0) {
        fprintf(stderr, "pressmark compare: %s\n", err.msg);
        return 2;
    }
    /* Every label asked for must exist: a typo must not compare nothing. */
    sqlite3_stmt *st;
    if (pm_db_prepare(&db, &st, "SELECT count(*) FROM run WHERE label = ?", &err) < 0) {
        fprintf(stderr, "pressmark compare: %s\n", err.msg);
        pm_db_close(&db);
        return 2;
    }
    for (size_t i = 0; i <= nlabels; i++) {
        const char *l = i < nlabels ? labels[i] : baseline;
        if (!l)
            continue;
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, l, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) == 0) {
            sqlite3_finalize(st);
            pm_db_close(&db);
            return pm_usage("compare", "%s'%s' has no runs in %s (see 'pressmark list')", l == baseline ? "--baseline: " : "",
                            l, pm_db_path());
        }
    }
    sqlite3_finalize(st);
    char **workloads = NULL;
    size_t nw = 0;
    const char *sel[MAX_ITEMS + 1];
    size_t nsel = 0;
    if (baseline)
        sel[nsel++] = baseline;
    for (size_t i = 0; i < nlabels; i++)
        sel[nsel++] = labels[i];
    if (workload) {
        workloads = malloc(sizeof *workloads);
        if (workloads && (workloads[0] = strdup(workload)))
            nw = 1;
    } else if (compare_workloads(&db, sel, nsel, &workloads, &nw, &err) < 0) {
        fprintf(stderr, "pressmark compare: %s\n", err.msg);
        pm_db_close(&db);
        return 2;
    }
    if (nw == 0) {
        fprintf(stderr, "pressmark compare: no runs to compare in %s\n", pm_db_path());
        pm_db_close(&db);
        free(workloads);
        return 2;
    }
    struct json j;
    if (fmt == FMT_JSON) {
        json_init(&j, stdout, true);
        json_object_begin(&j, NULL);
        json_array_begin(&j, "comparisons");
    } else if (fmt == FMT_CSV) {
        compare_csv_header(stdout);
    }
    int rc = 0;
    for (size_t w = 0; w < nw; w++) {
        struct comparison cmp;
        struct compare_request rq = { .workload = workloads[w], .labels = labels, .nlabels = nlabels, .baseline = baseline,
                                      .metrics = metrics, .nmetrics = nmetrics, .long_view = long_view, .alpha = alpha };
        if (compare_build(&db, &rq, &cmp, &err) < 0) {
            fprintf(stderr, "pressmark compare: %s\n", err.msg);
            compare_free(&cmp);
            rc = 2;
            break;
        }
        if (fmt == FMT_JSON)
            compare_json(&j, &cmp);
        else {
            if (w && fmt != FMT_CSV)
                fputc('\n', stdout);
            compare_render(stdout, &cmp, fmt, long_view);
        }
        compare_free(&cmp);
    }
    if (fmt == FMT_JSON) {
        json_array_end(&j);
        json_object_end(&j);
        json_end(&j);
    }
    for (size_t w = 0; w < nw; w++)
        free(workloads[w]);
    free(workloads);
    pm_db_close(&db);
    return rc;
}
