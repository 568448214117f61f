#ifndef PM_EXPERIMENT_BISECT_INT_H
#define PM_EXPERIMENT_BISECT_INT_H
/* The bisection's state shared by its parts: bisect.c drives it,
 * bisect_cell.c measures a kernel in batches, bisect_git.c follows git
 * bisect. Not for commands. */
#include <stdbool.h>
#include "bisect/bisect.h"
#include "bisect/bisect_judge.h"
#include "experiment/plan.h"
#include "harness/run.h"

struct bctx {
    struct run_session rs;
    struct bisect_rec rec;
    struct suite_plan plan;
    const struct suite_cell *cell;
    const struct exp_events *ev;
    bool quiet;
    struct bisect_values good, bad;     /* the endpoints' values */
    struct bisect_step_rec gstep, bstep;
    struct bisect_candidate_rec *cands; /* checked: the operator's, or stored ones of their kind */
    size_t ncands;
};

/* A progress line of the bisection: names, reasons and paths in it come
 * from apt, git, builds and the database, so the whole line is shown
 * with its control characters escaped (lib/quote.h). */
void bisect_say(const struct bctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A kernel as a batch names it (kernel = spec), and what tells it apart
 * for reuse: its key (the cell and the kernel's identity). */
int bisect_kernel_key(const struct bctx *c, const char *spec, char *key, size_t len, struct pm_err *err);
/* Measure s's kernel (s->kernel_key set) until it has its runs (an
 * endpoint) or a verdict (a step); s is stored as it goes. 0, or the exit
 * status to stop with (2, 128 + N; 3: waits for a reboot into it). */
int bisect_measure(struct bctx *c, struct bisect_step_rec *s, const char *spec, const char *label);
/* The label a candidate's runs carry: the cell's and the kernel's. */
void bisect_label(const struct bctx *c, const char *kernel, char *buf, size_t len);

/* The git kind's search, after the endpoints (bisect_git.c). */
int bisect_git_search(struct bctx *c);

/* Open the session (0, or an exit status). */
int bisect_open(struct bctx *c, const struct exp_events *ev, bool quiet);
/* Load bisection id into an open c, matched against what the operator
 * gave now (given; full: a whole new command, every field and candidate
 * compared, else --continue's or --step's words): the suite's cells and
 * the build come from given, stored values are checked before use. 0, or
 * 2 after one line. */
int bisect_load(struct bctx *c, int64_t id, const struct bisect_plan *given, bool full);
/* The id of the newest stored bisection (an unfinished one, or a git one)
 * into *id, for a command given no --id: 0, or 2 after one line naming
 * the command (what) and, when there is none, what is accepted (none). */
int bisect_latest_id(struct bctx *c, bool unfinished, bool git, const char *what, const char *none, int64_t *id);
void bisect_close(struct bctx *c);
/* Measure the endpoints (specs: their kernels; NULL: a git endpoint
 * measured before, by its stored key) and check they differ. 0, or the
 * exit status to end with. */
int bisect_endpoints(struct bctx *c, const char *gspec, const char *bspec);
/* The stored step of kernel (role), or a new one. */
int bisect_find_step(struct bctx *c, const char *role, int candidate, const char *kernel, struct bisect_step_rec *s);
int bisect_end(struct bctx *c, const char *state, const char *first_bad, const char *reason, int status);

#endif
