#ifndef PM_METRICS_H
#define PM_METRICS_H
/* A run's summary metrics: name (source.key), value, unit, and which
 * direction is better, so reports need no per-metric special cases. */
#include <stddef.h>

#define PM_HIGHER "higher"
#define PM_LOWER "lower"
#define PM_NEITHER "none"

struct metric {
    char name[96];
    double value;
    char unit[16];
    char direction[8];       /* PM_HIGHER, PM_LOWER or PM_NEITHER */
};

struct metric_set {
    struct metric *v;
    size_t n, cap;
};

/* Add or replace a metric. Returns -1 only when out of memory. */
int metric_set_put(struct metric_set *ms, const char *name, double value, const char *unit,
                   const char *direction);
const struct metric *metric_set_find(const struct metric_set *ms, const char *name);
void metric_set_free(struct metric_set *ms);

#endif
