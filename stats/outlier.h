#ifndef PM_OUTLIER_H
#define PM_OUTLIER_H
/* A run far from the other runs of its cell: a stall, a neighbour's load,
 * a page cache left warm. Flagged, never dropped unasked. The score is
 * Iglewicz and Hoaglin's modified z-score: 0.6745 (x - median) / MAD;
 * where more than half the runs are equal (MAD 0) the mean absolute
 * deviation times 1.2533 stands in for it. A run is flagged above the
 * critical value for its sample's size, the 95th percentile of the
 * largest score among that many normal runs, so that a clean sample is
 * flagged 5 % of the time however many runs it has (OUTLIER_CLEAN_RATE;
 * the fixed 3.5 of Iglewicz and Hoaglin flagged 13 to 21 % of clean
 * samples of 4 to 10 runs, and 4 in 10 A/A samples of real runs: issue
 * 43; bench/outlier_table.py makes the values, docs/guide/reports.md
 * has the rates measured on real runs). With fewer than OUTLIER_MIN_RUNS
 * runs nothing is judged: of three runs, which one is the odd one out is
 * a guess. */
#include <stdbool.h>
#include <stddef.h>

#define OUTLIER_MIN_RUNS 4
#define OUTLIER_CLEAN_RATE 0.05

/* The critical value of the score among n runs (NAN below
 * OUTLIER_MIN_RUNS). */
double stats_outlier_threshold(size_t n);

/* z[i] (may be NULL) gets each value's score (0 when not judged),
 * flag[i] whether it is an outlier. Returns how many are, -1 out of memory. */
int stats_outliers(const double *v, size_t n, double *z, bool *flag);

/* "z = 4.1" for people; past 9999 (a hostile value's) "z > 9999", not
 * two hundred digits. */
void stats_fmt_z(char *buf, size_t len, double z);

#endif
