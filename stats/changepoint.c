#include "stats/changepoint.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A permutation that puts the same values on each side as the observed
 * split sums the same distances in another order; rounding must not
 * count it as weaker than the observed split (a step of ties would get
 * a p too small). Far below any difference that means something. */
#define CP_TIE_SLACK 1e-9

void cp_opts_default(struct cp_opts *o)
{
    /* From bench/changepoints.sh's figures (docs/change-points.md): 2
     * points a side let a step be confirmed on its second night, and with
     * p <= 0.05 the nightly's gate (window 5) still raised well under 1
     * false alarm in 100 nights on the pool's runs; 199 permutations
     * resolve p to 0.005, ten times finer than max_p. */
    *o = (struct cp_opts){ .min_size = 2, .max_p = 0.05, .permutations = 199, .seed = 20261202ul };
}

/* Q of a split from its three distance sums (Matteson & James 2014, alpha
 * = 1): the mean distance across the split less the mean distances
 * within each side, weighted by n1 n2 / (n1 + n2) so that long sides
 * count for more. */
static double split_q(double cross, double within_x, double within_y, size_t n1, size_t n2)
{
    double a = (double)n1, b = (double)n2;
    double e = 2 * cross / (a * b) - 2 * within_x / (a * (a - 1)) - 2 * within_y / (b * (b - 1));
    return a * b / (a + b) * e;
}

/* Each point's distance sums to the points before it (lo) and after it
 * (hi) in z[0..m); both sum to the whole within-segment sum. */
static double distance_sums(const double *z, size_t m, double *lo, double *hi)
{
    double all = 0;
    for (size_t j = 0; j < m; j++)
        lo[j] = hi[j] = 0;
    for (size_t j = 1; j < m; j++) {
        double s = 0, v = z[j];
        for (size_t i = 0; i < j; i++) {
            double d = fabs(v - z[i]);
            s += d;
            hi[i] += d;
        }
        lo[j] = s;
        all += s;
    }
    return all;
}

/* The best split of z[0..m) with min_size points a side, the segment's
 * end fixed at its end (MongoDB's variant: kappa is not searched): its
 * Q, and in *tau the first point after it; -INFINITY when the segment is
 * too short. Moving the split one point right moves that point's
 * distances from the right side's sum to the cross sum and from the
 * cross sum to the left side's, so all splits cost O(m^2) together. The
 * first of equal maxima wins. */
static double best_split(const double *z, size_t m, size_t min_size, double *lo, double *hi, size_t *tau)
{
    double best = -INFINITY;
    *tau = 0;
    if (m < 2 * min_size)
        return best;
    double within_y = distance_sums(z, m, lo, hi), within_x = 0, cross = 0;
    for (size_t t = 1; t + min_size <= m; t++) {
        within_x += lo[t - 1];
        within_y -= hi[t - 1];
        cross += hi[t - 1] - lo[t - 1];
        if (t < min_size)
            continue;
        double q = split_q(cross, within_x, within_y, t, m - t);
        if (q > best) {
            best = q;
            *tau = t;
        }
    }
    return best;
}

/* One detection's state: the series scaled to [-1, 1] (Q scales with
 * the values, so neither the split nor p depends on the scale, and no
 * distance sum can overflow), the change points found so far, sorted,
 * and scratch space. */
struct cp_work {
    const struct cp_opts *o;
    size_t n;
    double scale;
    double *z, *perm, *lo, *hi;
    size_t *bound;               /* 0, the change points, n */
    size_t nbound;
    struct cp_change *found;     /* sorted by at */
    size_t nfound;
};

/* The strongest split over all segments of z between the bounds; *at its
 * index in the series. -INFINITY when no segment can be split. */
static double best_over(const struct cp_work *w, const double *z, size_t *at)
{
    double best = -INFINITY;
    *at = 0;
    for (size_t s = 0; s + 1 < w->nbound; s++) {
        size_t a = w->bound[s], tau;
        double q = best_split(z + a, w->bound[s + 1] - a, w->o->min_size, w->lo, w->hi, &tau);
        if (q > best) {
            best = q;
            *at = a + tau;
        }
    }
    return best;
}

