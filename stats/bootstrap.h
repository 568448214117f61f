#ifndef PM_BOOTSTRAP_H
#define PM_BOOTSTRAP_H
/* A bootstrap confidence interval of the change: the ratio of b's mean to
 * a's, each side resampled on its own, the interval bias-corrected and
 * accelerated (BCa, Efron 1987) as scipy.stats.bootstrap computes it. It
 * assumes nothing of the runs' distribution. Seeded: the same runs, count
 * and seed give the same interval on every machine. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOOT_DEFAULT_RESAMPLES 2000
#define BOOT_DEFAULT_SEED 20261202u

struct boot_ci {
    bool valid;                  /* false: a side has < 2 runs, or a's mean is 0 */
    double ratio;                /* mean(b) / mean(a) */
    double low, high;            /* the interval of the ratio */
    unsigned resamples;
    uint64_t seed;
};

/* level: 0.95 for a 95% interval. replicates: NULL, or room for
 * resamples ratios (in resampling order) for a check against another
 * implementation. -1 out of memory. */
int stats_boot_ratio(const double *a, size_t na, const double *b, size_t nb, unsigned resamples, uint64_t seed,
                     double level, struct boot_ci *out, double *replicates);

#endif
