#ifndef PM_BISECT_JUDGE_H
#define PM_BISECT_JUDGE_H
/* A bisection step's verdict: the candidate's runs against the good
 * kernel's and the bad kernel's, by Welch's t-test (stats/stats.h).
 * Good when it differs from the bad kernel and not from the good one, bad
 * the other way round; otherwise more runs, and at the cap "cannot tell".
 * A step looks after each boot's batch, at most looks times up to the
 * cap, so each look is held to alpha / looks (Bonferroni): the verdict it
 * stops with has an error of at most alpha. */
#include <stdbool.h>
#include <stddef.h>

enum bisect_verdict { BISECT_UNDECIDED, BISECT_GOOD, BISECT_BAD, BISECT_CANNOT_TELL };

/* Two sides' p: Welch's two-sided; NaN below 2 values a side. A metric
 * that holds one value on both sides (a counter that stays 0) has no
 * variance for Welch's test: the same constant is no difference (p = 1),
 * two different constants are as different as can be (p = 0). One
 * constant side beside a varying one is Welch's as usual: the varying
 * side's spread is the whole of the error. */
double bisect_p(const double *a, size_t na, const double *b, size_t nb);

struct bisect_judgement {
    enum bisect_verdict verdict;
    double p_good, p_bad, mean;  /* mean: the candidate's; NaN without values */
    double level;                /* what each p was held to: alpha / looks */
};

/* The candidate c against good and bad; at_cap: no more runs will come. */
void bisect_judge(const double *good, size_t ng, const double *bad, size_t nb, const double *c, size_t nc,
                  double alpha, unsigned looks, bool at_cap, struct bisect_judgement *j);
/* The looks a step has: one a batch of runs, up to max_runs. */
unsigned bisect_looks(int runs, int max_runs);
const char *bisect_verdict_name(enum bisect_verdict v);

#endif
