#include "lib/loghist.h"
#include <stdlib.h>
#include <string.h>

size_t loghist_index(uint64_t v)
{
    if (v < 128)
        return (size_t)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);     /* 7 .. 63 */
    unsigned shift = e - 6;
    uint64_t m = v >> shift;                              /* 64 .. 127 */
    return 128 + (size_t)(shift - 1) * 64 + (size_t)(m - 64);
}

void loghist_bounds(size_t i, uint64_t *lo, uint64_t *hi)
{
    if (i < 128) {
        *lo = *hi = i;
        return;
    }
    unsigned shift = (unsigned)((i - 128) / 64) + 1;
    uint64_t m = (i - 128) % 64 + 64;
    *lo = m << shift;
    *hi = *lo + ((uint64_t)1 << shift) - 1;
}

static int ensure(struct loghist *h)
{
    if (!h->b && !(h->b = calloc(LOGHIST_BUCKETS, sizeof *h->b)))
        return -1;
    return 0;
}

int loghist_record(struct loghist *h, uint64_t v)
{
    if (ensure(h) < 0)
        return -1;
    h->b[loghist_index(v)]++;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->count++;
    h->sum += (long double)v;
    return 0;
}

int loghist_add_bucket(struct loghist *h, uint64_t lo, uint64_t count)
{
    if (count == 0)
        return 0;
    if (ensure(h) < 0)
        return -1;
    size_t i = loghist_index(lo);
    uint64_t blo, bhi;
    loghist_bounds(i, &blo, &bhi);
    h->b[i] += count;
    if (h->count == 0 || blo < h->min)
        h->min = blo;
    if (bhi > h->max)
        h->max = bhi;
    h->count += count;
    h->sum += (long double)count * ((long double)blo + (long double)bhi) / 2;
    return 0;
}

int loghist_merge(struct loghist *into, const struct loghist *from)
{
    if (!from->count)
        return 0;
    if (ensure(into) < 0)
        return -1;
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++)
        into->b[i] += from->b[i];
    if (into->count == 0 || from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    into->count += from->count;
    into->sum += from->sum;
    return 0;
}

double loghist_percentile(const struct loghist *h, double p)
{
    if (!h->count || !h->b)
        return 0;
    if (p <= 0)
        return (double)h->min;
    if (p >= 100)
        return (double)h->max;
    /* The rank of the p-th percentile, as "nearest rank" does it. */
    long double want = (long double)p / 100 * (long double)h->count;
    uint64_t rank = (uint64_t)want;
    if ((long double)rank < want)
        rank++;
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++) {
        seen += h->b[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            loghist_bounds(i, &lo, &hi);
            double mid = ((double)lo + (double)hi) / 2;
            if (mid < (double)h->min)
                mid = (double)h->min;
            if (mid > (double)h->max)
                mid = (double)h->max;
            return mid;
        }
    }
    return (double)h->max;
}

void loghist_free(struct loghist *h)
{
    free(h->b);
    memset(h, 0, sizeof *h);
}