/* The permutation test of a candidate of strength q (Matteson & James's):
 * the points shuffled within each segment found so far, the strongest
 * split of the shuffled series taken as the candidate would have been,
 * p = (1 + #{at least as strong}) / (1 + R). A test that cannot reach
 * max_p any more stops early: its p is then NAN, the candidate is
 * rejected, and only a kept change's p is ever shown. */
static double permutation_p(struct cp_work *w, gsl_rng *r, double q)
{
    unsigned reps = w->o->permutations, over = 0;
    memcpy(w->perm, w->z, w->n * sizeof *w->perm);
    for (unsigned i = 0; i < reps; i++) {
        for (size_t s = 0; s + 1 < w->nbound; s++)
            gsl_ran_shuffle(r, w->perm + w->bound[s], w->bound[s + 1] - w->bound[s], sizeof *w->perm);
        size_t at;
        if (best_over(w, w->perm, &at) >= q * (1 - CP_TIE_SLACK))
            over++;
        if ((1.0 + over) / (1.0 + reps) > w->o->max_p)
            return NAN;
    }
    return (1.0 + over) / (1.0 + reps);
}

static double mean_of(const double *z, size_t a, size_t b)
{
    double s = 0;
    for (size_t i = a; i < b; i++)
        s += z[i];
    return s / (double)(b - a);
}

/* A kept change joins the sorted list and splits its segment. */
static void add_change(struct cp_work *w, size_t at, double p, double q)
{
    size_t i = w->nfound;
    while (i > 0 && w->found[i - 1].at > at) {
        w->found[i] = w->found[i - 1];
        i--;
    }
    w->found[i] = (struct cp_change){ .at = at, .p = p, .q = q * w->scale };
    w->nfound++;
    w->bound[0] = 0;
    for (size_t k = 0; k < w->nfound; k++)
        w->bound[k + 1] = w->found[k].at;
    w->bound[w->nfound + 1] = w->n;
    w->nbound = w->nfound + 2;
}

/* Each change's means over the final segments around it: the level
 * before and after as the whole history sees it. */
static void fill_means(struct cp_work *w)
{
    for (size_t k = 0; k < w->nfound; k++) {
        struct cp_change *c = &w->found[k];
        double before = mean_of(w->z, w->bound[k], w->bound[k + 1]);
        double after = mean_of(w->z, w->bound[k + 1], w->bound[k + 2]);
        c->mean_before = before * w->scale;
        c->mean_after = after * w->scale;
        c->change_pct = before == 0 ? NAN : (after - before) / fabs(before) * 100;
    }
}

static int check_opts(const struct cp_opts *o, struct pm_err *err)
{
    if (!o)
        return pm_errf(err, "change points: no options");
    if (o->min_size < 2)
        return pm_errf(err, "change points: min_size %zu: at least 2 points a side (a side's spread needs 2)",
                       o->min_size);
    if (o->permutations == 0)
        return pm_errf(err, "change points: no permutations to test a change with");
    if (!(o->max_p > 0 && o->max_p <= 1))
        return pm_errf(err, "change points: max_p %g is not in (0, 1]", o->max_p);
    if (o->max_p < 1.0 / (1.0 + o->permutations))
        return pm_errf(err,
                       "change points: max_p %g is below the least p %u permutations can give (%g): no change "
                       "could be kept",
                       o->max_p, o->permutations, 1.0 / (1.0 + o->permutations));
    return 0;
}

/* x scaled by its largest magnitude into w->z (an all-zero series as it
 * is); -1: a value is not finite. */
static int scale_series(const double *x, size_t n, struct cp_work *w)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return -1;
        m = fmax(m, fabs(x[i]));
    }
    w->scale = m > 0 ? m : 1;
    for (size_t i = 0; i < n; i++)
        w->z[i] = x[i] / w->scale;
    return 0;
}

static void free_work(struct cp_work *w)
{
    free(w->z);
    free(w->perm);
    free(w->lo);
    free(w->hi);
    free(w->bound);
}

