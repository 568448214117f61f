#include "stats/ranktest.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ranked {
    double v;
    int side;                    /* 0: a, 1: b */
};

static int by_value(const void *x, const void *y)
{
    double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;
    return (a > b) - (a < b);
}

/* Twice each pooled value's mid-rank (an integer whatever the ties), the
 * sum of b's, and the ties' sum of t^3 - t for the normal approximation. */
static struct ranked *pool_ranks(const double *a, size_t na, const double *b, size_t nb, long *r2, long *w2,
                                 double *tie_term)
{
    size_t n = na + nb;
    struct ranked *p = malloc(n * sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i < na; i++)
        p[i] = (struct ranked){ a[i], 0 };
    for (size_t i = 0; i < nb; i++)
        p[na + i] = (struct ranked){ b[i], 1 };
    qsort(p, n, sizeof *p, by_value);
    *w2 = 0;
    *tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && p[j + 1].v == p[i].v)
            j++;
        double t = (double)(j - i + 1);
        *tie_term += t * t * t - t;
        for (size_t k = i; k <= j; k++) {
            r2[k] = (long)(i + 1 + j + 1);
            if (p[k].side)
                *w2 += r2[k];
        }
        i = j + 1;
    }
    return p;
}

/* The permutation distribution of b's doubled rank sum: how many of the
 * C(n, nb) ways to choose b's runs give each sum. Counts are doubles: past
 * 2^53 they lose digits, not magnitude (MWU_EXACT_MAX keeps them exact). */
static int exact_p(const long *r2, size_t n, size_t nb, long w2, struct mwu *out)
{
    size_t smax = (size_t)n * (n + 1);
    double *cnt = calloc((nb + 1) * (smax + 1), sizeof *cnt);
    if (!cnt)
        return -1;
    cnt[0] = 1;
    size_t reach = 0;            /* the largest sum the first i ranks make */
    for (size_t i = 0; i < n; i++) {
        for (size_t k = (i + 1 < nb ? i + 1 : nb); k >= 1; k--) {
            double *to = cnt + k * (smax + 1), *from = cnt + (k - 1) * (smax + 1);
            for (size_t s = reach + 1; s-- > 0;)
                if (from[s] != 0)
                    to[s + (size_t)r2[i]] += from[s];
        }
        reach += (size_t)r2[i];
    }
    const double *d = cnt + nb * (smax + 1);
    double total = 0, le = 0, ge = 0, first = -1, last = -1;
    for (size_t s = 0; s <= smax; s++) {
        if (d[s] == 0)
            continue;
        total += d[s];
        if (first < 0)
            first = d[s];
        last = d[s];
        if ((long)s <= w2)
            le += d[s];
        if ((long)s >= w2)
            ge += d[s];
    }
    out->exact = true;
    out->p = fmin(1.0, 2 * fmin(le, ge) / total);
    out->p_min = fmin(1.0, 2 * fmin(first, last) / total);
    free(cnt);
    return 0;
}

static void normal_p(size_t na, size_t nb, double tie_term, struct mwu *out)
{
    double n = (double)(na + nb), mu = (double)na * (double)nb / 2;
    double s = sqrt((double)na * (double)nb / 12 * ((n + 1) - tie_term / (n * (n - 1))));
    double u = fmax(out->u, (double)na * (double)nb - out->u);
    out->exact = false;
    out->p = s > 0 ? fmin(1.0, 2 * gsl_cdf_ugaussian_Q((u - mu - 0.5) / s)) : 1.0;
    /* All of one side above all of the other, with these ties. */
    out->p_min = s > 0 ? fmin(1.0, 2 * gsl_cdf_ugaussian_Q(((double)na * (double)nb - mu - 0.5) / s)) : 1.0;
}

int stats_mwu(const double *a, size_t na, const double *b, size_t nb, struct mwu *out)
{
    memset(out, 0, sizeof *out);
    out->p = out->p_min = NAN;
    if (na == 0 || nb == 0)
        return 0;
    size_t n = na + nb;
    long *r2 = malloc(n * sizeof *r2), w2;
    double tie_term;
    struct ranked *p = r2 ? pool_ranks(a, na, b, nb, r2, &w2, &tie_term) : NULL;
    if (!p) {
        free(r2);
        return -1;
    }
    free(p);
    out->valid = true;
    out->u = (double)w2 / 2 - (double)nb * (double)(nb + 1) / 2;
    int rc = 0;
    if (n <= MWU_EXACT_MAX)
        rc = exact_p(r2, n, nb, w2, out);
    else
        normal_p(na, nb, tie_term, out);
    free(r2);
    return rc;
}
