/* The shape of a source, to copy when adding one. It is compiled with the
 * rest (so it keeps up with the interface) but not registered: to make a
 * copy sample, add one line to the registry, X(NAME) in PM_SOURCES
 * (collectors/sources.h), for the struct source_def source_NAME below; NAME
 * is then its word for --collect. The steps:
 *
 *   1. A parser, when no parser of proc_parse.h reads the file: text in,
 *      "prefix.key" values out to the sink, nothing else. It is handed what
 *      pread returned (not a C string), and the text is the kernel's: keys
 *      by name where the file has names, a line it cannot read skipped.
 *   2. Its metrics, declared once in a table: name (source.key), unit,
 *      which way is better, what it means. help metrics, the man page and
 *      the tests' strict check read the table; nothing else names a unit.
 *   3. derive(): the run-end metrics from the series the run saw (their
 *      first, last and largest values: series_delta, series_last,
 *      series_max). Pure: no /proc, no database.
 *   4. init(): add the collectors (source_add_file re-reads a file each
 *      tick with pread; a file that is absent on this kernel is noted with
 *      the run, not an error).
 *   5. The struct source_def, then the registry's line.
 *
 * This one is a whole source: /proc/loadavg (the load averages and the
 * runnable tasks) as the series loadavg.load1, load5, load15, running and
 * tasks, and the highest 1-minute load average as loadavg.load1_max. */
#include "collectors/source.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collectors/proc_parse.h"

/* Hand "prefix.key" to the sink. A name that does not fit is skipped, not
 * cut: snprintf returns the length it wanted, past the buffer's end. */
static int put_value(struct sink *sink, const char *prefix, const char *key, struct pm_value v)
{
    char name[96];
    int n = snprintf(name, sizeof name, "%s.%s", prefix, key);
    if (n < 0 || (size_t)n >= sizeof name)
        return 0;
    sink->put(sink, name, (size_t)n, v);
    return 1;
}

/* A number the text holds at *p, advancing *p past it: strtod and strtoll
 * report where they stopped and a value out of range (errno), where
 * sscanf's %lld is undefined for one. */
static bool read_real(char **p, double *out)
{
    char *e;
    errno = 0;
    *out = strtod(*p, &e);
    if (e == *p || errno == ERANGE)
        return false;
    *p = e;
    return true;
}

static bool read_count(char **p, long long *out)
{
    char *e;
    errno = 0;
    *out = strtoll(*p, &e, 10);
    if (e == *p || errno == ERANGE || *out < 0)
        return false;
    *p = e;
    return true;
}

/* "0.52 0.58 0.59 2/1234 56789": three load averages, the runnable tasks
 * over all tasks, and the last pid (not a figure: left out). */
static int parse_loadavg(const char *buf, size_t len, const char *prefix, struct sink *sink)
{
    char text[128];
    if (len >= sizeof text)
        len = sizeof text - 1;
    memcpy(text, buf, len);
    text[len] = '\0';
    char *p = text;
    double load[3];
    long long running, tasks;
    for (int i = 0; i < 3; i++)
        if (!read_real(&p, &load[i]))
            return -1;
    if (!read_count(&p, &running) || *p++ != '/' || !read_count(&p, &tasks))
        return -1;
    static const char *const keys[] = { "load1", "load5", "load15" };
    int put = 0;
    for (int i = 0; i < 3; i++)
        put += put_value(sink, prefix, keys[i], (struct pm_value){ .kind = PM_REAL, .r = load[i] });
    put += put_value(sink, prefix, "running", (struct pm_value){ .kind = PM_INT, .i = running });
    put += put_value(sink, prefix, "tasks", (struct pm_value){ .kind = PM_INT, .i = tasks });
    return put;
}

enum { LOADAVG_LOAD1_MAX };
static const struct metric_def loadavg_defs[] = {
    [LOADAVG_LOAD1_MAX] = METRIC("loadavg.load1_max", "tasks", PM_LOWER,
                  "the highest 1-minute load average at a tick: runnable tasks and those in D state (reclaim, swap-in)"),
};
static const struct metric_group loadavg_metrics = METRIC_GROUP(
    "loadavg: /proc/loadavg, the skeleton source", loadavg_defs);

static int loadavg_derive(const struct series_table *t, long page_size, struct metric_set *out,
                          struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    double v;
    if (series_max(t, "loadavg.load1", &v))
        return metric_put(out, &loadavg_defs[LOADAVG_LOAD1_MAX], v);
    return 0;
}

static void loadavg_init(struct source_set *ss, const struct source_opts *o)
{
    source_add_file(ss, "loadavg", o->proc_root, "loadavg", "loadavg", parse_loadavg);
}

static const struct metric_group *const loadavg_groups[] = { &loadavg_metrics, NULL };
const struct source_def source_loadavg = {
    .init = loadavg_init, .derive = loadavg_derive, .metrics = loadavg_groups,
};
