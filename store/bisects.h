#ifndef PM_BISECTS_H
#define PM_BISECTS_H
/* Bisections in results.db: what was asked, the candidates in order, the
 * steps with their verdicts, and the batches of runs (one suite a boot)
 * each kernel of a cell was measured in. What a step's runs say is read
 * from the batches' suites, so nothing is counted twice. */
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include "store/db.h"

struct bisect_rec {
    int64_t id;
    char uuid[40];
    char key[24];               /* what makes two invocations the same bisection */
    char suite_path[PATH_MAX];  /* realpath()'s, whole */
    char *suite_text;           /* owned */
    char cell[256], metric[96], kind[16];
    char good[1024], bad[1024]; /* a package name, a package file (a kernel = value: < 256) or a commit */
    char repo[PATH_MAX], build[1024];
    int runs, max_runs;
    double alpha;
    char state[16];             /* running, done, no-difference, failed */
    char first_bad[1024];
    char reason[1024];
};

struct bisect_candidate_rec {
    char kernel[1024];          /* as a kernel = names it, or a commit */
    char version[192];          /* the package's version; "" for files and commits */
};

struct bisect_step_rec {
    int seq;
    char role[8];               /* good, bad, step */
    int candidate;              /* index into the candidates; -1 for endpoints and git */
    char kernel[1024];
    char kernel_key[24];        /* "" until known (a git step before its build) */
    int runs, boots;
    bool has_mean;
    double mean, p_good, p_bad; /* NaN: not tested */
    char verdict[16];           /* "" while it runs */
    char reason[1024];
};

void store_bisect_rec_free(struct bisect_rec *b);
/* Insert b (uuid made here, state running) and its candidates cands[0..n)
 * by index, in one transaction: all or nothing. Sets b->id; 0 on a
 * failure (nothing was kept). */
int bisects_create(struct pm_db *db, struct bisect_rec *b, const struct bisect_candidate_rec *cands, size_t n,
                   struct pm_err *err);
/* Bisection id (1), none (0), or -1. */
int bisects_get(struct pm_db *db, int64_t id, struct bisect_rec *out, struct pm_err *err);
/* The newest bisection with this key (1), none (0), or -1. */
int bisects_by_key(struct pm_db *db, const char *key, struct bisect_rec *out, struct pm_err *err);
/* The newest bisection still running (1), none (0), or -1; git_only: of kind git. */
int bisects_latest(struct pm_db *db, bool running_only, bool git_only, struct bisect_rec *out, struct pm_err *err);
int bisects_finish(struct pm_db *db, int64_t id, const char *state, const char *first_bad, const char *reason,
                   struct pm_err *err);

/* Every candidate by index; *v allocated. */
int bisects_candidates(struct pm_db *db, int64_t id, struct bisect_candidate_rec **v, size_t *n, struct pm_err *err);

/* A new step (seq is the next one; verdict empty); s->seq set. */
int bisects_add_step(struct pm_db *db, int64_t id, struct bisect_step_rec *s, struct pm_err *err);
/* Its kernel key, figures and, when decided, verdict and reason. */
int bisects_update_step(struct pm_db *db, int64_t id, const struct bisect_step_rec *s, struct pm_err *err);
/* Every step by seq; *v allocated. */
int bisects_steps(struct pm_db *db, int64_t id, struct bisect_step_rec **v, size_t *n, struct pm_err *err);

/* The batches of a kernel (of a cell): their number, and the text and
 * suite name of batch n (1 when there, 0 when not). */
int bisects_batch_count(struct pm_db *db, const char *kernel_key, int *n, struct pm_err *err);
int bisects_batch_get(struct pm_db *db, const char *kernel_key, int n, char *name, size_t namelen, char **text,
                      struct pm_err *err);
int bisects_batch_add(struct pm_db *db, const char *kernel_key, int n, const char *name, const char *text,
                      struct pm_err *err);
/* What the batches of a kernel gave: the metric's value of each ok run
 * (oldest first; *v allocated), how many batches finished (boots), and
 * the reason of the latest failed run ("" when none failed). */
struct bisect_values {
    double *v;
    size_t n;
    int boots, failed;
    char reason[1024];
};
int bisects_values(struct pm_db *db, const char *kernel_key, const char *metric, struct bisect_values *out,
                   struct pm_err *err);
/* A run of the kernel's batches, for its metadata (kconfig.*): 0 none. */
int bisects_any_run(struct pm_db *db, const char *kernel_key, int64_t *run_id, struct pm_err *err);

#endif
