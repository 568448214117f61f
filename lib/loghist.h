#ifndef PM_LOGHIST_H
#define PM_LOGHIST_H
/* A histogram of non-negative integers (latencies in ns) in log-linear
 * buckets, HdrHistogram's idea: values below 128 exactly, above in 64
 * buckets per power of two, so a bucket is never wider than 1/64 of its
 * lower bound and a percentile read from the buckets is within 0.8% of a
 * value that was recorded. Histograms of the same layout merge by adding
 * counts, so percentiles over many runs come from their stored buckets. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOGHIST_BUCKETS 3776

struct loghist {
    uint64_t count, min, max;
    long double sum;              /* exact for any realistic total of ns */
    uint64_t *b;                  /* LOGHIST_BUCKETS counts, allocated on first record */
};

size_t loghist_index(uint64_t v);
/* The values bucket i holds: [lo, hi]. */
void loghist_bounds(size_t i, uint64_t *lo, uint64_t *hi);

/* -1 only when out of memory (the value is then not counted). */
int loghist_record(struct loghist *h, uint64_t v);
/* Add count values of bucket whose lower bound is lo (from a stored
 * histogram); min and max widen to the bucket's bounds unless known. */
int loghist_add_bucket(struct loghist *h, uint64_t lo, uint64_t count);
int loghist_merge(struct loghist *into, const struct loghist *from);
/* The p-th percentile (0..100): the middle of the bucket holding it,
 * clamped to [min, max]. 0 for an empty histogram. */
double loghist_percentile(const struct loghist *h, double p);
void loghist_free(struct loghist *h);

#endif
