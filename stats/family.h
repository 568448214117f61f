#ifndef PM_FAMILY_H
#define PM_FAMILY_H
/* Many comparisons judged at once (a suite's cells, every metric, every
 * night) cry wolf more often than one: at 0.05 and 20 comparisons of
 * configurations that do not differ, 64% of nights would show a
 * "significant" change. These adjust each p for its family:
 *   Holm (1979): controls the chance of any false alarm in the family,
 *     for the regression gate, whose one alarm fails a CI job;
 *   Benjamini-Hochberg (1995): controls the expected share of false
 *     alarms among the changes reported, for the exploratory tables.
 * NaN entries (comparisons not judged) are not in the family and stay
 * NaN. Both adjusted values are at most 1 and never below the raw p. */
#include <stddef.h>

/* -1 out of memory. adj may be p. */
int stats_holm(const double *p, size_t n, double *adj);
int stats_bh(const double *p, size_t n, double *adj);

#endif
