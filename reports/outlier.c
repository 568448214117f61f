#include "reports/outlier.h"
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double median_of(double *tmp, size_t n)
{
    gsl_sort(tmp, 1, n);
    return gsl_stats_median_from_sorted_data(tmp, 1, n);
}

int stats_outliers(const double *v, size_t n, double *z, bool *flag)
{
    for (size_t i = 0; i < n; i++) {
        flag[i] = false;
        if (z)
            z[i] = 0;
    }
    if (n < OUTLIER_MIN_RUNS)
        return 0;
    double *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    memcpy(tmp, v, n * sizeof *tmp);
    double med = median_of(tmp, n), mean_dev = 0;
    for (size_t i = 0; i < n; i++) {
        tmp[i] = fabs(v[i] - med);
        mean_dev += tmp[i] / (double)n;
    }
    double mad = median_of(tmp, n);
    free(tmp);
    /* 0.6745 is the normal's MAD in standard deviations; 0.7979 its mean
     * absolute deviation's (1 / 1.2533). */
    double scale = mad > 0 ? mad / 0.6745 : mean_dev / 0.7979;
    if (!(scale > 0))
        return 0;
    int flagged = 0;
    for (size_t i = 0; i < n; i++) {
        double s = (v[i] - med) / scale;
        if (z)
            z[i] = s;
        if (fabs(s) > OUTLIER_Z) {
            flag[i] = true;
            flagged++;
        }
    }
    return flagged;
}

void stats_fmt_z(char *buf, size_t len, double z)
{
    if (z > 9999)
        snprintf(buf, len, "z > 9999");
    else if (z < -9999)
        snprintf(buf, len, "z < -9999");
    else
        snprintf(buf, len, "z = %.1f", z);
}
