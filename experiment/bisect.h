#ifndef PM_EXPERIMENT_BISECT_H
#define PM_EXPERIMENT_BISECT_H
/* pressmark bisect: a suite file's cell measured on a good and a bad
 * kernel, then on the candidates between them, each judged good or bad
 * against the two (experiment/bisect_judge.h), until the first bad one
 * is found. Candidates: Debian packages between two versions (apt's, in
 * dpkg's order), package files in a given order, or a git range driven
 * by git bisect with a build command. Each boot is a suite of its own
 * (a batch: runs = the runs a boot, kernel = the candidate) run by
 * suite_run with the suite file's backend, so its runs are recorded and
 * resumed as a suite's; the bisection's steps and verdicts are in
 * results.db (store/bisects.h), so it resumes without repeating a
 * finished step after any interruption. Nothing here prints: events. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "experiment/events.h"
#include "store/bisects.h"

enum bisect_kind { BISECT_PACKAGES, BISECT_DEBS, BISECT_GIT };

struct bisect_args {
    const char *suite_path, *cell, *metric;  /* cell, metric: "" for the only cell, its headline */
    enum bisect_kind kind;
    const char *good, *bad;
    const char *repo, *build;                /* --git */
    char *const *debs;                       /* --debs: the files between, in order */
    size_t ndebs;
    int runs, max_runs;
    double alpha;
};

/* What a bisection is before it runs: its row and candidates, checked. */
struct bisect_plan {
    struct bisect_rec rec;
    struct bisect_candidate_rec *cands;
    size_t ncands;
};

/* Check everything and list the candidates; nothing is written. -1 with
 * err one line naming the option or file, the value and what is
 * accepted. */
int bisect_prepare(const struct bisect_args *a, struct bisect_plan *bp, struct pm_err *err);
void bisect_plan_free(struct bisect_plan *bp);

/* Run the bisection, or resume the one these arguments started (id 0),
 * or bisection id. The exit status: 0 the first bad candidate found, 1
 * the endpoints do not differ (or one cannot be measured, or only
 * skipped candidates are left), 2 a harness error, 128 + N interrupted by
 * signal N; *id the bisection's. */
int bisect_run(const struct bisect_plan *bp, int64_t id, const struct exp_events *ev, bool quiet, int64_t *out_id);
/* --continue: bisection id, or the newest unfinished one (id 0). */
int bisect_resume(int64_t id, const struct exp_events *ev, bool quiet, int64_t *out_id);
/* git bisect run's step: build the checkout in dir with bisection id's
 * build command (0: the newest git bisection), judge it against that
 * bisection's endpoints: 0 good, 1 bad, 125 skip (a failed build or boot,
 * cannot tell), 128 anything that should stop git bisect run. */
int bisect_step_here(int64_t id, const char *dir, const struct exp_events *ev, bool quiet);

#endif
