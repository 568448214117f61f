#include "stats/power.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>
#include <math.h>

/* The test statistic T = (diff / sd) / sqrt(2/n) is noncentral t with
 * nu = 2n - 2 degrees of freedom and noncentrality delta. Written as
 * (Z + delta) / sqrt(V / nu) with Z standard normal and V chi-square(nu),
 *   P(|T| > c) = E_V[ Q(c sqrt(V/nu) - delta) + P(-c sqrt(V/nu) - delta) ],
 * a smooth one-dimensional integral over V's density. */
struct nct_arg {
    double c, delta, nu;
};

static double reject_given_v(double v, void *arg)
{
    const struct nct_arg *a = arg;
    double s = a->c * sqrt(v / a->nu);
    return gsl_ran_chisq_pdf(v, a->nu) * (gsl_cdf_ugaussian_Q(s - a->delta) + gsl_cdf_ugaussian_P(-s - a->delta));
}

/* GSL's default error handler aborts the process on a numerical failure
 * (an integral that will not converge); here a failure is a NaN. */
static double rejection_probability(double c, double delta, double nu)
{
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    double result = NAN, abserr = 0;
    if (w) {
        struct nct_arg a = { c, delta, nu };
        gsl_function f = { reject_given_v, &a };
        /* V's mass lies within a few standard deviations (sqrt(2 nu)) of
         * nu; 40 of them leave out less than 1e-18 of it, also for nu = 2,
         * where V is exponential. An interval the mass fills keeps the
         * adaptive rule from missing a narrow peak for large nu. */
        double sd = sqrt(2 * nu), lo = nu - 40 * sd, hi = nu + 40 * sd + 40;
        int rc = gsl_integration_qag(&f, lo > 0 ? lo : 0, hi, 1e-14, 1e-11, 1000, GSL_INTEG_GAUSS61, w, &result,
                                     &abserr);
        if (rc != GSL_SUCCESS && !(abserr < 1e-9))
            result = NAN;
        gsl_integration_workspace_free(w);
    }
    gsl_set_error_handler(old);
    return result > 1 ? 1 : result;
}

double stats_power(double cv_pct, double change_pct, unsigned n, double alpha)
{
    if (n < 2 || !(cv_pct > 0) || !(alpha > 0 && alpha < 1) || !isfinite(change_pct) || !isfinite(cv_pct))
        return NAN;
    double nu = 2.0 * n - 2;
    double c = gsl_cdf_tdist_Qinv(alpha / 2, nu);
    double delta = fabs(change_pct) / (cv_pct * sqrt(2.0 / n));
    return rejection_probability(c, delta, nu);
}

struct detect_arg {
    double cv, alpha, power;
    unsigned n;
};

static double power_short(double change, void *arg)
{
    const struct detect_arg *a = arg;
    return stats_power(a->cv, change, a->n, a->alpha) - a->power;
}

/* Brent's method on [0, hi], where the power goes from alpha (below the
 * wanted one) to at least the wanted one. */
static double solve_change(struct detect_arg *a, double hi)
{
    gsl_function f = { power_short, a };
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return NAN;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    double root = NAN;
    if (gsl_root_fsolver_set(s, &f, 0, hi) == GSL_SUCCESS) {
        for (int i = 0; i < 200; i++) {
            if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
                break;
            double lo = gsl_root_fsolver_x_lower(s), up = gsl_root_fsolver_x_upper(s);
            if (gsl_root_test_interval(lo, up, 0, 1e-12) == GSL_SUCCESS) {
                root = gsl_root_fsolver_root(s);
                break;
            }
        }
    }
    gsl_set_error_handler(old);
    gsl_root_fsolver_free(s);
    return root;
}

double stats_detectable_pct(double cv_pct, unsigned n, double alpha, double power)
{
    if (n < 2 || !(cv_pct > 0) || !isfinite(cv_pct) || !(alpha > 0 && alpha < 1) || !(power > alpha && power < 1))
        return NAN;
    struct detect_arg a = { cv_pct, alpha, power, n };
    /* Double the change until the test sees it often enough: the power
     * rises from alpha at no change towards 1. */
    double hi = cv_pct;
    for (int i = 0; i < 64; i++, hi *= 2) {
        double g = power_short(hi, &a);
        if (isnan(g))
            return NAN;
        if (g >= 0)
            return solve_change(&a, hi);
    }
    return NAN;
}

unsigned stats_runs_needed(double cv_pct, double change_pct, double alpha, double power, unsigned max_runs)
{
    if (max_runs < 2 || !(power > alpha && power < 1) || !(change_pct != 0))
        return 0;
    /* The power rises with n (a larger noncentrality, more degrees of
     * freedom): the least n that reaches it, by bisection. */
    double top = stats_power(cv_pct, change_pct, max_runs, alpha);
    if (isnan(top) || top < power)
        return 0;
    unsigned lo = 2, hi = max_runs;     /* hi reaches it */
    if (stats_power(cv_pct, change_pct, lo, alpha) >= power)
        return lo;
    while (hi - lo > 1) {               /* lo does not reach it */
        unsigned mid = lo + (hi - lo) / 2;
        if (stats_power(cv_pct, change_pct, mid, alpha) >= power)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}
