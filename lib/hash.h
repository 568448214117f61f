#ifndef PM_HASH_H
#define PM_HASH_H
/* FNV-1a, 64 bits: a fast, stable hash of bytes, for names (the series
 * table), cache file names, and digests that only have to notice change
 * (a suite file, a generated tree). Not for anything an adversary picks
 * to collide. Continue a hash over several pieces by passing it back. */
#include <stddef.h>
#include <stdint.h>

#define PM_FNV1A_INIT 1469598103934665603ull

static inline uint64_t pm_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

#endif
