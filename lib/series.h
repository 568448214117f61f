#ifndef PM_SERIES_H
#define PM_SERIES_H
/* A series is one raw value the samplers read every tick, named source.key
 * (vmstat.pswpout, meminfo.MemFree, psi.memory.some.total). The table keeps
 * each series' first and last value so run-end metrics are deltas over the
 * whole run without reading the samples back from the database. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"

enum pm_value_kind { PM_INT, PM_REAL };

struct pm_value {
    enum pm_value_kind kind;
    union { int64_t i; double r; };
};

struct series {
    char *name;
    uint64_t seen_tick;     /* the sampler tick that last gave it a value, + 1 */
    struct pm_value first, last;
    double max;             /* largest value seen (peak cgroup usage) */
    double prev;            /* the previous tick's value, for rates */
    double rate_min, rate_max;  /* per second between consecutive ticks */
    uint64_t rates;         /* how many rates were seen */
    uint64_t ticks;         /* ticks in which this series had a value */
};

struct series_table {
    struct series *v;
    size_t n, cap;
    size_t *slots;          /* open addressing over indices + 1; 0 is empty */
    size_t nslots;
};

void series_table_init(struct series_table *t);
void series_table_free(struct series_table *t);

/* Find or add the series called name[0..len); NULL only when out of memory. */
struct series *series_table_get(struct series_table *t, const char *name, size_t len);
const struct series *series_table_find(const struct series_table *t, const char *name);

/* After a tick: the change since the previous tick over dt seconds
 * updates the series' smallest and largest rate (the wblg-disk report's min-max). */
void series_rate_step(struct series *s, double dt);
bool series_rate_range(const struct series_table *t, const char *name, double *min, double *max);

/* Record one tick's value; the first value seen stays as the series' first. */
void series_record(struct series *s, struct pm_value v);

double pm_value_as_double(struct pm_value v);

/* The change from first to last value, computed in integers where the series
 * is an integer so counters beyond 2^53 keep every unit. False if absent. */
bool series_delta(const struct series_table *t, const char *name, double *delta);
bool series_last(const struct series_table *t, const char *name, double *last);
bool series_max(const struct series_table *t, const char *name, double *max);

/* Sum of deltas of the series named prefix or prefix_<zone> (dma, dma32,
 * normal, high, movable, device): per-zone counters (pgscan_kswapd_normal)
 * and node-wide ones add up the same.
 * Returns the number of series summed. */
int series_delta_prefix(const struct series_table *t, const char *prefix, double *sum);
/* Is s a zone's name as per-zone counters end in it (after prefix_)? */
bool series_is_zone_suffix(const char *s);

/* The sink is how a parser hands its values to whoever samples: the sampler
 * stores them, unit tests collect them in a series_table. */
struct sink {
    void (*put)(struct sink *self, const char *name, size_t len, struct pm_value v);
};

/* A sink that only records into a table (used by tests and bench). */
struct table_sink {
    struct sink base;
    struct series_table *table;
};
void pm_table_sink_init(struct table_sink *ts, struct series_table *t);

/* Where a sampler's ticks go, so that the sampler knows no SQL
 * (store/ticks.c writes them to results.db). write stores tick seq, taken
 * t_ns after the first: the series of t from first_new
 * on are new this tick; a series has a value in this tick when its
 * seen_tick equals mark. */
struct tick_writer {
    int (*write)(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const struct series_table *t,
                 size_t first_new, uint64_t mark, struct pm_err *err);
    /* Make every tick written so far durable (the writer may batch). */
    int (*flush)(struct tick_writer *w, struct pm_err *err);
};

#endif
