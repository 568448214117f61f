#ifndef PM_SUITE_VIEW_H
#define PM_SUITE_VIEW_H
/* A stored suite as the reports see it: its cells (labels, workloads,
 * axis values), its baseline cell, its question. compare --suite and
 * report --suite read it; they compare the suite's own runs only. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "experiment/plan.h"
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
    /* Per cell, in cell order, its part and settings as the stored file
     * says; NULL when the file does not make these cells (then every
     * workload's cells are one comparison, as before sections counted). */
    struct suite_cell_origin *origins;
    double alpha;                /* the file's alpha (0.05 when it names none) */
    /* A suite with kernels: its backend, and where it ran the cells of the
     * kernels not running ("in a VM per kernel"); "" without kernels. */
    char backend[64];
    char where[800];
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

/* One comparison of a suite: cells of one workload from parts set alike
 * but for their axes (the same settings, the same axes), so that a cell
 * is judged only against one that differs from it along its axes. Two
 * parts of a workload set otherwise (usemem writing in sequence, usemem
 * reading at random) are two workloads to compare, each on its own. */
struct suite_view_group {
    const char *workload;
    char name[128];              /* its parts ("usemem-rand") when its workload has more than one group; else "" */
    const char **labels, **axes; /* its cells' labels and axis JSON, its baseline first when it has one */
    size_t n;
    char unjudged[512];          /* "": labels[0] is its baseline; else why it has none (one line) */
};
struct suite_view_groups {
    struct suite_view_group *v;
    size_t n;
    const char **labels, **axes; /* the groups' labels and axes point into these (and into the view) */
};
/* The suite's comparisons, in the order of their first cells. A
 * workload whose cells are one group is compared as it always was: its
 * baseline is the baseline cell when that is one of them, else its first
 * cell. Of a workload with more groups, the baseline cell's group has
 * it; any other group has its cell whose axis values are the baseline
 * cell's, else the baseline cell itself when that differs from its cells
 * along their axes only, else no baseline: its cells are shown side by
 * side, unjudged. */
int suite_view_groups(const struct suite_view *v, struct suite_view_groups *out, struct pm_err *err);
void suite_view_groups_free(struct suite_view_groups *g);

#endif
