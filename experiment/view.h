#ifndef PM_SUITE_VIEW_H
#define PM_SUITE_VIEW_H
/* A stored suite as the reports see it: its cells (labels, workloads,
 * axis values), its baseline cell, its question. compare --suite and
 * report --suite read it; they compare the suite's own runs only. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/suites.h"

struct suite_view {
    struct suite_rec rec;
    struct suite_cell_rec *cells;
    size_t ncells;
    char baseline[256];          /* a cell's label */
    char question[512];
    char title[160];             /* "suite 3 (name)" */
    unsigned runs_min, runs_max; /* as the file said */
    double target_ci;            /* fraction; 0: none */
    double alpha;                /* the file's alpha (0.05 when it names none) */
};

/* Per cell, in v's cell order: how its run count ended ("5 of 5 runs",
 * "converged after 4 runs (CI ±1.2% within 2%, Bonferroni over 18
 * looks)", "not converged at the maximum of 20 runs (...)"), the CI the
 * one target-ci's rule judged by. notes[i] must hold 96 bytes. */
int suite_view_notes(struct pm_db *db, const struct suite_view *v, char (*notes)[96], struct pm_err *err);

/* The confidence of the CI its cells are judged and shown by
 * (suite_ci_confidence). */
double suite_view_ci_confidence(const struct suite_view *v);

/* Load suite id (0: the newest). -1 with err saying why (none there). */
int suite_view_load(struct pm_db *db, int64_t id, struct suite_view *v, struct pm_err *err);
void suite_view_free(struct suite_view *v);
/* Labels and axis JSON of workload's cells, in cell order, baseline first
 * when it is one of them; pointers into v. Returns how many. */
size_t suite_view_labels(const struct suite_view *v, const char *workload, const char **labels, const char **axes,
                         size_t max);
/* The suite's workloads in the order of their first cells. */
size_t suite_view_workloads(const struct suite_view *v, const char **out, size_t max);

#endif
