#include "workloads/chat/latency.h"
#include <stdlib.h>
#include <string.h>

void chat_latency_init(struct chat_latency *l)
{
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++)
        atomic_init(&l->b[i], 0);
    atomic_init(&l->count, 0);
    atomic_init(&l->sum_ns, 0);
    atomic_init(&l->min_ns, UINT64_MAX);
    atomic_init(&l->max_ns, 0);
    memset(l->seen, 0, sizeof l->seen);
}

void chat_latency_record(struct chat_latency *l, uint64_t ns)
{
    atomic_fetch_add_explicit(&l->b[loghist_index(ns)], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&l->sum_ns, ns, memory_order_relaxed);
    uint64_t m = atomic_load_explicit(&l->max_ns, memory_order_relaxed);
    while (ns > m && !atomic_compare_exchange_weak_explicit(&l->max_ns, &m, ns, memory_order_relaxed,
                                                            memory_order_relaxed))
        ;
    m = atomic_load_explicit(&l->min_ns, memory_order_relaxed);
    while (ns < m && !atomic_compare_exchange_weak_explicit(&l->min_ns, &m, ns, memory_order_relaxed,
                                                            memory_order_relaxed))
        ;
    /* Last, so a count never runs ahead of the buckets it counts. */
    atomic_fetch_add_explicit(&l->count, 1, memory_order_release);
}

uint64_t chat_latency_window(struct chat_latency *l, double p, double *pct)
{
    uint64_t *diff = l->diff;
    uint64_t n = 0;
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++) {
        uint64_t v = atomic_load_explicit(&l->b[i], memory_order_relaxed);
        diff[i] = v - l->seen[i];
        l->seen[i] = v;
        n += diff[i];
    }
    if (n) {
        /* Bounds unknown within a window: the percentile is the bucket's middle. */
        struct loghist w = { .count = n, .min = 0, .max = UINT64_MAX, .b = diff };
        *pct = loghist_percentile(&w, p);
    }
    return n;
}

int chat_latency_total(struct chat_latency *l, struct loghist *h)
{
    memset(h, 0, sizeof *h);
    uint64_t n = 0;
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++)
        n += atomic_load_explicit(&l->b[i], memory_order_relaxed);
    if (!n)
        return 0;
    if (!(h->b = calloc(LOGHIST_BUCKETS, sizeof *h->b)))
        return -1;
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++)
        h->b[i] = atomic_load_explicit(&l->b[i], memory_order_relaxed);
    h->count = n;
    h->sum = (long double)atomic_load_explicit(&l->sum_ns, memory_order_relaxed);
    h->min = atomic_load_explicit(&l->min_ns, memory_order_relaxed);
    h->max = atomic_load_explicit(&l->max_ns, memory_order_relaxed);
    return 0;
}
