#ifndef PM_PLAN_POWER_H
#define PM_PLAN_POWER_H
/* What a suite's planned runs can see, cell by cell, before they run: the
 * run-to-run CV of the cell's headline in its earlier runs (the same
 * workload, label and parameters in the database), the smallest change
 * its planned runs a side detect, and the runs a side the suite's detect
 * = P% needs. Two-sided two-sample t-test at the suite's alpha, with
 * SUITE_POWER power (stats/power.h). */
#include <stddef.h>
#include "experiment/plan.h"
#include "store/db.h"

/* The power suite plan judges runs by: a change found 4 times in 5. */
#define SUITE_POWER 0.8

struct cell_power {
    size_t earlier;             /* earlier ok runs that stored the headline */
    double cv_pct;              /* their CV in % of their mean; NaN below 2 of them */
    double detect_min_pct;      /* the smallest change runs_min runs a side detect; NaN: no CV */
    double detect_max_pct;      /* the same for runs_max (equal for a fixed count) */
    /* Runs a side detect_pct needs: 0 when the suite names no detect or
     * there is no CV, SUITE_MAX_RUNS + 1 when more than SUITE_MAX_RUNS. */
    unsigned runs_needed;
};

/* Cell c's figures from db. -1 with err when the database cannot be read. */
int suite_cell_power(struct pm_db *db, const struct suite_plan *p, const struct suite_cell *c, struct cell_power *out,
                     struct pm_err *err);

#endif
