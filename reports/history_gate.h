#ifndef PM_HISTORY_GATE_H
#define PM_HISTORY_GATE_H
/* compare --history: each cell's newest nights judged against its own
 * history instead of against a baseline label. Per judged metric (those
 * compare judges: the headline, and the workload's and the reports'
 * metrics or the ones asked for, each with a better direction), the
 * change points of its nights' means; a regression is a change point in
 * the last window nights that moved the level the worse way by at least
 * the threshold (cp_gate_find). What changed is said with where: the
 * night, the kernels on both sides, the means before and after, the
 * change and its p. Text, JSON (compare's document with a history
 * object) and JUnit. */
#include <stdio.h>
#include "reports/history.h"

struct hgate_metric {
    struct history h;
    long gated;                  /* the change (index into h.changes) the gate found, or -1 */
    char unjudged[200];          /* why it could not be judged, or "" */
};

struct hgate_cell {
    char label[256], workload[64];
    struct hgate_metric *m;
    size_t nm;
};

struct hgate {
    size_t window;
    double threshold_pct;
    struct hgate_cell *cells;
    size_t n;
};

struct hgate_request {
    const char *const *labels;   /* empty: every label with ok runs */
    size_t nlabels;
    const char *workload;        /* NULL: each workload of the labels */
    const char *const *metrics;  /* judged after the headline; empty: compare's default ones */
    size_t nmetrics;
    size_t window;
    double threshold_pct;
    bool allow_emulated;
    const struct cp_opts *cp;
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
