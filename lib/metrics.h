#ifndef PM_METRICS_H
#define PM_METRICS_H
/* A run's summary metrics: name (source.key), value, unit, and which
 * direction is better, so reports need no per-metric special cases. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* A metric as its producer declares it, once, beside the code that makes
 * it (a workload's ops table, a collector's table, the harness's own): the
 * name (source.key), unit, which way is better and what it means. "<word>"
 * in a name stands for one run of [a-z0-9_] (a family:
 * psi.<resource>.some_s); a latency def stands for the seven metrics
 * run_latency makes of a histogram called name (name_samples, name_p50_us,
 * _p90_us, _p99_us, _p999_us, _max_us, _mean_us). `help metrics`, the
 * man page and the tests' strict check read these declarations. */
struct metric_def {
    const char *name;
    const char *unit;
    enum metric_dir dir;
    const char *meaning;
    bool latency;
};
#define METRIC(n, u, d, text) { .name = n, .unit = u, .dir = d, .meaning = text }
#define LATENCY_METRIC(prefix, what) { .name = prefix, .unit = "us", .dir = PM_LOWER, .meaning = what, .latency = true }

/* A producer's metrics under their heading ("chat: run chat, ..."). */
struct metric_group {
    const char *title;
    const struct metric_def *defs;
    size_t n;
};
#define METRIC_GROUP(heading, table) { .title = heading, .defs = table, .n = sizeof table / sizeof table[0] }

/* The members of a latency def, in this order (run_latency fills them). */
enum latency_member { LAT_SAMPLES, LAT_P50, LAT_P90, LAT_P99, LAT_P999, LAT_MAX, LAT_MEAN, LAT_MEMBERS };
struct latency_member_def {
    const char *suffix;         /* "_p99_us" */
    const char *unit;
    enum metric_dir dir;
    const char *text;           /* the meaning, "%s" standing for the def's */
};
extern const struct latency_member_def metric_latency_members[LAT_MEMBERS];

/* Put a declared metric, with its declared unit and direction. */
int metric_put(struct metric_set *ms, const struct metric_def *d, double value);
/* Put a family's member: d's "<word>" stands for word ("memory"). */
int metric_put_word(struct metric_set *ms, const struct metric_def *d, const char *word, double value);

/* Does name stand for d or one of its members? *unit and *dir are that
 * member's (a latency def's _samples is a count). */
bool metric_def_matches(const struct metric_def *d, const char *name, const char **unit, enum metric_dir *dir);
/* The def among the groups that name stands for (its member's unit and
 * direction in *unit, *dir), or NULL. */
const struct metric_def *metric_groups_find(const struct metric_group *const *g, size_t n, const char *name,
                                            const char **unit, enum metric_dir *dir);
/* The groups as `pressmark help metrics` shows them: a heading each, one
 * row per metric (a latency def's seven rows), the text wrapped. */
void metric_groups_print(FILE *f, const struct metric_group *const *g, size_t n);

#endif
