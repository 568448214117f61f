#ifndef PM_COMPARE_H
#define PM_COMPARE_H
/* A comparison of labels (configurations) of one workload: each label's
 * ok runs are the samples; every metric gets a summary per label and a
 * Welch test against the baseline. Built from the database only. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/db.h"
#include "stats/bootstrap.h"
#include "stats/ratio_ci.h"
#include "stats/ranktest.h"
#include "stats/stats.h"
#include "stats/trend.h"

struct cmp_metric {
    char name[96], unit[16], direction[8], title[48];
};

struct cmp_cell {
    double *values;              /* per ok run, in run order */
    int64_t *run_ids;            /* the run of each value */
    size_t n;
    struct summary s;
    /* Against the baseline's cell (judge.c): */
    struct welch w;
    struct mwu mwu;
    struct ratio_ci rci;         /* the ratio of means' 95 % interval, Welch's test inverted (what is shown) */
    struct boot_ci boot;         /* the same ratio's BCa bootstrap interval, drawn only when asked (--bootstrap) */
    const char *test;            /* which p decides: CMP_TEST_* */
    double p;                    /* its p; NaN: not judged */
    double p_holm, p_bh;         /* p adjusted over the family (p itself in a family of one) */
    double change_pct;           /* signed: + is better */
    double detectable_pct;       /* the smallest change these runs detect at 80% power (NaN: unknown) */
    bool significant;            /* p_bh < alpha: the tables' and sentences' word */
    bool gate_significant;       /* p_holm < alpha: what --fail-on-regression acts on */
    bool constant;               /* one value on both sides (no swap at all: 0 and 0): nothing tested, no
                                    member of the family, p NaN */
};

#define CMP_TEST_WELCH "welch"
/* A side has an outlier: p is the larger of Welch's and Mann-Whitney's, so
 * a change must hold for both (an intersection-union test: never bolder
 * than either alone). */
#define CMP_TEST_BOTH "welch+mann-whitney"

/* A run whose headline lies far from its label's other runs. */
struct cmp_outlier {
    int64_t run_id;
    double value, z;             /* z: the modified z-score (outlier.h) */
};

struct cmp_label {
    char name[256];
    bool foreign;                /* read from the baseline database */
    bool any_label;              /* foreign: every run of the workload there */
    char query[256];             /* the label as stored, when name says more */
    size_t runs, ok, failed, oom, aborted;
    int64_t *run_ids;            /* ok runs */
    bool emulated;               /* an ok run ran under QEMU's TCG emulation (emulated = yes) */
    char sentence[1024];         /* against the baseline, on the headline metric and the workload's others */
    char short_name[256];        /* in tables: name with its long words abbreviated, or name (compare_short_names) */
    char config[256];            /* what the label is across workloads: its name, or a suite cell's axis values */
    struct cmp_outlier *outliers;
    size_t noutliers;
    bool outliers_excluded;      /* --exclude-outliers took them out of every cell */
    struct trend drift;          /* the headline against the runs' order (judge.c) */
};

/* A long word of the labels (a kernel package's name) and what tables
 * show instead: "k2" or "6.12.48+deb12"; a legend under the table and
 * a tooltip give the full word. */
struct cmp_abbrev {
    char abbrev[24];
    char full[256];
};

struct cmp_env_diff {
    char key[128];
    char **values;               /* one per label */
};

/* A suite with two axes laid out as the 2002 report's tables were: one
 * axis in rows, the other in columns, each entry a cell (a label). */
struct cmp_grid {
    char row_axis[64], col_axis[64];
    char **rows, **cols;         /* the axes' values, in the order the cells have them */
    size_t nrows, ncols;
    int *label;                  /* [row * ncols + col]: index into labels, -1 when no cell */
};

struct comparison {
    char workload[64];
    char headline[96];
    double alpha;
    size_t base;                 /* index of the baseline label */
    struct cmp_label *labels;
    size_t nlabels;
    struct cmp_metric *metrics;  /* metrics[0] is the headline */
    size_t nmetrics;
    struct cmp_cell *cells;      /* [label * nmetrics + metric] */
    struct cmp_env_diff *diffs;
    size_t ndiffs;
    struct cmp_grid *grid;       /* a suite's two-axis layout, or NULL */
    char suite[160];             /* "suite 3 (name)" when the runs are a suite's */
    char group[128];             /* a suite's part(s) these cells are from, when their workload has more groups */
    char unjudged[512];          /* "": labels[base] is the baseline; else why there is none (no test, no sentence) */
    size_t nemulated;            /* labels with emulated runs: their timings get a caveat */
    struct cmp_abbrev *abbrevs;  /* the labels' long words abbreviated, in the order they came */
    size_t nabbrevs;
    size_t family;               /* comparisons judged together with this one's (1: alone) */
    /* metrics[0..nprimary) are what the default view and --metric judge:
     * the family the sentences and the gate answer to. --long's further
     * metrics are a family of their own (family_extra), so that a wider
     * view never changes a verdict. */
    size_t nprimary, family_extra;
    bool user_metrics;           /* metrics the user picked: the sentences judge the headline only */
    unsigned resamples;          /* the bootstrap's (0: not asked for, not drawn, not shown) */
    uint64_t seed;
};

