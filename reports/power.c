/* TEMPORARY */
#include "reports/power.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
double stats_power(double cv_pct, double change_pct, unsigned n, double alpha) { (void)cv_pct; (void)change_pct; (void)n; (void)alpha; return NAN; }
double stats_detectable_pct(double cv_pct, unsigned n, double alpha, double power)
{
    if (n < 2 || !(cv_pct > 0)) return NAN;
    double df = 2.0 * n - 2;
    return (gsl_cdf_tdist_Pinv(1 - alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df)) * sqrt(2.0 / n) * cv_pct;
}
unsigned stats_runs_needed(double cv_pct, double change_pct, double alpha, double power, unsigned max_runs) { (void)cv_pct; (void)change_pct; (void)alpha; (void)power; (void)max_runs; return 0; }