static int alloc_work(struct cp_work *w, size_t n, struct cp_change **out)
{
    size_t cells = n ? n : 1;
    if (cells > SIZE_MAX / sizeof(struct cp_change) - 2)
        return -1;
    w->z = malloc(cells * sizeof *w->z);
    w->perm = malloc(cells * sizeof *w->perm);
    w->lo = malloc(cells * sizeof *w->lo);
    w->hi = malloc(cells * sizeof *w->hi);
    w->bound = malloc((cells + 2) * sizeof *w->bound);
    *out = malloc(cells * sizeof **out);
    if (!w->z || !w->perm || !w->lo || !w->hi || !w->bound || !*out) {
        free_work(w);
        free(*out);
        *out = NULL;
        return -1;
    }
    w->found = *out;
    w->n = n;
    w->bound[0] = 0;
    w->bound[1] = n;
    w->nbound = 2;
    return 0;
}

/* Hierarchical: the strongest split over all segments is tested; kept,
 * it splits its segment and the next strongest is tried; the first that
 * fails ends the search (Matteson & James's E-Divisive; MongoDB's and
 * Otava's loop). A split no stronger than 0 separates nothing. */
static int divide(struct cp_work *w, struct pm_err *err)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return pm_errf(err, "change points: out of memory");
    gsl_rng_set(r, w->o->seed);
    for (;;) {
        size_t at;
        double q = best_over(w, w->z, &at);
        if (!(q > 0))
            break;
        double p = permutation_p(w, r, q);
        if (!(p <= w->o->max_p))
            break;
        add_change(w, at, p, q);
    }
    gsl_rng_free(r);
    fill_means(w);
    return 0;
}

int cp_detect(const double *x, size_t n, const struct cp_opts *o, struct cp_change **out, size_t *nout,
              struct pm_err *err)
{
    if (!out || !nout || (n && !x))
        return pm_errf(err, "change points: no series or no place for the result");
    *out = NULL;
    *nout = 0;
    if (check_opts(o, err) < 0)
        return -1;
    struct cp_work w = { .o = o };
    if (alloc_work(&w, n, out) < 0)
        return pm_errf(err, "change points: out of memory for %zu points", n);
    int rc = scale_series(x, n, &w) < 0 ? pm_errf(err, "change points: a value is not a finite number")
                                         : divide(&w, err);
    free_work(&w);
    if (rc < 0) {
        free(*out);
        *out = NULL;
        return -1;
    }
    *nout = w.nfound;
    return 0;
}

int cp_qhat(const double *x, size_t n, double *q, struct pm_err *err)
{
    if (n && (!x || !q))
        return pm_errf(err, "change points: no series or no place for the result");
    struct cp_change *unused = NULL;
    struct cp_work w = { 0 };
    if (alloc_work(&w, n, &unused) < 0)
        return pm_errf(err, "change points: out of memory for %zu points", n);
    free(unused);
    if (scale_series(x, n, &w) < 0) {
        free_work(&w);
        return pm_errf(err, "change points: a value is not a finite number");
    }
    double within_y = distance_sums(w.z, n, w.lo, w.hi), within_x = 0, cross = 0;
    for (size_t t = 0; t < n; t++) {
        if (t > 0) {
            within_x += w.lo[t - 1];
            within_y -= w.hi[t - 1];
            cross += w.hi[t - 1] - w.lo[t - 1];
        }
        q[t] = t >= 2 && t + 2 <= n ? split_q(cross, within_x, within_y, t, n - t) * w.scale : NAN;
    }
    free_work(&w);
    return 0;
}

long cp_gate_find(const struct cp_change *c, size_t nc, size_t npoints, const struct cp_gate *g)
{
    if (!g || (nc && !c) || (g->direction != 1 && g->direction != -1))
        return -1;
    size_t from = g->window < npoints ? npoints - g->window : 0;
    for (size_t i = nc; i-- > 0;) {
        double worse = g->direction > 0 ? -c[i].change_pct : c[i].change_pct;
        if (c[i].at >= from && c[i].at < npoints && worse > 0 && fabs(c[i].change_pct) >= g->threshold_pct)
            return (long)i;
    }
    return -1;
}
