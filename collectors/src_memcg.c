/* The run's memory cgroup: its files (v2 names, or their v1 counterparts)
 * and the cgroup's own view of the run; with a sibling hog, the hog's
 * cgroup too, its series and metrics named sibling.memcg.*. */
#include "collectors/source.h"
#include <stdio.h>
#include <string.h>
#include "collectors/proc_parse.h"

enum { MEMCG_USAGE_MAX_BYTES, MEMCG_SWAP_MAX_BYTES, MEMCG_OOM_KILL, MEMCG_LIMIT_HITS, MEMCG_PGSCAN,
    MEMCG_PGSTEAL, MEMCG_PGMAJFAULT, MEMCG_REFAULTS, MEMCG_LOW_EVENTS, MEMCG_HIGH_EVENTS, MEMCG_PSI_SOME_S,
    MEMCG_PSI_FULL_S };
static const struct metric_def memcg_defs[] = {
    [MEMCG_USAGE_MAX_BYTES] = METRIC("memcg.usage_max_bytes", "bytes", PM_LOWER,
                  "memory.current (v1 memory.usage_in_bytes) at its largest"),
    [MEMCG_SWAP_MAX_BYTES] = METRIC("memcg.swap_max_bytes", "bytes", PM_LOWER,
                  "memory.swap.current (v1 memory.stat total_swap) at its largest"),
    [MEMCG_OOM_KILL] = METRIC("memcg.oom_kill", "count", PM_LOWER,
                  "OOM kills in the cgroup (memory.events oom_kill; v1 memory.oom_control)"),
    [MEMCG_LIMIT_HITS] = METRIC("memcg.limit_hits", "count", PM_LOWER,
                  "times usage reached the limit (memory.events max; v1 memory.failcnt)"),
    [MEMCG_PGSCAN] = METRIC("memcg.pgscan", "pages", PM_LOWER, "pages the cgroup's reclaim scanned (v2 memory.stat)"),
    [MEMCG_PGSTEAL] = METRIC("memcg.pgsteal", "pages", PM_LOWER, "pages the cgroup's reclaim took (v2 memory.stat)"),
    [MEMCG_PGMAJFAULT] = METRIC("memcg.pgmajfault", "count", PM_LOWER,
                  "major faults of the cgroup's tasks (memory.stat)"),
    [MEMCG_REFAULTS] = METRIC("memcg.refaults", "pages", PM_LOWER, "the cgroup's workingset_refault_anon + _file"),
    [MEMCG_LOW_EVENTS] = METRIC("memcg.low_events", "count", PM_LOWER,
                  "times the cgroup was reclaimed below its memory.low, its protection overcommitted (memory.events low, v2)"),
    [MEMCG_HIGH_EVENTS] = METRIC("memcg.high_events", "count", PM_LOWER,
                  "times the cgroup was throttled and reclaimed above memory.high (memory.events high, v2)"),
    [MEMCG_PSI_SOME_S] = METRIC("memcg.psi_some_s", "s", PM_LOWER,
                  "time at least one of the cgroup's tasks stalled on memory (its memory.pressure, v2)"),
    [MEMCG_PSI_FULL_S] = METRIC("memcg.psi_full_s", "s", PM_LOWER,
                  "time all of the cgroup's non-idle tasks stalled on memory at once (its memory.pressure, v2)"),
};
static const struct metric_group memcg_metrics = METRIC_GROUP(
    "memcg: the run's memory cgroup (v2 names, or their v1 counterparts)",
    memcg_defs);

/* The series pre.FILE.KEY ("memcg.memory.events.max"). */
static bool last(const struct series_table *t, const char *pre, const char *name, double *v)
{
    char s[160];
    snprintf(s, sizeof s, "%s.%s", pre, name);
    return series_last(t, s, v);
}

static bool most(const struct series_table *t, const char *pre, const char *name, double *v)
{
    char s[160];
    snprintf(s, sizeof s, "%s.%s", pre, name);
    return series_max(t, s, v);
}

/* Counters of the cgroup's own: it is new for each run, so its last value
 * is what the run did; the pressure totals change over the run. */
