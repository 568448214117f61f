#include "stats/ratio_ci.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A side's mean and the variance of its mean (s^2 / n), of the values
 * divided by scale (so that neither squares overflow nor tiny values
 * underflow to no spread at all); -1 when a value is not finite. */
static int moments(const double *v, size_t n, double scale, double *mean, double *var_of_mean)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return -1;
        s += v[i] / scale;
    }
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = v[i] / scale - *mean;
        ss += d * d;
    }
    *var_of_mean = ss / (double)(n - 1) / (double)n;
    return 0;
}

/* The largest magnitude of either sample: the unit the sums are made in.
 * The ratio, and Welch's statistic at every ratio, do not depend on it. */
static double common_scale(const double *a, size_t na, const double *b, size_t nb)
{
    double m = 0;
    for (size_t i = 0; i < na; i++)
        m = fmax(m, fabs(a[i]));
    for (size_t i = 0; i < nb; i++)
        m = fmax(m, fabs(b[i]));
    return m > 0 && isfinite(m) ? m : 1;
}

/* The roots of A t^2 - 2 B t + C, where the discriminant B^2 - A C is D
 * (>= 0), smaller first; computed so that neither loses its digits to a
 * cancellation. */
static void roots(double A, double B, double C, double D, double *lo, double *hi)
{
    double q = B + copysign(sqrt(D), B);
    double r1 = q / A, r2 = q != 0 ? C / q : B / A;
    *lo = fmin(r1, r2);
    *hi = fmax(r1, r2);
}

int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level, struct ratio_ci *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->low = out->high = NAN;
    out->level = level;
    out->shape = RATIO_CI_ALL;
    if (!(level > 0 && level < 1))
        return -1;
    if (na < 2 || nb < 2)
        return 0;
    double k = common_scale(a, na, b, nb), ma, mb, va, vb;
    if (moments(a, na, k, &ma, &va) < 0 || moments(b, nb, k, &mb, &vb) < 0 || ma == 0)
        return 0;
    out->ratio = mb / ma;
    out->valid = true;
    if (va == 0 && vb == 0) {    /* no spread: the ratio is known exactly */
        out->shape = RATIO_CI_INTERVAL;
        out->low = out->high = out->ratio;
        return 0;
    }
    /* Welch's test of the two means: its degrees of freedom, and the t
     * that p = 1 - level takes there. */
    double df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    double c = gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, df), c2 = c * c;
    /* theta is kept where (mb - theta ma)^2 <= c^2 (vb + theta^2 va):
     * A theta^2 - 2 B theta + C <= 0. */
    double A = ma * ma - c2 * va, B = ma * mb, C = mb * mb - c2 * vb;
    double D = c2 * (ma * ma * vb + mb * mb * va - c2 * va * vb);
    if (A > 0) {                 /* a's mean told from 0: an interval (D > 0 then) */
        out->shape = RATIO_CI_INTERVAL;
        roots(A, B, C, fmax(D, 0), &out->low, &out->high);
    } else if (A < 0 && D > 0) { /* two rays: all but an interval */
        out->shape = RATIO_CI_OUTSIDE;
        roots(A, B, C, D, &out->low, &out->high);
    }
    return 0;
}

bool ratio_ci_excludes(const struct ratio_ci *ci, double theta)
{
    if (!ci->valid)
        return false;
    switch (ci->shape) {
    case RATIO_CI_INTERVAL:
        return theta < ci->low || theta > ci->high;
    case RATIO_CI_OUTSIDE:
        return theta > ci->low && theta < ci->high;
    default:
        return false;
    }
}

void ratio_ci_fmt_pct(char *buf, size_t len, const struct ratio_ci *ci)
{
    if (!ci->valid)
        snprintf(buf, len, "-");
    else if (ci->shape == RATIO_CI_INTERVAL)
        snprintf(buf, len, "[%.1f%%, %.1f%%]", 100 * ci->low, 100 * ci->high);
    else if (ci->shape == RATIO_CI_OUTSIDE)
        snprintf(buf, len, "all but (%.1f%%, %.1f%%)", 100 * ci->low, 100 * ci->high);
    else
        snprintf(buf, len, "any ratio");
}

const char *ratio_ci_shape_name(enum ratio_ci_shape s)
{
    return s == RATIO_CI_INTERVAL ? "interval" : s == RATIO_CI_OUTSIDE ? "outside" : "all";
}
