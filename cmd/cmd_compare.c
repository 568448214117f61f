/* pressmark compare: labels side by side, Welch's t-test, ratio sentences,
 * and the CI contract (--fail-on-regression, --junit). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "cmd/parse.h"
#include "experiment/view.h"
#include "reports/compare.h"
#include "reports/compare_fmt.h"
#include "reports/history_gate.h"
#include "reports/isolation.h"
#include "reports/judge.h"
#include "reports/verdict.h"
#include "store/db.h"
#include "store/fetch.h"
#include "store/foreign_db.h"
#include "store/runinfo.h"

#define MAX_ITEMS 64
#define MAX_CELLS 1024
/* --history's gate, as docs/change-points.md chose it from
 * bench/changepoints.sh's histories: 5 nights (3 misses a change
 * confirmed late, 10 keeps a spurious one red for twice as long), and a
 * change of at least half the 5 % to catch (a fresh change is estimated
 * from 2-3 nights and scatters around its size). */
#define HISTORY_WINDOW 5
#define HISTORY_PCT 2.5

struct compare_opts {
    char baseline[256], workload[64], baseline_db[4096], junit[4096];
    const char *metrics[MAX_ITEMS];
    size_t nmetrics;
    bool long_view, judge, allow_emulated, exclude_outliers, isolation_only;
    unsigned resamples, seed;
    double alpha, pct;
    bool pct_given;              /* --fail-on-regression PCT: else each mode's default */
    uint64_t max_download;
    unsigned format;
    bool has_suite;
    int64_t suite_id;            /* 0: the newest */
    bool history, has_window;
    unsigned window;             /* --history's newest nights */
};

static int add_metric_opt(void *state, const char *value, struct pm_err *err)
{
    struct compare_opts *o = state;
    if (o->nmetrics == MAX_ITEMS)
        return pm_errf(err, "at most %d metrics", MAX_ITEMS);
    o->metrics[o->nmetrics++] = value;
    return 0;
}

static int set_judge(void *state, const char *value, struct pm_err *err)
{
    struct compare_opts *o = state;
    o->judge = true;
    if (!value[0])
        return 0;
    char *end;
    errno = 0;
    double pct = strtod(value, &end);
    if (errno || *end || end == value || !(pct >= 0 && pct <= 1000))
        return pm_errf(err, "'%s' is not a threshold (accepted: a percentage from 0 to 1000, e.g. 5)", value);
    o->pct = pct;
    o->pct_given = true;
    return 0;
}

static int set_suite(void *state, const char *value, struct pm_err *err)
{
    struct compare_opts *o = state;
    o->has_suite = true;
    return cli_suite_id(value, &o->suite_id, err);
}

static int set_window(void *state, const char *value, struct pm_err *err)
{
    struct compare_opts *o = state;
    uint64_t v;
    if (pm_parse_uint(value, 1, 10000, &v) < 0)
        return pm_errf(err, "'%s' is not a night count (accepted: a whole number from 1 to 10000)", value);
    o->window = (unsigned)v;
    o->has_window = true;
    return 0;
}