static int counters(const struct series_table *t, const char *pre, struct metric_set *out)
{
    int rc = 0;
    double v, a, f;
    if (last(t, pre, "memory.events.oom_kill", &v) || last(t, pre, "memory.oom_control.oom_kill", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_OOM_KILL], v);
    if (last(t, pre, "memory.events.max", &v) || last(t, pre, "memory.failcnt", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_LIMIT_HITS], v);
    if (last(t, pre, "memory.events.low", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_LOW_EVENTS], v);
    if (last(t, pre, "memory.events.high", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_HIGH_EVENTS], v);
    /* v2 counts the cgroup's own reclaim; v1's memory.stat has no such key. */
    if (last(t, pre, "memory.stat.pgscan", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_PGSCAN], v);
    if (last(t, pre, "memory.stat.pgsteal", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_PGSTEAL], v);
    if (last(t, pre, "memory.stat.pgmajfault", &v) || last(t, pre, "memory.stat.total_pgmajfault", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_PGMAJFAULT], v);
    if (last(t, pre, "memory.stat.workingset_refault_anon", &a) && last(t, pre, "memory.stat.workingset_refault_file", &f))
        rc |= metric_put(out, &memcg_defs[MEMCG_REFAULTS], a + f);
    char s[160];
    snprintf(s, sizeof s, "%s.memory.pressure.some.total", pre);
    if (series_delta(t, s, &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_PSI_SOME_S], v / 1e6);
    snprintf(s, sizeof s, "%s.memory.pressure.full.total", pre);
    if (series_delta(t, s, &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_PSI_FULL_S], v / 1e6);
    return rc;
}

/* One cgroup's view: peak usage (what a cap has to hold), and the
 * cgroup-local OOM kills, limit hits, reclaim and protection events,
 * which the system counters dilute. */
static int derive_one(const struct series_table *t, const char *pre, struct metric_set *out)
{
    int rc = 0;
    double v;
    if (most(t, pre, "memory.current", &v) || most(t, pre, "memory.usage_in_bytes", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_USAGE_MAX_BYTES], v);
    /* v1 has no swap file of its own; its memory.stat's total_swap is the
     * same count (the cgroup and those below it), when swap is accounted. */
    if (most(t, pre, "memory.swap.current", &v) || most(t, pre, "memory.stat.total_swap", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_SWAP_MAX_BYTES], v);
    return rc | counters(t, pre, out);
}

/* The workload's cgroup as memcg.*, the sibling hog's as sibling.memcg.*
 * (the same definitions: the catalogue reads sibling.X as X). */
static int memcg_derive(const struct series_table *t, long page_size, struct metric_set *out,
                        struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    int rc = derive_one(t, "memcg", out);
    struct metric_set sib = { 0 };
    rc |= derive_one(t, "sibling.memcg", &sib);
    for (size_t i = 0; i < sib.n; i++) {
        char name[sizeof sib.v[i].name + 8];
        snprintf(name, sizeof name, "sibling.%s", sib.v[i].name);
        rc |= metric_set_put(out, name, sib.v[i].value, sib.v[i].unit, metric_dir_parse(sib.v[i].direction));
    }
    metric_set_free(&sib);
    return rc;
}

static void add_cgroup(struct source_set *ss, const char *dir, int version, const char *pre)
{
    static const char *const v2[] = { "memory.current", "memory.swap.current", "memory.events", "memory.stat",
                                      "memory.pressure", NULL };
    static const char *const v1[] = { "memory.usage_in_bytes", "memory.memsw.usage_in_bytes", "memory.failcnt",
                                      "memory.stat", "memory.oom_control", NULL };
    const char *const *files = version == 2 ? v2 : v1;
    for (size_t i = 0; files[i]; i++) {
        char series[96];
        snprintf(series, sizeof series, "%s.%s", pre, files[i]);
        proc_parse_fn parse = strstr(files[i], "pressure") ? parse_psi
                              : strcmp(files[i], "memory.events") == 0 || strstr(files[i], "stat") ||
                                        strstr(files[i], "oom_control") ? parse_keyed_lines
                              : parse_single_value;
        source_add_file(ss, "memcg", dir, files[i], series, parse);
    }
}

static void memcg_init(struct source_set *ss, const struct source_opts *o)
{
    if (!o->memcg_dir || (o->memcg_version != 1 && o->memcg_version != 2))
        return;
    add_cgroup(ss, o->memcg_dir, o->memcg_version, "memcg");
    if (o->sibling_dir)
        add_cgroup(ss, o->sibling_dir, o->memcg_version, "sibling.memcg");
}

static const struct metric_group *const memcg_groups[] = { &memcg_metrics, NULL };
const struct source_def source_memcg = { .init = memcg_init, .derive = memcg_derive, .metrics = memcg_groups };
