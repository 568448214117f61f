#ifndef PM_ZIPF_H
#define PM_ZIPF_H
/* Zipf-distributed ranks over [0, n), rank 0 the most frequent: Gray et
 * al.'s method ("Quickly generating billion-record synthetic databases",
 * SIGMOD 1994), the one YCSB draws its zipfian keys with, so a theta of
 * 0.99 here means what it means in YCSB and memtier_benchmark's papers.
 * Setting up costs one pow() per rank (zeta(n)); each draw costs two. */
#include <stdint.h>

struct zipf {
    uint64_t n;
    double theta, alpha, zetan, eta, half_pow;
};

/* 0 < theta < 1 and n >= 2, else -1 (the method holds only there). */
int zipf_init(struct zipf *z, uint64_t n, double theta);
/* The rank for u, uniform in [0, 1). */
uint64_t zipf_rank(const struct zipf *z, double u);

#endif
