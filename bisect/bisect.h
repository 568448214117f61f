#ifndef PM_EXPERIMENT_BISECT_H
#define PM_EXPERIMENT_BISECT_H
/* pressmark bisect: a suite file's cell measured on a good and a bad
 * kernel, then on the candidates between them, each judged good or bad
 * against the two (bisect/bisect_judge.h), until the first bad one
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

/* The ranges of --runs, --max-runs and --alpha: the command's option
 * table takes them, and a stored bisection outside them is refused. */
#define BISECT_RUNS_MIN 2
#define BISECT_RUNS_MAX 100
#define BISECT_MAX_RUNS_MAX 1000
#define BISECT_ALPHA_MIN 0.0001
#define BISECT_ALPHA_MAX 0.5

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

/* What resuming a bisection is given again (--continue, --step). A
 * database is data, never code: what a bisection runs (the suite file's
 * cells, the build command, the repository git reads, the package files
 * booted) comes from the operator each time, and the stored bisection
 * must match it. repo and build: "" when not given; debs: the package
 * files, the endpoints' included. */
struct bisect_resume_args {
    const char *suite_path;
    const char *repo, *build;
    char *const *debs;
    size_t ndebs;
};
/* The resume arguments checked as bisect_prepare checks a new one's,
 * into given (rec: suite_path, suite_text, repo, build and kind "git"
 * when --git was given, else ""; cands: the package files resolved). */
int bisect_prepare_resume(const struct bisect_resume_args *a, struct bisect_plan *given, struct pm_err *err);
/* What makes two invocations one bisection (rec->key): the suite text,
 * cell, metric, kind, endpoints, repository, build command, numbers and
 * candidates. */
void bisect_make_key(const struct bisect_rec *r, const struct bisect_candidate_rec *cands, size_t n, char *key,
                     size_t len);

/* Run the bisection, or resume the one these arguments started (its
 * stored row must hold what they say, else exit 2, nothing run). The exit
 * status: 0 the first bad candidate found, 1 the endpoints do not differ
 * (or one cannot be measured, or only skipped candidates are left), 2 bad
 * input or a harness error, 128 + N interrupted by signal N; *id the
 * bisection's. */
int bisect_run(const struct bisect_plan *bp, const struct exp_events *ev, bool quiet, int64_t *out_id);
/* --continue: bisection id, or the newest unfinished one (id 0), given
 * again what it runs (a stored bisection that differs: exit 2, nothing
 * run). */
int bisect_resume(int64_t id, const struct bisect_plan *given, const struct exp_events *ev, bool quiet,
                  int64_t *out_id);
/* git bisect run's step: build the checkout in dir with the build command
 * given (the one bisection id, or the newest git bisection, was started
 * with), judge it against that bisection's endpoints: 0 good, 1 bad, 125
 * skip (a failed build or boot, cannot tell), 128 anything that should
 * stop git bisect run. */
int bisect_step_here(int64_t id, const struct bisect_plan *given, const char *dir, const struct exp_events *ev,
                     bool quiet);

#endif
