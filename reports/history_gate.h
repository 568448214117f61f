#ifndef PM_HISTORY_GATE_H
#define PM_HISTORY_GATE_H
/* compare --history: each cell's newest nights judged against its own
 * history instead of against a baseline label. Per judged metric (those
 * compare judges: the headline, and the workload's and the reports'
 * metrics or the ones asked for, each with a better direction), the
 * change points of its nights' means; a candidate is a change point in
 * the last window nights that moved the level the worse way by at least
 * the threshold (cp_gate_find). The gate's family is explicit (issue 43):
 * the headline and the metrics asked for are gated, Holm's step-down at
 * alpha over them, so that a label-night cries wolf no more often than
 * alpha however many metrics are gated; the others are judged and shown
 * but never fail (judged alone, chat's p99 latency drifting over a
 * recording failed 4 A/A label-nights in 44; docs/change-points.md has
 * the measured rates). What changed is said with where: the night, the
 * kernels on both sides, the means before and after, the change and its
 * p. Text, JSON (compare's document with a history object) and JUnit. */
#include <stdio.h>
#include "reports/history.h"

struct hgate_metric {
    struct history h;
    bool gated;                  /* in the gate's family: the headline, and those asked for with --metric */
    long candidate;              /* the change within the window, worse by the threshold (index into
                                    h.changes, cp_gate_find's), or -1 */
    double p_adj;                /* a gated candidate's p, Holm-adjusted over the family; else NAN */
    bool regression;             /* a gated candidate that holds at alpha over the family */
    char unjudged[200];          /* why it could not be judged, or "" */
};

struct hgate_cell {
    char label[256], workload[64];
    struct hgate_metric *m;
    size_t nm;
    size_t family;               /* its gated metrics that could be judged: Holm's m */
    size_t ngated;               /* its gated metrics, judged or not */
};

struct hgate {
    size_t window;
    double threshold_pct, alpha;
    struct hgate_cell *cells;
    size_t n;
};

/* The gate's permutations at most (a family of 10 at alpha 0.0005). */
#define HGATE_MAX_PERMUTATIONS 199999

/* Why a metric is judged: the workload's headline, one of its second
 * figures (compare_also), one of the reports' table, or asked for. */
enum hgate_kind { HGATE_HEADLINE, HGATE_ALSO, HGATE_REPORT, HGATE_ASKED };

struct hgate_pick {
    const char *metric;
    enum hgate_kind kind;
};

/* The metrics the gate judges for a workload, in order: the headline,
 * those asked for, then the workload's second figures and the reports'
 * table; each once. Returns how many (at most max). */
size_t hgate_metrics(const char *workload, const char *const *asked, size_t nasked, struct hgate_pick *out,
                     size_t max);
/* Room enough for hgate_metrics' list. */
size_t hgate_metrics_max(const char *workload, size_t nasked);

/* The family's verdict: Holm's step-down at alpha over the members'
 * p-values (in[i]; p[i] is a member's candidate's p, 1 when it has
 * none); adj[i] a member's Holm-adjusted p (NAN for the others), fires[i]
 * whether it holds at alpha. Non-members never fire. -1 out of memory. */
int hgate_family(const double *p, const bool *in, size_t n, double alpha, double *adj, bool *fires);

/* The change points' options the gate judges a family of `family`
 * metrics with at alpha: each change kept at p <= alpha, and enough
 * permutations that Holm's smallest level, alpha / family, is resolved
 * ten times over. */
void hgate_cp_opts(double alpha, size_t family, struct cp_opts *cp);

struct hgate_request {
    const char *const *labels;   /* empty: every label with ok runs */
    size_t nlabels;
    const char *workload;        /* NULL: each workload of the labels */
    const char *const *metrics;  /* gated beside the headline (the headline alone when empty); the
                                    workload's second figures and the reports' metrics are judged and
                                    reported, never failing */
    size_t nmetrics;
    size_t window;
    double threshold_pct;
    double alpha;                /* the family's level (hgate_cp_opts) */
    bool allow_emulated;
};

/* -1 with err (one line) when a cell or a metric asked for cannot be
 * read: the caller's bad input. */
int hgate_build(struct pm_db *db, const struct hgate_request *rq, struct hgate *g, struct pm_err *err);
void hgate_free(struct hgate *g);

/* VERDICT_REGRESSED, VERDICT_UNJUDGED or VERDICT_OK (verdict.h), with a
 * line per finding appended to lines ("REGRESSION ...", "cannot judge ..."). */
int hgate_verdict(const struct hgate *g, char *lines, size_t len);
/* The judgement as text: a block per cell, a line per metric. */
void hgate_print_text(FILE *f, const struct hgate *g);
/* The verdict's last line (exit_status: VERDICT_*). */
void hgate_print_verdict(FILE *f, const struct hgate *g, int exit_status);
/* compare's JSON document: no comparisons, the history object, and with
 * judge the verdict. -1 when it could not be written. */
int hgate_write_json(FILE *f, const struct hgate *g, bool judge, int exit_status, const char *findings);
/* JUnit XML: a testsuite per cell, a testcase per judged metric. */
void hgate_junit(FILE *f, const struct hgate *g);

#endif