#define CO(field) offsetof(struct compare_opts, field)
#define STR(field) .type = OPT_STRING, .offset = CO(field), .size = sizeof(((struct compare_opts *)0)->field)
static const struct opt compare_options[] = {
    { .name = "baseline", STR(baseline), .metavar = "LABEL", .help = "the label the others are compared with" },
    { .name = "workload", STR(workload), .metavar = "W", .set = cli_check_workload, .help = "only this workload's runs" },
    { .name = "metric", .type = OPT_CALLBACK, .set = add_metric_opt, .metavar = "M",
      .help = "compare this metric too (repeatable); with --history, gate on it beside the headline" },
    { .name = "long", .type = OPT_FLAG, .offset = CO(long_view),
      .help = "mmtests' layout: every metric, with Welch's and Mann-Whitney's p, the ratio's 95 % interval,\n"
              "                         the adjusted p and the change the runs would find" },
    { .name = "allow-emulated", .type = OPT_FLAG, .offset = CO(allow_emulated),
      .help = "compare runs made under QEMU's TCG emulation (a kernel suite's VMs without KVM), with a caveat" },
    { .name = "alpha", .type = OPT_REAL, .offset = CO(alpha), .metavar = "A", .def = "0.05", .min = 1e-12,
      .max = 0.5, .noun = "significance level", .extra = "a number above 0 and at most 0.5, e.g. 0.05",
      .help = "significance level; with more than one comparison, the family's (p adjusted by\n"
              "                         Benjamini-Hochberg for the tables, Holm for --fail-on-regression); with --history,\n"
              "                         the gated metrics' family's (Holm over their change points' p)" },
    { .name = "exclude-outliers", .type = OPT_FLAG, .offset = CO(exclude_outliers),
      .help = "leave out runs whose headline's modified z-score passes the critical value for the\n"
              "                         label's runs (a clean sample is flagged 5 % of the time; listed either way)" },
    { .name = "bootstrap", .type = OPT_UINT, .offset = CO(resamples), .metavar = "N", .min = 1,
      .max = 1000000, .noun = "bootstrap resample count",
      .help = "also a BCa bootstrap interval of each change's ratio, N resamples (e.g. 2000), beside the\n"
              "                         interval shown (Welch's test inverted); below about 20 runs a side it covers\n"
              "                         less than its 95 % (measured: docs/guide/reports.md)" },
    { .name = "seed", .type = OPT_UINT, .offset = CO(seed), .metavar = "S", .def = "20261202", .min = 1,
      .max = 4294967295.0, .noun = "bootstrap seed",
      .help = "the bootstrap's seed: the same runs and seed give the same intervals" },
    { .name = "format", .type = OPT_CHOICE, .offset = CO(format), .metavar = "F", .def = "text",
      .words = cmp_format_names, .noun = "format", .help = "how the comparisons are written" },
    { .name = "baseline-db", STR(baseline_db), .metavar = "PATH|URL",
      .help = "the baseline's runs come from another results database (a path, file://, http:// or https://;\n"
              "                         fetched with libcurl and cached, revalidated with ETag / If-Modified-Since);\n"
              "                         --baseline picks a label in it, otherwise all its runs of the workload" },
    { .name = "baseline-max-size", .type = OPT_SIZE, .offset = CO(max_download), .metavar = "SIZE", .def = "1G",
      .min = 4096, .max = 1e15, .extra = "at least 4K",
      .help = "a --baseline-db download larger than this is refused" },
    { .name = "fail-on-regression", .type = OPT_CALLBACK, .set = set_judge, .metavar = "[PCT]",
      .flags = OPT_OPTIONAL,
      .help = "exit 1 when any compared metric of any label is worse than the baseline by more than PCT %\n"
              "                         (default 5) and significantly so (Holm-adjusted over the family); 0 when\n"
              "                         none is; 2 when it cannot judge\n"
              "                         (no baseline, fewer than 2 runs a side, failed or oom runs the baseline\n"
              "                         did not have)" },
    { .name = "suite", .type = OPT_CALLBACK, .set = set_suite, .metavar = "[ID]", .flags = OPT_OPTIONAL,
      .help = "compare a suite's cells, its own runs only (default: the newest suite): a table per\n"
              "                         workload, a row per cell, against its baseline cell; two axes also as\n"
              "                         rows x columns. Parts of a workload set otherwise (not only in their\n"
              "                         axes) are a table each, against the part's cell with the baseline's axis\n"
              "                         values, or unjudged, saying why, when it has none" },
    { .name = "history", .type = OPT_FLAG, .offset = CO(history),
      .help = "judge each label's newest nights against its own history in this database instead of against\n"
              "                         a baseline: per judged metric the change points of its nights' means (a\n"
              "                         night is a suite run, or a UTC day outside suites; see 'pressmark history');\n"
              "                         with --fail-on-regression exit 1 when one of a gated metric (the headline\n"
              "                         and each --metric; Holm over them at --alpha) within --window moved the\n"
              "                         worse way by at least PCT % (here default 2.5: half the 5 % change to\n"
              "                         catch, as a fresh change's size scatters); the other metrics are shown,\n"
              "                         never failing; each change with its night, the kernels on both sides, the\n"
              "                         means before and after and its p" },
    { .name = "window", .type = OPT_CALLBACK, .set = set_window, .metavar = "W",
      .help = "--history: a change point within the newest W nights is judged (default 5)" },
    { .name = "isolation", .type = OPT_FLAG, .offset = CO(isolation_only),
      .help = "only the isolation figures: what each cell that ran beside a sibling hog (--sibling) keeps of\n"
              "                         the same cell without it, with intervals, and the hog's progress (shown\n"
              "                         after the tables anyway; with --format csv, the only way to get them)" },
    { .name = "junit", STR(junit), .metavar = "FILE",
      .help = "JUnit XML: a testsuite per workload (or part of a suite, as its tables), a testcase per label\n"
              "                         x metric" },
    { .type = OPT_END },
};

