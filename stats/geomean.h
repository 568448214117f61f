#ifndef PM_GEOMEAN_H
#define PM_GEOMEAN_H
/* Summaries across workloads, as SPEC and mmtests report them: the
 * geometric mean of each workload's ratio to the baseline (the only mean
 * of ratios that does not depend on which side is the reference), and
 * the harmonic mean for rates of equal work (runs that each send the same
 * messages: their mean rate is total work over total time). */
#include <stdbool.h>
#include <stddef.h>

struct geomean {
    bool valid;                  /* false: no ratio, or one not above 0 */
    size_t n;
    double ratio, low, high;     /* the geometric mean and its interval */
};

/* ratio[i]: workload i's ratio; log_se[i]: the standard error of its
 * logarithm, from its runs (the delta method: sqrt(cv_b^2/n_b +
 * cv_a^2/n_a), cv as fractions). The interval is the normal one on the
 * logarithms' mean, the workloads' errors independent. */
void stats_geomean(const double *ratio, const double *log_se, size_t n, double level, struct geomean *out);

/* The standard error of log(mean_b / mean_a) from the two sides' runs. */
double stats_log_ratio_se(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b);

/* NaN when a value is not above 0 or n is 0. */
double stats_hmean(const double *v, size_t n);

#endif
