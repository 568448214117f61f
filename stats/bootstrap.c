#include "stats/bootstrap.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double mean_of(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s / (double)n;
}

static double resampled_mean(gsl_rng *r, const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[gsl_rng_uniform_int(r, n)];
    return s / (double)n;
}

/* One side's share of the acceleration: the jackknife's leave-one-out
 * ratios, their third and second moments about their mean (scipy's nums
 * and dens). */
static int jackknife_side(const double *v, size_t n, double other_mean, bool is_b, double *num, double *den)
{
    double sum = 0, *theta = calloc(n, sizeof *theta);
    if (!theta)
        return -1;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    for (size_t i = 0; i < n; i++) {
        double m = (sum - v[i]) / (double)(n - 1);
        theta[i] = is_b ? m / other_mean : other_mean / m;
    }
    double dot = mean_of(theta, n), n3 = 0, n2 = 0, nn = (double)n;
    for (size_t i = 0; i < n; i++) {
        double u = (nn - 1) * (dot - theta[i]);
        n3 += u * u * u;
        n2 += u * u;
    }
    free(theta);
    *num = n3 / (nn * nn * nn);
    *den = n2 / (nn * nn);
    return 0;
}

/* numpy's percentile with linear interpolation, of sorted values. */
static double percentile_sorted(const double *s, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return s[n - 1];
    return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

/* The BCa interval's two quantiles of the replicates. Where the bias
 * correction is unbounded (every replicate on one side of the estimate)
 * BCa has no answer: the plain percentile interval is given instead. */
static void bca_quantiles(const double *sorted, size_t nb_rep, double theta, double acc, double level, double *q1,
                          double *q2)
{
    size_t below = 0, at_or_below = 0;
    for (size_t i = 0; i < nb_rep; i++) {
        below += sorted[i] < theta;
        at_or_below += sorted[i] <= theta;
    }
    double alpha = (1 - level) / 2;
    double share = (double)(below + at_or_below) / (2.0 * (double)nb_rep);
    double z0 = gsl_cdf_ugaussian_Pinv(share), za = gsl_cdf_ugaussian_Pinv(alpha);
    if (!isfinite(z0) || !isfinite(acc)) {
        *q1 = alpha;
        *q2 = 1 - alpha;
        return;
    }
    double n1 = z0 + za, n2 = z0 - za;
    *q1 = gsl_cdf_ugaussian_P(z0 + n1 / (1 - acc * n1));
    *q2 = gsl_cdf_ugaussian_P(z0 + n2 / (1 - acc * n2));
}

int stats_boot_ratio(const double *a, size_t na, const double *b, size_t nb, unsigned resamples, uint64_t seed,
                     double level, struct boot_ci *out, double *replicates)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->low = out->high = NAN;
    out->resamples = resamples;
    out->seed = seed;
    if (na < 2 || nb < 2 || resamples == 0)
        return 0;
    double ma = mean_of(a, na), mb = mean_of(b, nb);
    if (ma == 0)
        return 0;
    out->ratio = mb / ma;
    double *rep = malloc(resamples * sizeof *rep);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rep || !r) {
        free(rep);
        if (r)
            gsl_rng_free(r);
        return -1;
    }
    gsl_rng_set(r, (unsigned long)seed);
    bool finite = true;
    for (unsigned i = 0; i < resamples; i++) {
        double ra = resampled_mean(r, a, na), rb = resampled_mean(r, b, nb);
        rep[i] = rb / ra;
        finite &= isfinite(rep[i]);
    }
    gsl_rng_free(r);
    if (replicates)
        memcpy(replicates, rep, resamples * sizeof *rep);
    if (!finite) {               /* a resample of a's runs averaged 0: no ratio to sort */
        free(rep);
        return 0;
    }
    gsl_sort(rep, 1, resamples);
    double num_a, den_a, num_b, den_b;
    if (jackknife_side(a, na, mb, false, &num_a, &den_a) < 0 || jackknife_side(b, nb, ma, true, &num_b, &den_b) < 0) {
        free(rep);
        return -1;
    }
    double den = den_a + den_b, acc = den > 0 ? (num_a + num_b) / (6 * pow(den, 1.5)) : 0;
    double q1, q2;
    bca_quantiles(rep, resamples, out->ratio, acc, level, &q1, &q2);
    out->low = percentile_sorted(rep, resamples, q1);
    out->high = percentile_sorted(rep, resamples, q2);
    out->valid = !isnan(out->low) && !isnan(out->high);
    free(rep);
    return 0;
}
