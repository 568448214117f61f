#ifndef PM_TREND_H
#define PM_TREND_H
/* Do a label's runs drift with the order they ran in? Spearman's rank
 * correlation of each run's value with its position: a machine that warms
 * up, fills its page cache or shares its cores with a neighbour moves its
 * runs one way, and two labels run one after the other then differ by the
 * drift as much as by themselves. p: two-sided, from Student's t with
 * n - 2 degrees of freedom (as scipy.stats.spearmanr); ties get mid-ranks. */
#include <stdbool.h>
#include <stddef.h>

/* Judged from this many runs on. */
#define TREND_MIN_RUNS 6

struct trend {
    bool valid;
    double rho, p;
};

/* v in the order the runs ran. -1 out of memory. */
int stats_trend(const double *v, size_t n, struct trend *out);

#endif