/* The seed table's columns after the headline. */
extern const char *const cmp_report_metrics[];

/* Workloads that labels have runs of (all workloads when nlabels is 0). */
int compare_workloads(struct pm_db *db, const char *const *labels, size_t nlabels, char ***out, size_t *n,
                      struct pm_err *err);

struct compare_request {
    const char *workload;
    const char *const *labels;   /* empty: every label of the workload, in the order they first ran */
    size_t nlabels;
    const char *baseline;        /* NULL: the first label (or, with baseline_db, all its runs) */
    struct pm_db *baseline_db;   /* the baseline's runs come from here (--baseline-db) */
    const char *baseline_db_name;
    const char *const *metrics;  /* empty: the reports' table's, or with long_view a wider set */
    size_t nmetrics;
    bool long_view;
    double alpha;
    const char *suite_uuid;      /* only this suite's runs (its aborted ones, redone, left out) */
    bool allow_emulated;         /* emulated runs are compared (with a caveat) rather than refused */
    bool exclude_outliers;       /* leave flagged runs out of every cell (said in the output) */
    unsigned resamples;          /* the BCa bootstrap's (--bootstrap); 0: not drawn */
    uint64_t seed;               /* 0: BOOT_DEFAULT_SEED */
    const char *group;           /* NULL, or the suite's part(s) the labels are from (comparison.group) */
    const char *unjudged;        /* NULL, or why no label is a baseline: shown side by side, none tested */
};

/* Lay the comparison's labels out by two axes: axes_json[l] is label l's
 * axis values (a JSON object); nothing is done unless every label has the
 * same two axes. */
int compare_grid(struct comparison *c, const char *const *axes_json, struct pm_err *err);

int compare_build(struct pm_db *db, const struct compare_request *rq, struct comparison *c, struct pm_err *err);

/* A label up to this long is shown in tables as it is. */
#define CMP_LABEL_FITS 24

/* Each label's short_name for tables: a label longer than a table's
 * column should be (kernel suites: "chat on linux-image-6.12-cloud-amd64")
 * has its long words abbreviated, each by the part that tells it from
 * the others of its axis ("6.12.48+deb12") or else by its axis's initial
 * and a number ("k2"). axes_json: each label's axis values (JSON), or
 * NULL outside a suite. compare_build and compare_grid call it. */
int compare_short_names(struct comparison *c, const char *const *axes_json, struct pm_err *err);
/* The full text behind what a table shows (a label's short name, an
 * abbreviation), or NULL when shown is not short for anything. */
const char *compare_full_name(const struct comparison *c, const char *shown);
/* The abbreviation of a long word, or full itself. */
const char *compare_abbrev_of(const struct comparison *c, const char *full);
void compare_free(struct comparison *c);

/* What names a comparison: its workload, and the suite's part(s) its
 * cells are from when the workload has more groups ("usemem
 * (usemem-rand)"); as a slug for file names and anchors
 * ("usemem.usemem-rand"). */
void compare_title(const struct comparison *c, char *buf, size_t len);
void compare_slug(const struct comparison *c, char *buf, size_t len);

/* A comparison without a baseline shows its labels side by side: none
 * is the base, none is tested against another. */
static inline bool cmp_judged(const struct comparison *c)
{
    return !c->unjudged[0];
}

static inline bool cmp_is_base(const struct comparison *c, size_t l)
{
    return cmp_judged(c) && l == c->base;
}

/* A label as tables show it: its short name once compare_short_names has
 * given it one. */
static inline const char *cmp_label_shown(const struct cmp_label *lb)
{
    return lb->short_name[0] ? lb->short_name : lb->name;
}

static inline struct cmp_cell *cmp_cell_at(const struct comparison *c, size_t label, size_t metric)
{
    return &c->cells[label * c->nmetrics + metric];
}

#endif