static const char compare_usage[] =
    "usage: pressmark compare [--baseline LABEL] [LABEL...] [options]\n\n"
    "Compares labels (configurations: a kernel, a patch, a setting); each label's ok runs\n"
    "are its samples. The default view is the table of the 2002 VolanoMark report, one row\n"
    "per label: the workload's headline (msg/s, elapsed, MB/s), %CPU, %sys/%user and total\n"
    "swap in, out and io, each as mean ±sd, then n and fail:runs; under it that report's\n"
    "ratio sentence for each label against the baseline, with Welch's t-test (with an\n"
    "outlier, the larger of Welch's and Mann-Whitney's p), significant below --alpha\n"
    "(the family's, Benjamini-Hochberg adjusted, when more than one cell is judged), what\n"
    "the runs could have found when they found nothing, outliers and drift, and what\n"
    "differed in the environment.\n"
    "--long shows mmtests' layout: per metric n, mean, stddev, CV%, min, median, max,\n"
    "the change against the baseline (+ is better) with its p-value, the 95% confidence\n"
    "interval of the difference, Welch's and Mann-Whitney's p, the 95% interval of the\n"
    "ratio (Welch's test inverted: it leaves out 100% exactly when Welch's p is below\n"
    "0.05), the adjusted p and the change these runs find at 80% power. Without\n"
    "labels: every label of the workload, the first one run as the baseline. Runs that\n"
    "ended failed, oom or aborted are counted, never averaged in.\n";

/* Every label asked for must exist: a typo must not compare nothing. */
static int check_labels(struct pm_db *db, const struct compare_opts *o, char **labels, size_t n)
{
    struct pm_err err;
    for (size_t i = 0; i <= n; i++) {
        const char *l = i < n ? labels[i] : o->baseline_db[0] ? NULL : o->baseline[0] ? o->baseline : NULL;
        if (!l)
            continue;
        size_t runs;
        if (store_run_label_count(db, l, &runs, &err) < 0)
            return cli_usage("compare", "%s", err.msg);
        if (runs == 0)
            return cli_usage("compare", "%s'%s' has no runs in %s (see 'pressmark list')", i == n ? "--baseline: " : "",
                            l, store_db_path());
    }
    return 0;
}

/* --baseline-db: fetched (or found), opened safely, holding --baseline. */
static int open_baseline(const struct compare_opts *o, struct foreign_db *fdb)
{
    struct pm_err err;
    char local[4200], how[128];
    if (fetch_baseline(o->baseline_db, o->max_download, local, sizeof local, how, sizeof how, &err) < 0)
        return cli_usage("compare", "--baseline-db: %s", err.msg);
    if (foreign_db_open(local, fdb, &err) < 0)
        return cli_usage("compare", "--baseline-db %s: %s", o->baseline_db, err.msg);
    fprintf(stderr, "pressmark compare: baseline database %s (%s)\n", o->baseline_db, how);
    if (!o->baseline[0])
        return 0;
    size_t found = 0;
    if (store_run_label_count(&fdb->db, o->baseline, &found, &err) < 0 || found == 0) {
        foreign_db_close(fdb);
        return cli_usage("compare", "--baseline: '%s' has no runs in %s", o->baseline, o->baseline_db);
    }
    return 0;
}

/* The workloads to compare: --workload, or every workload of the labels. */
static int pick_workloads(struct pm_db *db, const struct compare_opts *o, char **labels, size_t n, char ***out,
                          size_t *nw)
{
    struct pm_err err;
    const char *sel[MAX_ITEMS + 1];
    size_t nsel = 0;
    if (o->baseline[0] && !o->baseline_db[0])
        sel[nsel++] = o->baseline;
    for (size_t i = 0; i < n; i++)
        sel[nsel++] = labels[i];
    *out = NULL;
    *nw = 0;
    if (o->workload[0]) {
        if (!(*out = malloc(sizeof **out)) || !((*out)[0] = strdup(o->workload)))
            return cli_usage("compare", "out of memory");
        *nw = 1;
    } else if (compare_workloads(db, sel, nsel, out, nw, &err) < 0) {
        return cli_usage("compare", "%s", err.msg);
    }
    if (*nw == 0)
        return cli_usage("compare", "no runs to compare in %s", store_db_path());
    return 0;
}

/* What --junit writes: the comparisons' test cases, or --history's. */
struct junit_job {
    struct comparison *const *cs;
    size_t n;
    double pct;
    const struct hgate *history;
};

