#include "stats/trend.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct at {
    double v;
    size_t i;
};

static int by_v(const void *x, const void *y)
{
    double a = ((const struct at *)x)->v, b = ((const struct at *)y)->v;
    return (a > b) - (a < b);
}

int stats_trend(const double *v, size_t n, struct trend *out)
{
    memset(out, 0, sizeof *out);
    out->rho = out->p = NAN;
    if (n < TREND_MIN_RUNS)
        return 0;
    struct at *s = malloc(n * sizeof *s);
    double *rank = malloc(n * sizeof *rank), *order = malloc(n * sizeof *order);
    if (!s || !rank || !order) {
        free(s);
        free(rank);
        free(order);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        s[i] = (struct at){ v[i], i };
        order[i] = (double)(i + 1);
    }
    qsort(s, n, sizeof *s, by_v);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && s[j + 1].v == s[i].v)
            j++;
        for (size_t k = i; k <= j; k++)
            rank[s[k].i] = (double)(i + j + 2) / 2;
        i = j + 1;
    }
    /* Spearman's rho is Pearson's r of the ranks. */
    double rho = gsl_stats_correlation(order, 1, rank, 1, n);
    free(s);
    free(rank);
    free(order);
    if (isnan(rho))              /* every run the same: no trend to speak of */
        return 0;
    out->valid = true;
    out->rho = rho;
    double df = (double)n - 2, den = (1 - rho) * (1 + rho);
    out->p = den <= 0 ? 0 : fmin(1.0, 2 * gsl_cdf_tdist_Q(fabs(rho) * sqrt(df / den), df));
    return 0;
}
