#ifndef PM_CHANGEPOINT_H
#define PM_CHANGEPOINT_H
/* Change points in a metric's history (issue 31): E-Divisive means
 * (Matteson & James 2014, the energy statistic, with the segment's end
 * fixed at the series' end as MongoDB's CI and Apache Otava do), each
 * candidate kept only when a permutation test finds it significant, found
 * hierarchically (the strongest remaining candidate first). One night
 * against the last sees noise as often as change; a history sees where
 * its level moved. Deterministic for a given seed. */
#include <stddef.h>

#include "lib/err.h"

/* points: one value per night (or suite run), oldest first: the history's group means. */
struct cp_opts {
    size_t min_size;        /* points on each side of a change, at least (default you choose, >= 2) */
    double max_p;           /* a change is kept when its permutation p <= max_p */
    unsigned permutations;  /* permutations per test */
    unsigned long seed;     /* the same seed, the same answer */
};
void cp_opts_default(struct cp_opts *o);
struct cp_change {
    size_t at;              /* index of the first point after the change */
    double mean_before;     /* mean of the segment before it (from the previous change point) */
    double mean_after;      /* mean of the segment after it (to the next change point) */
    double change_pct;      /* (mean_after - mean_before) / |mean_before| * 100; NAN when mean_before is 0 */
    double p;               /* the permutation p-value of this change */
    double q;               /* the statistic */
};
/* Change points of x[0..n), sorted by at. *out is malloc'd (free it), *nout their number. -1 with err on bad options or allocation failure. Non-finite x is an error. */
int cp_detect(const double *x, size_t n, const struct cp_opts *o, struct cp_change **out, size_t *nout, struct pm_err *err);

/* The nightly's gate: does a change point in the last `window` points, in the worse direction (direction +1: higher is better, -1: lower is better), whose |change_pct| >= threshold_pct, exist? Returns the index in c of the most recent such change, or -1. */
struct cp_gate { size_t window; double threshold_pct; int direction; };
long cp_gate_find(const struct cp_change *c, size_t nc, size_t npoints, const struct cp_gate *g);

/* Further notes on the above. cp_detect: on success *out is never NULL,
 * also when *nout is 0 (free it either way); a candidate whose Q is not
 * above 0 (a constant series) separates nothing and is never tested; a
 * candidate's test stops as soon as its p cannot reach max_p, so only a
 * kept change has a p. cp_gate_find: a change counts when its at is one
 * of the last window points (at >= npoints - window); a direction other
 * than +1 or -1 (a metric with no better direction) has no worse side,
 * so it returns -1: the nightly gates only metrics that have one. */

/* The statistic for every split of the whole series (no segments, no
 * test): q[t] is Q of x[0..t) against x[t..n) for 2 <= t <= n - 2, NAN at
 * the other t (a side of one point has no spread). For charts and for
 * checks against another implementation. -1 with err on a non-finite x
 * or allocation failure. */
int cp_qhat(const double *x, size_t n, double *q, struct pm_err *err);

#endif
