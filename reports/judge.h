#ifndef PM_JUDGE_H
#define PM_JUDGE_H
/* How a comparison's cells are judged against the baseline's:
 *   the tests: Welch's t-test, the Mann-Whitney U test and a bootstrap
 *     interval of the ratio of means, all three for every cell;
 *   which decides: Welch's test, unless either side has a run the
 *     modified z-score flags (outlier.h): one stalled run moves a mean
 *     and a standard deviation but only one rank, so there a change must
 *     hold for the rank test too (p is the larger of the two). Letting the
 *     rank test decide alone there was measured bolder than either test
 *     (bench/verdicts.sh: 5.5% false alarms at alpha 0.05, 8 runs a side);
 *   the family: every tested cell of every comparison judged at once,
 *     its p adjusted by Holm (the regression gate) and Benjamini-Hochberg
 *     (the tables' and sentences' "significant"), so that alpha is the
 *     family's level;
 *   power: for each cell, the smallest change its runs could have found
 *     at 80% power, at the family's first Holm level (alpha / family). */
#include <stddef.h>
#include "reports/compare.h"

/* The power the "could have found" figure is for. */
#define JUDGE_POWER 0.8

/* The tests of b's values against a's and the deciding one's p (NaN
 * below 2 runs a side): what every cell of a comparison gets, for tools
 * that judge values outside one (bench/). -1 out of memory. */
struct judge_tests {
    struct welch w;
    struct mwu mwu;
    const char *test;            /* CMP_TEST_* */
    double p;
};
int judge_p(const double *a, size_t na, const double *b, size_t nb, struct judge_tests *t);

/* Test every cell against its baseline cell (after summaries). -1 out of
 * memory. */
int judge_cells(struct comparison *c);

/* The p a sentence or a gate line shows for cell (of metric m): raw and
 * adjusted over its family, by Benjamini-Hochberg (the tables) or Holm
 * (the gate). */
struct judged_p judge_cell_p(const struct comparison *c, size_t m, const struct cmp_cell *cell, bool holm);

/* Why a change of label l against the baseline may be the machine's
 * drift rather than the label's (the two ran one after the other, or a
 * side's headline trends with its runs' order), or NULL. */
const char *judge_caveat(const struct comparison *c, size_t l);

/* Adjust over cs[0..n) as one family, decide significance at alpha and
 * write every label's sentence. compare_build judges each comparison on
 * its own; a caller that shows several at once judges them again
 * together. -1 out of memory. */
int compare_judge(struct comparison *const *cs, size_t n, double alpha);

#endif
