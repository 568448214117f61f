#include "stats/stats.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/units.h"

void stats_summary(double *v, size_t n, struct summary *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0)
        return;
    gsl_sort(v, 1, n);
    out->mean = gsl_stats_mean(v, 1, n);
    out->sd = n > 1 ? gsl_stats_sd_m(v, 1, n, out->mean) : 0;
    out->cv_pct = out->mean != 0 ? out->sd / fabs(out->mean) * 100.0 : 0;
    out->min = v[0];
    out->max = v[n - 1];
    out->median = gsl_stats_median_from_sorted_data(v, 1, n);
}

void stats_welch(const struct summary *a, const struct summary *b, struct welch *out)
{
    memset(out, 0, sizeof *out);
    out->diff = b->mean - a->mean;
    if (a->n < 2 || b->n < 2)
        return;
    /* t and df do not depend on the unit: computed on values scaled to
     * about 1, so that means of 1e200 (a hostile database's) do not square
     * to infinity and hand GSL a NaN. */
    double k = fmax(fmax(fabs(a->mean), fabs(b->mean)), fmax(a->sd, b->sd));
    if (!isfinite(k) || !isfinite(out->diff))
        return;
    if (k == 0)
        k = 1;
    out->valid = true;
    double sa = a->sd / k, sb = b->sd / k;
    double va = sa * sa / (double)a->n, vb = sb * sb / (double)b->n;
    double se = sqrt(va + vb);
    if (se == 0) {
        /* Both sides constant: identical means are no difference, and
         * different ones are as certain as a difference gets. */
        out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
        out->df = (double)(a->n + b->n - 2);
        out->p = out->diff == 0 ? 1.0 : 0.0;
        out->ci_low = out->ci_high = out->diff;
        return;
    }
    out->t = out->diff / k / se;
    out->df = (va + vb) * (va + vb) / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
    if (!(out->df > 0) || !isfinite(out->df))  /* squares underflowed: the pooled test's df */
        out->df = (double)(a->n + b->n - 2);
    out->p = 2.0 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
    if (out->p > 1)
        out->p = 1;
    double q = gsl_cdf_tdist_Pinv(0.975, out->df);
    out->ci_low = out->diff - q * se * k;
    out->ci_high = out->diff + q * se * k;
}

double stats_change_pct(double base, double cand, const char *direction)
{
    if (base == 0)
        return NAN;
    double pct = (cand - base) / fabs(base) * 100.0;
    return strcmp(direction, "lower") == 0 ? -pct : pct;
}

void stats_fmt_p(char *buf, size_t len, double p, bool compact)
{
    const char *sp = compact ? "" : " ";
    if (p < 0.001) {
        snprintf(buf, len, "p%s<%s0.001", sp, sp);
        return;
    }
    char v[32];
    pm_fmt_sig(v, sizeof v, p, 3);
    snprintf(buf, len, "p%s=%s%s", sp, sp, v);
}

void stats_ratio_sentence(char *buf, size_t len, const char *workload, const char *label, const char *base,
                          const struct summary *b, const struct summary *a, const struct judged_p *w,
                          const char *direction, double alpha)
{
    double ratio = a->mean != 0 ? b->mean / a->mean * 100.0 : NAN;
    char head[160], bm[64], am[64];
    /* %.6g's digits, as the reports wrote them (46053/51824, 343/371),
     * grouped as the table groups them and never in e-notation. */
    pm_fmt_sig(bm, sizeof bm, b->mean, 6);
    pm_fmt_sig(am, sizeof am, a->mean, 6);
    snprintf(head, sizeof head, "%s/%s = %.1f %%", bm, am, ratio);
    if (!w->valid) {
        if (b->n >= 2 && a->n >= 2) {
            /* Enough runs, but values whose spread a double cannot hold
             * (a square past 1e308): no test can say anything. */
            snprintf(buf, len, "%s: %s cannot be tested against %s: their values are too large to have a spread "
                     "(n = %zu/%zu)", head, label, base, b->n, a->n);
            return;
        }
        snprintf(buf, len, "%s: n too small to judge %s against %s (n = %zu/%zu; 2 runs a side at least)", head,
                 label, base, b->n, a->n);
        return;
    }
    char p[128];
    stats_fmt_judged_p(p, sizeof p, w);
    if (!(w->p_adj < alpha) || strcmp(direction, "none") == 0) {
        snprintf(buf, len, "%s: no significant difference between %s and %s (%s, n = %zu/%zu)", head, label, base, p,
                 b->n, a->n);
        return;
    }
    /* Higher-is-better metrics (msg/s, MB/s) are rates: lower means slower.
     * Lower-is-better ones (elapsed) are times: higher means slower. */
    bool worse = strcmp(direction, "higher") == 0 ? ratio < 100 : ratio > 100;
    snprintf(buf, len, "%s: %s runs %.1f %% %s with %s than with %s (%s, n = %zu/%zu)", head, workload,
             fabs(100.0 - ratio), worse ? "slower" : "faster", label, base, p, b->n, a->n);
}

double stats_ci_half(const struct summary *s, double conf)
{
    if (s->n < 2)
        return NAN;
    return gsl_cdf_tdist_Qinv((1 - conf) / 2, (double)s->n - 1) * s->sd / sqrt((double)s->n);
}

int stats_mean_ci(const double *v, size_t n, double *mean, double *ci_pct)
{
    return stats_mean_ci_conf(v, n, 0.95, mean, ci_pct);
}

int stats_mean_ci_conf(const double *v, size_t n, double conf, double *mean, double *ci_pct)
{
    *mean = 0;
    *ci_pct = NAN;
    if (n == 0)
        return 0;
    double *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    memcpy(tmp, v, n * sizeof *tmp);
    struct summary s;
    stats_summary(tmp, n, &s);
    free(tmp);
    *mean = s.mean;
    double half = stats_ci_half(&s, conf);
    if (!isnan(half) && s.mean != 0)
        *ci_pct = 100 * half / fabs(s.mean);
    return 0;
}

void stats_fmt_judged_p(char *buf, size_t len, const struct judged_p *w)
{
    char p[32];
    stats_fmt_p(p, sizeof p, w->p, false);
    int n = snprintf(buf, len, "%s%s", p, w->both ? " (the larger of Welch's and Mann-Whitney's: an outlier)" : "");
    if (w->family > 1 && n >= 0 && (size_t)n < len) {
        char adj[32];
        stats_fmt_p(adj, sizeof adj, w->p_adj, false);
        /* "p = 0.018" -> "0.018", "p < 0.001" -> "< 0.001" */
        const char *v = adj[2] == '=' ? adj + 4 : adj + 2;
        snprintf(buf + n, len - (size_t)n, ", %s %s over %zu comparisons", w->adjusted ? w->adjusted : "adjusted", v,
                 w->family);
    }
}
