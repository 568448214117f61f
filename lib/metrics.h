#ifndef PM_METRICS_H
#define PM_METRICS_H
/* A run's summary metrics: name (source.key), value, unit, and which
 * direction is better, so reports need no per-metric special cases. */
#include <stddef.h>

/* Which way is better. Stored as its name ("higher", "lower", "none"). */
enum metric_dir { PM_NEITHER, PM_HIGHER, PM_LOWER };
const char *metric_dir_name(enum metric_dir d);
/* The direction a stored name stands for; anything else is PM_NEITHER, so
 * a hostile database cannot make a report call a metric better or worse. */
enum metric_dir metric_dir_parse(const char *name);

struct metric {
    char name[96];
    double value;
    char unit[16];
    char direction[8];       /* metric_dir_name() of its direction */
};

struct metric_set {
    struct metric *v;
    size_t n, cap;
};

/* Add or replace a metric. Returns -1 only when out of memory. */
int metric_set_put(struct metric_set *ms, const char *name, double value, const char *unit,
                   enum metric_dir direction);
const struct metric *metric_set_find(const struct metric_set *ms, const char *name);
void metric_set_free(struct metric_set *ms);

#endif