static int write_junit(const char *path, const struct junit_job *jb)
{
    FILE *jf = pm_create_file(path);
    if (!jf)
        return cli_usage("compare", "--junit: %s: %s", path, strerror(errno));
    if (jb->history)
        hgate_junit(jf, jb->history);
    else
        junit_write(jf, jb->cs, jb->n, jb->pct);
    if (fclose(jf) != 0)
        return cli_usage("compare", "--junit: %s: %s", path, strerror(errno));
    return 0;
}

/* One comparison to build: a workload's labels, or one group of a
 * suite's cells (its baseline first; unjudged when it has none). */
struct compare_job {
    const char *workload;
    const char *const *labels;
    const char *const *axes;     /* a suite's cells' axis values, else NULL */
    size_t nlabels;
    const char *group, *unjudged;
};

/* Build one comparison per job; *built of them. 0, or 2 when one could
 * not be built. */
static int build_all(struct pm_db *db, const struct compare_opts *o, struct foreign_db *fdb,
                     const struct compare_job *jobs, size_t nj, const struct suite_view *sv,
                     struct comparison **cptrs, struct comparison *cmps, size_t *built)
{
    for (size_t i = 0; i < nj; i++) {
        struct pm_err err;
        const struct compare_job *jb = &jobs[i];
        /* A suite's cells come with their baseline first. */
        struct compare_request rq = { .workload = jb->workload, .labels = jb->labels, .nlabels = jb->nlabels,
                                      .baseline = !sv && o->baseline[0] ? o->baseline : NULL,
                                      .baseline_db = o->baseline_db[0] ? &fdb->db : NULL,
                                      .baseline_db_name = o->baseline_db, .metrics = o->metrics,
                                      .nmetrics = o->nmetrics, .long_view = o->long_view, .alpha = o->alpha,
                                      .allow_emulated = o->allow_emulated, .suite_uuid = sv ? sv->rec.uuid : NULL,
                                      .group = jb->group, .unjudged = jb->unjudged,
                                      .exclude_outliers = o->exclude_outliers, .resamples = o->resamples,
                                      .seed = o->seed };
        if (compare_build(db, &rq, &cmps[i], &err) < 0 || (jb->axes && compare_grid(&cmps[i], jb->axes, &err) < 0)) {
            compare_free(&cmps[i]);
            return cli_usage("compare", "%s", err.msg);
        }
        if (sv)
            snprintf(cmps[i].suite, sizeof cmps[i].suite, "%s", sv->title);
        cptrs[(*built)++] = &cmps[i];
    }
    return 0;
}

/* Build every comparison, judge them as one family, then write them and
 * the verdict. Returns 0, 1 (a regression, with --fail-on-regression), or
 * 2 when one could not be built or judged (nothing is judged then). */
static int compare_all(struct pm_db *db, const struct compare_opts *o, struct foreign_db *fdb,
                       const struct compare_job *jobs, size_t nj, const struct suite_view *sv)
{
    struct comparison *cmps = calloc(nj ? nj : 1, sizeof *cmps);
    struct comparison **cptrs = calloc(nj ? nj : 1, sizeof *cptrs);
    if (!cmps || !cptrs) {
        free(cmps);
        free(cptrs);
        return cli_usage("compare", "out of memory");
    }
    size_t built = 0;
    int rc = build_all(db, o, fdb, jobs, nj, sv, cptrs, cmps, &built);
    if (rc == 0 && compare_judge(cptrs, built, o->alpha) < 0)
        rc = cli_usage("compare", "out of memory");
    const struct cmp_format *fmt = cmp_format_get(o->format);
    if (fmt->human)
        cmd_human_output();
    struct cmp_writer w = { .f = stdout, .fmt = fmt, .log = stderr };
    struct across *across = NULL;
    if (rc == 0 && compare_across(cptrs, built, &across, &w.nacross) < 0)
        rc = cli_usage("compare", "out of memory");
    w.across = across;
    /* The isolation figures draw their intervals whatever the format. */
    struct isolation iso = { 0 };
    struct pm_err ierr;
    if (rc == 0 && isolation_build(db, cptrs, built, &iso, &ierr) < 0)
        rc = cli_usage("compare", "%s", ierr.msg);
    w.isolation = &iso;
    w.isolation_only = o->isolation_only;
    w.fmt->begin(&w);
    int verdict = VERDICT_OK;
    char findings[16384] = "";
    for (size_t i = 0; rc == 0 && i < built; i++) {
        int v = o->judge ? verdict_judge(cptrs[i], o->pct, findings, sizeof findings) : VERDICT_OK;
        if (v == VERDICT_REGRESSED || (v == VERDICT_UNJUDGED && verdict == VERDICT_OK))
            verdict = v;
        w.fmt->comparison(&w, cptrs[i], o->long_view);
    }
    const struct cmp_verdict cv = { .exit_status = verdict, .threshold_pct = o->pct, .alpha = o->alpha,
                                    .findings = findings, .family = built ? cptrs[0]->family : 0 };
    w.fmt->end(&w, rc == 0 && o->judge ? &cv : NULL);
    if (rc == 0 && o->junit[0])
        rc = write_junit(o->junit, &(struct junit_job){ .cs = cptrs, .n = built, .pct = o->pct });
    if (rc == 0 && o->judge)
        rc = verdict;
    for (size_t i = 0; i < built; i++)
        compare_free(cptrs[i]);
    isolation_free(&iso);
    free(across);
    free(cmps);
    free(cptrs);
    return rc;
}

