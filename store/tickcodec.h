#ifndef PM_STORE_TICKCODEC_H
#define PM_STORE_TICKCODEC_H
/* A tick as schemas 5 to 7 stored it (schema 8 reads it only to migrate
 * it, store/tick_migrate.c, and tests): only the series whose value changed since the last
 * stored tick, each as two varints, the gap in series positions since the
 * previous one written and the change (zigzag-encoded). Integers are stored
 * exactly; real values (PSI averages, printed by the kernel with two
 * decimals) as fixed-point millionths. A series keeps its last value until
 * a tick changes it, so a reader reconstructs every series at every tick
 * from the run's first tick on. A run of 273 series at 1 s takes some 150
 * to 200 bytes per tick this way, against 1,100 as a JSON array of every
 * value. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/tickblock.h"

#define TICK_REAL_SCALE 1000000.0
/* A stored tick's bytes at most: what a database from elsewhere may hold
 * before it is refused, so reading it costs what a run could make. */
#define TICK_MAX_BYTES (1u << 20)

struct tick_encoder {
    int64_t *last;            /* per series: the value last stored (fixed-point for reals) */
    bool *stored;             /* per series: stored at all yet */
    size_t n, cap;
    uint8_t *buf;
    size_t len, bufcap;
};

void tick_encoder_init(struct tick_encoder *e);
void tick_encoder_free(struct tick_encoder *e);
/* Encode the k series that have a value this tick (migrating JSON ticks;
 * bench/sample_tool), positions idx[] in increasing order (below nseries),
 * values v[] fixed-point. The cost is k's, not the run's series'. */
int tick_encode_values(struct tick_encoder *e, size_t nseries, const size_t *idx, const int64_t *v, size_t k);

/* Apply one stored tick to acc[0..n): acc[i] += change; changed[i] set
 * for every series the tick names (may be NULL). -1 when the bytes are not
 * a tick (truncated varint, a position past n). */
int tick_decode(const uint8_t *p, size_t len, int64_t *acc, bool *changed, size_t n);

/* The value a series holds, from its fixed-point accumulator. */
static inline double tick_value(int64_t acc, bool real)
{
    return real ? (double)acc / TICK_REAL_SCALE : (double)acc;
}

#endif
