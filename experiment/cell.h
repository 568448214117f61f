#ifndef PM_EXPERIMENT_CELL_H
#define PM_EXPERIMENT_CELL_H
/* One cell of a plan made ready to run: its settings applied to the run
 * options and its workload's state (cell.c). */
#include <stdbool.h>
#include "experiment/plan.h"
#include "lib/opt.h"

/* One cell's run options and workload state, ready for a run plan. */
struct cell_run {
    struct run_opts ro;
    void *wl_state;
    char **argv;                /* record's command, kept while it runs */
};
int suite_cell_prepare(const struct suite_plan *p, const struct suite_cell *c, struct cell_run *cr,
                       struct pm_err *err);
void suite_cell_release(struct cell_run *cr);
/* The option a suite key sets in a cell of workload wl: the workload's
 * own (*is_run false), else a run or environment option; NULL: none. */
const struct opt *suite_cell_option(const struct workload_ops *wl, const char *key, bool *is_run);
/* A flag's value as a suite file gives it: yes, true, on, 1 (*on true) or
 * no, false, off, 0; false for any other. */
bool suite_flag_value(const char *v, bool *on);

#endif
