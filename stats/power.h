#ifndef PM_POWER_H
#define PM_POWER_H
/* How large a change runs can see: the power of the two-sided two-sample
 * t-test, the smallest change it detects, and the runs it needs. suite
 * plan says it before a suite runs, compare after a comparison found
 * nothing. Both sides are taken to have n runs and the same run-to-run CV,
 * changes and CVs in percent of the mean. */

/* Power of a two-sided two-sample t-test with n runs a side, equal
 * run-to-run CV cv_pct on both sides (in percent of the mean), for a true
 * change of change_pct percent (either sign), at level alpha: exact,
 * through the noncentral t distribution (df = 2n - 2, noncentrality
 * change/(cv*sqrt(2/n))), integrated numerically with GSL since GSL has no
 * noncentral t. NaN when n < 2, cv_pct <= 0 or alpha is not in (0, 1). */
double stats_power(double cv_pct, double change_pct, unsigned n, double alpha);

/* The smallest change (percent) that test detects with the given power
 * (0.8 in reports): solved from stats_power. NaN when n < 2, cv <= 0, or
 * power is not in (alpha, 1) (every change, even none, is "detected" with
 * probability alpha). */
double stats_detectable_pct(double cv_pct, unsigned n, double alpha, double power);

/* Runs a side needed to detect change_pct with that power (at least 2);
 * 0 when more than max_runs would be needed, or the inputs make no sense
 * (as for stats_detectable_pct, or no change). */
unsigned stats_runs_needed(double cv_pct, double change_pct, double alpha, double power, unsigned max_runs);

#endif
