#ifndef PM_PERCENTILE_H
#define PM_PERCENTILE_H
#include <stddef.h>
#include <stdint.h>

/* The p-th percentile (0..100) of v[0..n), linear between closest ranks
 * (the definition numpy and most spreadsheets use). Sorts v in place.
 * Returns 0 for n == 0. */
double pm_percentile_i64(int64_t *v, size_t n, double p);

#endif
