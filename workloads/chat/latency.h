#ifndef PM_CHAT_LATENCY_H
#define PM_CHAT_LATENCY_H
/* The client's delivery latencies: every receiver thread adds to one
 * shared log-linear histogram (lib/loghist's buckets) with relaxed atomic
 * increments, so a message costs one add, no lock, and 200 users share
 * 30 KB instead of owning 6 MB. The progress reporter reads windows of it:
 * the buckets' growth since its last look. */
#include <stdatomic.h>
#include <stdint.h>
#include "lib/loghist.h"

struct chat_latency {
    _Atomic uint64_t b[LOGHIST_BUCKETS];
    _Atomic uint64_t count, sum_ns, min_ns, max_ns;
    uint64_t seen[LOGHIST_BUCKETS];    /* the reporter's last look (its thread only) */
    uint64_t diff[LOGHIST_BUCKETS];    /* the reporter's window (its thread only) */
};

void chat_latency_init(struct chat_latency *l);
void chat_latency_record(struct chat_latency *l, uint64_t ns);
/* The p-th percentile of what arrived since the last call, and how many
 * did (0: nothing; *pct untouched). Reporter's thread only. */
uint64_t chat_latency_window(struct chat_latency *l, double p, double *pct);
/* The whole histogram as a loghist (exact min, max and sum); 0 or -1. */
int chat_latency_total(struct chat_latency *l, struct loghist *h);

#endif