/* --suite: the suite's comparisons (of --workload's cells only), a job
 * each; *jobs allocated. */
static int suite_jobs(struct pm_db *db, const struct compare_opts *o, struct suite_view *sv,
                      struct suite_view_groups *gs, struct compare_job **jobs, size_t *nj)
{
    struct pm_err err;
    if (o->baseline_db[0] || o->baseline[0])
        return cli_usage("compare", "--suite: compares the suite's cells against its baseline cell; it takes no "
                        "labels, --baseline or --baseline-db");
    if (suite_view_load(db, o->suite_id, sv, &err) < 0)
        return cli_usage("compare", "--suite: %s", err.msg);
    if (suite_view_groups(sv, gs, &err) < 0)
        return cli_usage("compare", "--suite: %s", err.msg);
    if (!(*jobs = calloc(gs->n ? gs->n : 1, sizeof **jobs)))
        return cli_usage("compare", "out of memory");
    for (size_t g = 0; g < gs->n; g++) {
        const struct suite_view_group *grp = &gs->v[g];
        if (o->workload[0] && strcmp(o->workload, grp->workload) != 0)
            continue;
        (*jobs)[(*nj)++] = (struct compare_job){ .workload = grp->workload, .labels = grp->labels,
                                                 .axes = grp->axes, .nlabels = grp->n,
                                                 .group = grp->name[0] ? grp->name : NULL,
                                                 .unjudged = grp->unjudged[0] ? grp->unjudged : NULL };
    }
    if (*nj == 0)
    {
        char title[512];         /* the suite's name is the database's: data, not escapes */
        quote_terminal(sv->title, title, sizeof title);
        return cli_usage("compare", "--workload: %s has no cells of workload %s", title, o->workload);
    }
    return 0;
}

/* Without --suite: a job per workload of the labels (checked), each with them all. */
static int label_jobs(struct pm_db *db, const struct compare_opts *o, char **labels, size_t nlabels,
                      char ***workloads, size_t *nw, struct compare_job **jobs, size_t *nj)
{
    int rc = pick_workloads(db, o, labels, nlabels, workloads, nw);
    if (rc == 0 && !(*jobs = calloc(*nw ? *nw : 1, sizeof **jobs)))
        rc = cli_usage("compare", "out of memory");
    for (size_t i = 0; rc == 0 && i < *nw; i++)
        (*jobs)[(*nj)++] = (struct compare_job){ .workload = (*workloads)[i], .labels = (const char *const *)labels,
                                                 .nlabels = nlabels };
    return rc;
}

/* What --history cannot be given with: one line naming it, or 0. */
static int history_refuses(const struct compare_opts *o)
{
    if (!o->history && o->has_window)
        return cli_usage("compare", "--window: '%u' judges a history's newest nights; it needs --history", o->window);
    if (!o->history)
        return 0;
    const char *other = o->has_suite ? "--suite" : o->baseline[0] ? "--baseline" : o->baseline_db[0] ? "--baseline-db"
                        : o->long_view ? "--long" : o->exclude_outliers ? "--exclude-outliers"
                        : o->isolation_only ? "--isolation" : NULL;
    if (other)
        return cli_usage("compare", "--history: judges each label's nights against its own history; it takes no %s",
                        other);
    const char *fmt = cmp_format_names[o->format];
    if (strcmp(fmt, "text") != 0 && strcmp(fmt, "json") != 0)
        return cli_usage("compare", "--format: '%s' is not a format of --history (accepted: text, json)", fmt);
    return 0;
}

