#include "stats/geomean.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

void stats_geomean(const double *ratio, const double *log_se, size_t n, double level, struct geomean *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->low = out->high = NAN;
    out->n = n;
    if (n == 0)
        return;
    double sum = 0, var = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(ratio[i] > 0) || !isfinite(ratio[i]) || isnan(log_se[i]))
            return;
        sum += log(ratio[i]);
        var += log_se[i] * log_se[i];
    }
    double m = sum / (double)n, se = sqrt(var) / (double)n;
    double z = gsl_cdf_ugaussian_Pinv(1 - (1 - level) / 2);
    out->valid = true;
    out->ratio = exp(m);
    out->low = exp(m - z * se);
    out->high = exp(m + z * se);
}

double stats_log_ratio_se(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b)
{
    if (n_a < 2 || n_b < 2 || mean_a == 0 || mean_b == 0)
        return NAN;
    double ca = sd_a / mean_a, cb = sd_b / mean_b;
    return sqrt(ca * ca / (double)n_a + cb * cb / (double)n_b);
}

double stats_hmean(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double inv = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] > 0))
            return NAN;
        inv += 1 / v[i];
    }
    return (double)n / inv;
}
