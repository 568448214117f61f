/* The run's memory cgroup: its files (v2 names, or their v1 counterparts)
 * and the cgroup's own view of the run. */
#include "collectors/source.h"
#include "collectors/proc_parse.h"

enum { MEMCG_USAGE_MAX_BYTES, MEMCG_SWAP_MAX_BYTES, MEMCG_OOM_KILL, MEMCG_LIMIT_HITS, MEMCG_PGSCAN,
    MEMCG_PGSTEAL, MEMCG_PGMAJFAULT, MEMCG_REFAULTS };
static const struct metric_def memcg_defs[] = {
    [MEMCG_USAGE_MAX_BYTES] = METRIC("memcg.usage_max_bytes", "bytes", PM_LOWER,
                  "memory.current (v1 memory.usage_in_bytes) at its largest"),
    [MEMCG_SWAP_MAX_BYTES] = METRIC("memcg.swap_max_bytes", "bytes", PM_LOWER,
                  "memory.swap.current at its largest (v2)"),
    [MEMCG_OOM_KILL] = METRIC("memcg.oom_kill", "count", PM_LOWER,
                  "OOM kills in the cgroup (memory.events oom_kill; v1 memory.oom_control)"),
    [MEMCG_LIMIT_HITS] = METRIC("memcg.limit_hits", "count", PM_LOWER,
                  "times usage reached the limit (memory.events max; v1 memory.failcnt)"),
    [MEMCG_PGSCAN] = METRIC("memcg.pgscan", "pages", PM_LOWER, "pages the cgroup's reclaim scanned (v2 memory.stat)"),
    [MEMCG_PGSTEAL] = METRIC("memcg.pgsteal", "pages", PM_LOWER, "pages the cgroup's reclaim took (v2 memory.stat)"),
    [MEMCG_PGMAJFAULT] = METRIC("memcg.pgmajfault", "count", PM_LOWER,
                  "major faults of the cgroup's tasks (memory.stat)"),
    [MEMCG_REFAULTS] = METRIC("memcg.refaults", "pages", PM_LOWER, "the cgroup's workingset_refault_anon + _file"),
};
static const struct metric_group memcg_metrics = METRIC_GROUP(
    "memcg: the run's memory cgroup (v2 names, or their v1 counterparts)",
    memcg_defs);

/* The cgroup's own view: peak usage (what a cap has to hold), and the
 * cgroup-local OOM kills and limit hits, which the system counters dilute. */
static int memcg_derive(const struct series_table *t, long page_size, struct metric_set *out,
                        struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    int rc = 0;
    double v;
    if (series_max(t, "memcg.memory.current", &v) || series_max(t, "memcg.memory.usage_in_bytes", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_USAGE_MAX_BYTES], v);
    if (series_max(t, "memcg.memory.swap.current", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_SWAP_MAX_BYTES], v);
    if (series_last(t, "memcg.memory.events.oom_kill", &v) ||
        series_last(t, "memcg.memory.oom_control.oom_kill", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_OOM_KILL], v);
    if (series_last(t, "memcg.memory.events.max", &v) || series_last(t, "memcg.memory.failcnt", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_LIMIT_HITS], v);
    /* v2 counts the cgroup's own reclaim; v1's memory.stat has no such key. */
    if (series_last(t, "memcg.memory.stat.pgscan", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_PGSCAN], v);
    if (series_last(t, "memcg.memory.stat.pgsteal", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_PGSTEAL], v);
    if (series_last(t, "memcg.memory.stat.pgmajfault", &v) || series_last(t, "memcg.memory.stat.total_pgmajfault", &v))
        rc |= metric_put(out, &memcg_defs[MEMCG_PGMAJFAULT], v);
    double a, f;
    /* The cgroup's own refaults (a new cgroup per run: its last value). */
    if (series_last(t, "memcg.memory.stat.workingset_refault_anon", &a) &&
        series_last(t, "memcg.memory.stat.workingset_refault_file", &f))
        rc |= metric_put(out, &memcg_defs[MEMCG_REFAULTS], a + f);
    return rc;
}

static void memcg_init(struct source_set *ss, const struct source_opts *o)
{
    if (o->memcg_dir && o->memcg_version == 2) {
        source_add_file(ss, "memcg", o->memcg_dir, "memory.current", "memcg.memory.current", parse_single_value);
        source_add_file(ss, "memcg", o->memcg_dir, "memory.swap.current", "memcg.memory.swap.current", parse_single_value);
        source_add_file(ss, "memcg", o->memcg_dir, "memory.events", "memcg.memory.events", parse_keyed_lines);
        source_add_file(ss, "memcg", o->memcg_dir, "memory.stat", "memcg.memory.stat", parse_keyed_lines);
        source_add_file(ss, "memcg", o->memcg_dir, "memory.pressure", "memcg.memory.pressure", parse_psi);
    } else if (o->memcg_dir && o->memcg_version == 1) {
        source_add_file(ss, "memcg", o->memcg_dir, "memory.usage_in_bytes", "memcg.memory.usage_in_bytes", parse_single_value);
        source_add_file(ss, "memcg", o->memcg_dir, "memory.memsw.usage_in_bytes", "memcg.memory.memsw.usage_in_bytes", parse_single_value);
        source_add_file(ss, "memcg", o->memcg_dir, "memory.failcnt", "memcg.memory.failcnt", parse_single_value);
        source_add_file(ss, "memcg", o->memcg_dir, "memory.stat", "memcg.memory.stat", parse_keyed_lines);
        source_add_file(ss, "memcg", o->memcg_dir, "memory.oom_control", "memcg.memory.oom_control", parse_keyed_lines);
    }
}

static const struct metric_group *const memcg_groups[] = { &memcg_metrics, NULL };
const struct source_def source_memcg = { .name = "memcg", .init = memcg_init, .derive = memcg_derive, .metrics = memcg_groups };
