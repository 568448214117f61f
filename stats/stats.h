#ifndef PM_STATS_H
#define PM_STATS_H
/* The statistics behind every comparison: descriptive summaries, Welch's
 * t-test (distributions from GSL), direction-aware change, and the reports'
 * ratio sentence. */
#include <stdbool.h>
#include <stddef.h>

struct summary {
    size_t n;
    double mean, sd, cv_pct, min, median, max;
};

/* v is sorted in place. n == 0 gives all zeros. */
void stats_summary(double *v, size_t n, struct summary *out);

/* Half the width of the confidence interval of the mean at confidence
 * conf (0.95: the 95% CI; Student's t with n - 1 degrees of freedom); NaN
 * below 2 values. */
double stats_ci_half(const struct summary *s, double conf);

/* The mean of v and the 95% CI's half-width in percent of it (NaN below 2
 * values or with a zero mean); v is left as it is. -1 out of memory. */
int stats_mean_ci(const double *v, size_t n, double *mean, double *ci_pct);
/* The same at confidence conf (0.95 is the above; a suite's target-ci
 * looks at a higher one, see suite_ci_confidence). */
int stats_mean_ci_conf(const double *v, size_t n, double conf, double *mean, double *ci_pct);

struct welch {
    bool valid;                  /* false: a side has fewer than 2 runs */
    double t, df, p;             /* two-sided p */
    double diff;                 /* mean(b) - mean(a) */
    double ci_low, ci_high;      /* 95% confidence interval of diff */
};

/* Welch's unequal-variances t-test of b against a. */
void stats_welch(const struct summary *a, const struct summary *b, struct welch *out);

/* Change of cand against base in percent, signed so that + is better:
 * for higher-is-better metrics +(cand - base)/base, for lower-is-better
 * -(cand - base)/base; for metrics with no better direction, the plain
 * change. NaN when base is 0. */
double stats_change_pct(double base, double cand, const char *direction);

/* A p-value for people: "p = 0.0123", and below a thousandth "p < 0.001"
 * (more digits tell a reader nothing, and %g wrote them as 1.16e-08);
 * compact for table cells: "p=0.0123", "p<0.001". NaN is "p = -". */
void stats_fmt_p(char *buf, size_t len, double p, bool compact);

/* The p behind a sentence: the deciding test's, and adjusted over the
 * family of comparisons it was judged with (judge.c). */
struct judged_p {
    bool valid;                  /* false: too few runs to test */
    double p, p_adj;             /* p_adj is p in a family of one */
    size_t family;
    bool both;                   /* an outlier: p is the larger of Welch's and Mann-Whitney's */
    const char *adjusted;        /* how p_adj was adjusted, said before it ("Holm-adjusted"); NULL: "adjusted" */
};

/* the 2002 VolanoMark report's sentence, its means grouped as the table
 * groups them: "46,053/51,824 = 88.9 %: chat runs 11.1 % slower with
 * LABEL than with BASE (p = 0.003, n = 5/5)", or "... no significant
 * difference (p = 0.41, n = 5/5)", or "... (n too small: 1/5)". In a
 * family the adjusted p follows ("p = 0.003, adjusted 0.018 over 6
 * comparisons"), and it is the one held against alpha. */
void stats_ratio_sentence(char *buf, size_t len, const char *workload, const char *label, const char *base,
                          const struct summary *b, const struct summary *a, const struct judged_p *w,
                          const char *direction, double alpha);

/* "p = 0.003", or with an outlier "p = 0.008 (the larger of Welch's and
 * Mann-Whitney's: an outlier)", with ", adjusted 0.018 over 6
 * comparisons" in a family. */
void stats_fmt_judged_p(char *buf, size_t len, const struct judged_p *w);

#endif
