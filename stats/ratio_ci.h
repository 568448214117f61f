#ifndef PM_RATIO_CI_H
#define PM_RATIO_CI_H
/* The confidence set of a change as a ratio of means, mean(b) / mean(a),
 * that the verdict's own test inverts: every ratio theta that Welch's
 * t-test of "mean(b) = theta mean(a)" does not reject at 1 - level, the
 * degrees of freedom held at those of Welch's test of the two means
 * (Fieller's theorem for two independent samples). So it leaves out 1
 * exactly when Welch's p is below 1 - level, and its coverage is that
 * test's: measured on real A/A splits (bench/verdicts.sh,
 * docs/guide/reports.md) where the BCa bootstrap of the same ratio
 * covered "no change" 78 to 92 % of the time at 3 to 10 runs a side for
 * its nominal 95 (issue 43). Closed form, no resampling. Where a's mean
 * cannot be told from 0 at this level, the set is not an interval: all
 * ratios but those of an interval (RATIO_CI_OUTSIDE), or every ratio
 * (RATIO_CI_ALL). */
#include <stdbool.h>
#include <stddef.h>

enum ratio_ci_shape {
    RATIO_CI_INTERVAL,           /* [low, high] */
    RATIO_CI_OUTSIDE,            /* every ratio but those inside (low, high) */
    RATIO_CI_ALL,                /* no ratio is left out; low and high NAN */
};

struct ratio_ci {
    bool valid;                  /* false: a side has fewer than 2 runs, a's mean is 0, or a value is not finite */
    double ratio;                /* mean(b) / mean(a) */
    enum ratio_ci_shape shape;
    double low, high;
    double level;                /* 0.95 for a 95 % set */
};

/* -1 on a bad level (not in (0, 1)). */
int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level, struct ratio_ci *out);

/* Whether the set leaves out theta (1: "no change"). */
bool ratio_ci_excludes(const struct ratio_ci *ci, double theta);

/* For people, in percent of a's mean: "[97.2%, 104.1%]", "all but
 * (61.0%, 140.2%)", "any ratio" (RATIO_CI_ALL), "-" (no set). */
void ratio_ci_fmt_pct(char *buf, size_t len, const struct ratio_ci *ci);

/* "outside", "all" or "interval", for JSON. */
const char *ratio_ci_shape_name(enum ratio_ci_shape s);

#endif
