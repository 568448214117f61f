#ifndef PM_EXPERIMENT_SUITE_H
#define PM_EXPERIMENT_SUITE_H
/* Running a suite: its planned runs in results.db, executed in order,
 * more planned a round at a time (interleaved: every cell still needing
 * runs, in an order shuffled per round from the suite's seed; sequential:
 * one cell's runs after another), until each cell has its runs or, with a
 * target, its confidence interval is narrow enough or it reached the
 * maximum. Everything is read back from the database before each run, so
 * a suite interrupted in any way continues where it stopped. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "experiment/events.h"
#include "experiment/plan.h"
#include "store/suites.h"

/* Per cell, from the stored runs. */
struct cell_state {
    int finished;               /* ended ok, failed or oom */
    int failed;                 /* failed or oom */
    int planned;                /* slots, started or not */
    size_t nvalues;
    double *values;             /* the headline of each ok run */
    double mean, ci_pct;        /* ci_pct: NaN below 2 values; at suite_ci_confidence */
    bool converged, at_max;
};

/* The confidence of the interval a cell is judged and shown by: 0.95,
 * and with target-ci higher. A cell then looks at its interval after each
 * of its runs MIN..MAX, K = MAX - MIN + 1 looks, and stopping at the first
 * narrow one would pick the look whose standard deviation came out small:
 * with plain 95% intervals, the one it stops with covers the mean in
 * fewer than 95% of suites (90.9% and 93.3% in tests/unit_adaptive's
 * simulations of runs 3..20).
 * Each look's interval is therefore at 1 - 0.05/K (Bonferroni): all K
 * cover the mean together with at least 95%, so whichever one the cell
 * stops with does. */
double suite_ci_confidence(const struct suite_plan *p);
/* Its looks: K above, 1 without a target. */
unsigned suite_ci_looks(const struct suite_plan *p);

/* Read the cells' states from the slots. */
void suite_cell_states(const struct suite_plan *p, const struct suite_slot *slots, size_t nslots,
                       struct cell_state *cs);
void suite_cell_states_free(struct cell_state *cs, size_t n);
/* Does cell c need another run? */
bool suite_cell_wants_run(const struct suite_plan *p, const struct cell_state *c);
/* The group whose kernel is to be booted next: the first in the file's
 * order with cells still wanting runs that is not the running kernel
 * (else the running one's, else -1: every kernel is done). */
int suite_next_group(const struct suite_plan *p, const struct cell_state *cs, const bool *running);

/* The order of round (from 1) of an interleaved suite with this seed:
 * cells (the indices of the cells that round runs) shuffled in place. */
void suite_shuffle(uint64_t seed, int round, int *cells, size_t n);

struct suite_run_opts {
    bool cont;                  /* --continue: a changed file continues the unfinished suite */
    bool again;                 /* --again: a finished suite runs anew */
    bool quiet;
    /* Inside a VM: run only this kernel group's cells, as part of the
     * host's suite (its UUID and order seed). */
    bool guest;
    int group;
    char suite_uuid[40];
    uint64_t seed;
    char meta_path[256];        /* key=value lines every run carries (the kernel's) */
    /* suite run --reboot kexec, for a backend that reboots this machine
     * into its kernels: boot the next kernel with kexec when this one's
     * cells are done (dry_run: print what would be done). */
    bool reboot, dry_run;
    /* A suite made by pressmark (a bisection's batch): its text, read
     * instead of the file path names. */
    const char *text;
    /* A backend's own command (a pressmark command named after it): the
     * backend it is for, which the suite must name, and what it asks of
     * it, read by that backend alone. The running kernel's cells do not
     * run then. NULL: a suite run. */
    const char *backend_cmd;
    const void *backend_opts;
};

/* suite run FILE: returns the exit status (0 done and every run ok, 1 a run
 * failed, 2 bad input or harness errors, 128 + N interrupted by signal N). */
int suite_run(const char *path, const struct suite_run_opts *o, const struct exp_events *ev);

#endif
