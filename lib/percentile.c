#include "lib/percentile.h"
#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

double pm_percentile_i64(int64_t *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    double rank = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)rank;
    if (lo >= n - 1)
        return (double)v[n - 1];
    double frac = rank - (double)lo;
    return (double)v[lo] + frac * (double)(v[lo + 1] - v[lo]);
}
