#include "reports/ratio_ci.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

struct sides {
    double ma, mb, va, vb;       /* the means, and the variances of the means (s^2 / n) */
    double dfa, dfb;             /* n - 1 */
    double level;
};

static void moments(const double *v, size_t n, double *mean, double *var_of_mean)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *var_of_mean = ss / (double)(n - 1) / (double)n;
}

/* Welch's statistic squared less its critical value squared at theta:
 * <= 0 where the test of "mean(b) = theta mean(a)" does not reject. */
static double excess(const struct sides *s, double theta)
{
    double d = s->mb - theta * s->ma, v = s->vb + theta * theta * s->va;
    double den = s->vb * s->vb / s->dfb + theta * theta * theta * theta * s->va * s->va / s->dfa;
    double df = den > 0 ? v * v / den : s->dfa + s->dfb;
    double c = gsl_cdf_tdist_Pinv(1 - (1 - s->level) / 2, df);
    return d * d - c * c * v;
}

/* Far from 0 Welch's statistic tends to mean(a) / its standard error
 * with a's degrees of freedom: where that is not significant, ratios
 * without end are accepted on both sides (the accepted set is then the
 * whole line or two rays), and no interval bounds the change. */
static bool bounded(const struct sides *s)
{
    double c = gsl_cdf_tdist_Pinv(1 - (1 - s->level) / 2, s->dfa);
    return s->ma * s->ma > c * c * s->va;
}

/* The bound of the accepted interval from theta0 (accepted) outward in
 * direction dir (+1 or -1): the step doubled until a ratio is rejected,
 * then bisected to the double's precision. Only called when bounded(). */
static double bound(const struct sides *s, double theta0, int dir)
{
    double step = fabs(theta0) * 1e-3 + 1e-300, far = theta0;
    for (;; step *= 2) {
        far = theta0 + dir * step;
        if (!isfinite(far) || excess(s, far) > 0)
            break;
    }
    if (!isfinite(far))
        return dir * INFINITY;
    double in = theta0, out = far;
    for (int i = 0; i < 200 && in != out; i++) {
        double mid = in + (out - in) / 2;
        if (mid == in || mid == out)
            break;
        if (excess(s, mid) > 0)
            out = mid;
        else
            in = mid;
    }
    return in;
}

int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level, struct ratio_ci *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->low = out->high = NAN;
    out->level = level;
    if (!(level > 0 && level < 1))
        return -1;
    if (na < 2 || nb < 2)
        return 0;
    struct sides s = { .dfa = (double)(na - 1), .dfb = (double)(nb - 1), .level = level };
    moments(a, na, &s.ma, &s.va);
    moments(b, nb, &s.mb, &s.vb);
    if (s.ma == 0 || !isfinite(s.ma) || !isfinite(s.mb))
        return 0;
    out->ratio = s.mb / s.ma;
    out->valid = true;
    if (s.va == 0 && s.vb == 0) {  /* no spread: the ratio is known exactly */
        out->low = out->high = out->ratio;
        return 0;
    }
    if (!bounded(&s)) {
        out->low = -INFINITY;
        out->high = INFINITY;
        return 0;
    }
    out->low = bound(&s, out->ratio, -1);
    out->high = bound(&s, out->ratio, +1);
    return 0;
}
