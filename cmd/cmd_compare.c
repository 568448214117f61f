#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "store/db.h"
#include "reports/compare.h"
#include "reports/compare_fmt.h"
#include "reports/verdict.h"
#include "store/fetch.h"
#include "store/foreign_db.h"

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
           "aborted are counted, never averaged in.\n\n"
           "For CI:\n"
           "  --baseline-db PATH|URL   the baseline's runs come from another results database (a path,\n"
           "                           file://, http:// or https://; fetched with libcurl and cached,\n"
           "                           revalidated with ETag / If-Modified-Since); --baseline picks a\n"
           "                           label in it, otherwise all its runs of the workload\n"
           "  --fail-on-regression [PCT]  exit 1 when any compared metric of any label is worse than the\n"
           "                           baseline by more than PCT %% (default 5) and significantly so;\n"
           "                           0 when none is; 2 when it cannot judge (no baseline, fewer than 2\n"
           "                           runs a side, failed or oom runs the baseline did not have)\n"
           "  --junit FILE             JUnit XML: a testsuite per workload, a testcase per label x metric\n");
}

int cmd_compare(int argc, char **argv)
{
    const char *baseline = NULL, *workload = NULL, *format = "text", *baseline_db = NULL, *junit = NULL;
    bool judge = false;
    double pct = 5.0;
    const char *metrics[MAX_ITEMS], *labels[MAX_ITEMS];
    size_t nmetrics = 0, nlabels = 0;
    bool long_view = false;
    double alpha = 0.05;
    static const struct option longopts[] = {
        { "baseline", required_argument, NULL, 'b' }, { "workload", required_argument, NULL, 'w' },
        { "metric", required_argument, NULL, 'm' }, { "long", no_argument, NULL, 'L' },
        { "alpha", required_argument, NULL, 'a' }, { "format", required_argument, NULL, 'f' },
        { "db", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' },
        { "baseline-db", required_argument, NULL, 'B' }, { "fail-on-regression", optional_argument, NULL, 'R' },
        { "junit", required_argument, NULL, 'J' }, { NULL, 0, NULL, 0 },
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
        case 'B': baseline_db = optarg; break;
        case 'J': junit = optarg; break;
        case 'R': {
            /* The threshold may follow as its own word: --fail-on-regression 5. */
            const char *v = optarg;
            if (!v && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
                v = argv[optind++];
            judge = true;
            if (v) {
                char *end;
                errno = 0;
                pct = strtod(v, &end);
                if (errno || *end || end == v || !(pct >= 0 && pct < 1000))
                    return pm_usage("compare", "--fail-on-regression: '%s' is not a threshold (accepted: a percentage from 0 to 1000, e.g. 5)", v);
            }
            break;
        }
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
        const char *l = i < nlabels ? labels[i] : baseline_db ? NULL : baseline;
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
    struct foreign_db fdb = { 0 };
    bool have_fdb = false;
    char fdb_name[4400] = "";
    if (baseline_db) {
        char local[4200], how[128];
        if (fetch_baseline(baseline_db, local, sizeof local, how, sizeof how, &err) < 0 ||
            foreign_db_open(local, &fdb, &err) < 0) {
            pm_db_close(&db);
            return pm_usage("compare", "--baseline-db: %s", err.msg);
        }
        have_fdb = true;
        snprintf(fdb_name, sizeof fdb_name, "%s", baseline_db);
        fprintf(stderr, "pressmark compare: baseline database %s (%s)\n", baseline_db, how);
        if (baseline) {
            sqlite3_stmt *bs;
            int found = 0;
            if (pm_db_prepare(&fdb.db, &bs, "SELECT count(*) FROM run WHERE label = ?", &err) == 0) {
                sqlite3_bind_text(bs, 1, baseline, -1, SQLITE_STATIC);
                found = sqlite3_step(bs) == SQLITE_ROW ? sqlite3_column_int(bs, 0) : 0;
                sqlite3_finalize(bs);
            }
            if (!found) {
                foreign_db_close(&fdb);
                pm_db_close(&db);
                return pm_usage("compare", "--baseline: '%s' has no runs in %s", baseline, baseline_db);
            }
        }
    }
    char **workloads = NULL;
    size_t nw = 0;
    const char *sel[MAX_ITEMS + 1];
    size_t nsel = 0;
    if (baseline && !baseline_db)
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
    int rc = 0, verdict = VERDICT_OK;
    struct comparison *cmps = calloc(nw, sizeof *cmps);
    struct comparison **cptrs = calloc(nw, sizeof *cptrs);
    size_t built = 0;
    char findings[16384] = "";
    for (size_t w = 0; w < nw && cmps && cptrs; w++) {
        struct comparison *cmp = &cmps[w];
        struct compare_request rq = { .workload = workloads[w], .labels = labels, .nlabels = nlabels, .baseline = baseline,
                                      .baseline_db = have_fdb ? &fdb.db : NULL, .baseline_db_name = fdb_name,
                                      .metrics = metrics, .nmetrics = nmetrics, .long_view = long_view, .alpha = alpha };
        if (compare_build(&db, &rq, cmp, &err) < 0) {
            fprintf(stderr, "pressmark compare: %s\n", err.msg);
            compare_free(cmp);
            rc = 2;
            break;
        }
        cptrs[built++] = cmp;
        if (judge) {
            int v = verdict_judge(cmp, pct, findings, sizeof findings);
            if (v == VERDICT_REGRESSED || (v == VERDICT_UNJUDGED && verdict == VERDICT_OK))
                verdict = v;
        }
        if (fmt == FMT_JSON)
            compare_json(&j, cmp);
        else {
            if (w && fmt != FMT_CSV)
                fputc('\n', stdout);
            compare_render(stdout, cmp, fmt, long_view);
        }
    }
    if (fmt == FMT_JSON) {
        json_array_end(&j);
        if (judge) {
            json_object_begin(&j, "verdict");
            json_int(&j, "exit_status", verdict);
            json_number(&j, "threshold_pct", pct);
            json_string(&j, "findings", findings);
            json_object_end(&j);
        }
        json_object_end(&j);
        json_end(&j);
    }
    if (rc == 0 && junit) {
        FILE *jf = fopen(junit, "w");
        if (!jf) {
            fprintf(stderr, "pressmark compare: --junit: %s: %s\n", junit, strerror(errno));
            rc = 2;
        } else {
            junit_write(jf, cptrs, built, pct);
            if (fclose(jf) != 0) {
                fprintf(stderr, "pressmark compare: --junit: %s: %s\n", junit, strerror(errno));
                rc = 2;
            }
        }
    }
    if (rc == 0 && judge) {
        /* The verdict in words is the last line, for a CI log's reader. */
        if (fmt != FMT_JSON && fmt != FMT_CSV && findings[0])
            printf("\n%s", findings);
        FILE *vf = fmt == FMT_JSON || fmt == FMT_CSV ? stderr : stdout;
        if (verdict == VERDICT_REGRESSED)
            fprintf(vf, "verdict: regression: a metric is worse than the baseline by more than %g %% (significant at alpha %g)\n", pct, alpha);
        else if (verdict == VERDICT_UNJUDGED)
            fprintf(vf, "verdict: cannot judge: see the lines above\n");
        else
            fprintf(vf, "verdict: no regression beyond %g %% at alpha %g\n", pct, alpha);
        rc = verdict;
    }
    for (size_t w = 0; w < built; w++)
        compare_free(cptrs[w]);
    free(cmps);
    free(cptrs);
    if (have_fdb)
        foreign_db_close(&fdb);
    for (size_t w = 0; w < nw; w++)
        free(workloads[w]);
    free(workloads);
    pm_db_close(&db);
    return rc;
}
