#ifndef PM_RANKTEST_H
#define PM_RANKTEST_H
/* The Mann-Whitney U test (Wilcoxon rank-sum): does b tend to lie above
 * or below a? It asks nothing of the runs' distribution, so one stalled
 * run cannot make it cry wolf as it can Welch's test; the price is that
 * with few runs it cannot reach a small p at all (3 against 3: never
 * below 0.1), which p_min says. */
#include <stdbool.h>
#include <stddef.h>

/* Exact up to this many runs in all (counting every split of the pooled
 * ranks, ties included: about n^3 * nb / 2 steps); the normal
 * approximation above, where it agrees with the exact p to 3 digits. */
#define MWU_EXACT_MAX 40

struct mwu {
    bool valid;                  /* false: a side has no runs */
    bool exact;                  /* the permutation distribution, not the normal approximation */
    double u;                    /* pairs (a_i, b_j) with b_j > a_i, ties counted half */
    double p;                    /* two-sided: twice the smaller tail, at most 1 */
    double p_min;                /* the smallest p these sizes and ties can give */
};

/* U of b against a. -1 out of memory. The exact p is scipy's
 * permutation_test over all splits; the approximate one is scipy's
 * mannwhitneyu (tie correction, continuity correction). */
int stats_mwu(const double *a, size_t na, const double *b, size_t nb, struct mwu *out);

#endif
