#ifndef PM_RATIO_CI_H
#define PM_RATIO_CI_H
/* The confidence interval of a change as a ratio of means, mean(b) /
 * mean(a), that the verdict's own test inverts: every ratio theta that
 * Welch's t-test of "mean(b) = theta mean(a)" does not reject at 1 -
 * level, with Welch's degrees of freedom at each theta (Fieller's theorem
 * for two independent samples). So the interval leaves out 1 exactly
 * when Welch's p is below 1 - level, and its coverage is that test's:
 * measured on real A/A splits (bench/verdicts.sh, docs/guide/reports.md)
 * where the BCa bootstrap of the same ratio covered "no change" about
 * 90 % of the time at 3 to 10 runs a side for its nominal 95 (issue 43).
 * Deterministic: no resampling. */
#include <stdbool.h>
#include <stddef.h>

struct ratio_ci {
    bool valid;                  /* false: a side has fewer than 2 runs, or a's mean is 0 */
    double ratio;                /* mean(b) / mean(a) */
    double low, high;            /* -INFINITY / INFINITY where the test rejects no ratio that far out:
                                    a's mean is not told from 0 at this level */
    double level;                /* 0.95 for a 95 % interval */
};

/* -1 on a bad level (not in (0, 1)). */
int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level, struct ratio_ci *out);

#endif