/* --history: each label's newest nights judged against its own history
 * (history_gate.h). Returns 0, 1 (a regression, with
 * --fail-on-regression), or 2 when it cannot build or judge. */
static int compare_history(struct pm_db *db, const struct compare_opts *o, char **labels, size_t nlabels)
{
    int rc = check_labels(db, o, labels, nlabels);
    if (rc)
        return rc;
    const struct hgate_request rq = { .labels = (const char *const *)labels, .nlabels = nlabels,
                                      .workload = o->workload[0] ? o->workload : NULL, .metrics = o->metrics,
                                      .nmetrics = o->nmetrics, .window = o->window,
                                      .threshold_pct = o->pct_given ? o->pct : HISTORY_PCT, .alpha = o->alpha,
                                      .allow_emulated = o->allow_emulated };
    struct hgate g;
    struct pm_err err;
    int built = hgate_build(db, &rq, &g, &err);
    if (built < 0 || g.n == 0) {
        hgate_free(&g);
        if (built < 0)
            return cli_usage("compare", "%s", err.msg);
        return cli_usage("compare", "--history: no ok runs%s%s to judge in %s", rq.workload ? " of workload " : "",
                        rq.workload ? rq.workload : "", store_db_path());
    }
    char findings[16384] = "";
    int verdict = hgate_verdict(&g, findings, sizeof findings);
    if (cmp_format_get(o->format)->human) {
        cmd_human_output();
        hgate_print_text(stdout, &g);
        if (o->judge && findings[0])
            printf("\n%s", findings);
        if (o->judge)
            hgate_print_verdict(stdout, &g, verdict);
    } else {
        /* The JSON stays parseable: the verdict's line goes to stderr. */
        if (hgate_write_json(stdout, &g, o->judge, verdict, findings) < 0)
            rc = cli_usage("compare", "the JSON could not be written");
        if (o->judge)
            hgate_print_verdict(stderr, &g, verdict);
    }
    if (rc == 0 && o->junit[0])
        rc = write_junit(o->junit, &(struct junit_job){ .history = &g });
    if (rc == 0 && o->judge)
        rc = verdict;
    hgate_free(&g);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_opts o = { .pct = 5.0, .window = HISTORY_WINDOW };
    const struct cmd_group groups[] = { { NULL, compare_options, &o }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = { .name = "compare", .usage = compare_usage, .groups = groups, .ngroups = 2,
                                   .max_args = MAX_ITEMS };
    int first = cmd_parse(&spec, argc, argv);
    if (first < 0)
        return cmd_parse_exit(first);
    char **labels = argv + first;
    size_t nlabels = (size_t)(argc - first);
    if (history_refuses(&o))
        return PM_EXIT_USAGE;
    struct pm_db db;
    if (cmd_open_db(&db, "compare") != 0)
        return PM_EXIT_USAGE;
    if (o.history) {
        int hrc = compare_history(&db, &o, labels, nlabels);
        store_db_close(&db);
        return hrc;
    }
    struct foreign_db fdb = { 0 };
    char **workloads = NULL;
    size_t nw = 0, nj = 0;
    struct compare_job *jobs = NULL;
    struct suite_view sv = { 0 };
    struct suite_view_groups gs = { 0 };
    int rc;
    if (o.has_suite && nlabels)
        rc = cli_usage("compare", "--suite: compares the suite's cells against its baseline cell; it takes no "
                      "labels, --baseline or --baseline-db");
    else if (o.has_suite)
        rc = suite_jobs(&db, &o, &sv, &gs, &jobs, &nj);
    else
        rc = check_labels(&db, &o, labels, nlabels);
    if (rc == 0 && o.baseline_db[0])
        rc = open_baseline(&o, &fdb);
    bool have_fdb = rc == 0 && o.baseline_db[0];
    if (rc == 0 && !o.has_suite)
        rc = label_jobs(&db, &o, labels, nlabels, &workloads, &nw, &jobs, &nj);
    if (rc == 0)
        rc = compare_all(&db, &o, &fdb, jobs, nj, o.has_suite ? &sv : NULL);
    suite_view_groups_free(&gs);
    suite_view_free(&sv);
    if (have_fdb)
        foreign_db_close(&fdb);
    for (size_t i = 0; i < nw; i++)
        free(workloads[i]);
    free(workloads);
    free(jobs);
    store_db_close(&db);
    return rc;
}
