#include "harness/catalogue.h"
#include <stdio.h>
#include <string.h>
#include "collectors/sources.h"
#include "figures/figures.h"
#include "harness/observer.h"
#include "harness/sibling.h"
#include "harness/stalls.h"
#include "workloads/workload.h"

#define MAX_GROUPS 64

const struct metric_group *const *catalogue_groups(size_t *n)
{
    static const struct metric_group *groups[MAX_GROUPS];
    static size_t count;
    if (count) {
        *n = count;
        return groups;
    }
    size_t k = 0;
    groups[k++] = &run_time_metrics;
    for (int i = 0; i < SRC_COUNT; i++)
        for (size_t g = 0; source_registry[i]->metrics && source_registry[i]->metrics[g] && k < MAX_GROUPS; g++)
            groups[k++] = source_registry[i]->metrics[g];
    if (k + 3 <= MAX_GROUPS) {
        groups[k++] = &harness_stall_metrics;
        groups[k++] = &observer_metrics;
        groups[k++] = &sibling_metrics;
    }
    for (size_t i = 0; wl_registry[i] && k < MAX_GROUPS; i++)
        if (wl_registry[i]->metrics)
            groups[k++] = wl_registry[i]->metrics;
    /* A tool's own figures (record --figures PARSER), each parser's table. */
    static struct metric_group parsers[16];
    static char titles[16][160];
    for (size_t i = 0; figures_parsers_table[i] && i < 16 && k < MAX_GROUPS; i++) {
        const struct figure_parser *p = figures_parsers_table[i];
        snprintf(titles[i], sizeof titles[i], "%s: record --figures %s, read from %s", p->name, p->name, p->reads);
        parsers[i] = (struct metric_group){ .title = titles[i], .defs = p->defs, .n = p->n };
        groups[k++] = &parsers[i];
    }
    count = k;
    *n = count;
    return groups;
}

const struct metric_def *catalogue_find(const char *name, const char **unit, enum metric_dir *dir)
{
    size_t n;
    const struct metric_group *const *g = catalogue_groups(&n);
    const struct metric_def *d = metric_groups_find(g, n, name, unit, dir);
    /* The sibling hog's metrics are its workload's and its cgroup's,
     * declared where they are made, under the name "sibling.X". */
    if (!d && strncmp(name, "sibling.", 8) == 0 && strncmp(name + 8, "sibling.", 8) != 0)
        d = metric_groups_find(g, n, name + 8, unit, dir);
    return d;
}

const char *catalogue_check(const char *name, const char *unit, enum metric_dir dir)
{
    static char why[256];
    const char *du;
    enum metric_dir dd;
    if (!catalogue_find(name, &du, &dd))
        snprintf(why, sizeof why, "metric %s is not declared (add it to its producer's metric table)", name);
    else if (strcmp(du, unit) != 0 || dd != dir)
        snprintf(why, sizeof why, "metric %s is stored as %s, %s; its declaration says %s, %s", name, unit,
                 metric_dir_name(dir), du, metric_dir_name(dd));
    else
        return NULL;
    return why;
}

int catalogue_check_declared(const struct workload_ops *wl, void *state, struct pm_err *err)
{
    const char *name, *unit;
    enum metric_dir dir;
    for (size_t i = 0; wl->declared && (name = wl->declared(state, i)); i++) {
        const struct metric_def *d = catalogue_find(name, &unit, &dir);
        if (d)
            return pm_errf(err, "--figure %s: a metric pressmark declares (%s, %s; accepted: a name 'pressmark help "
                           "metrics' does not list)", name, d->name, unit);
    }
    return 0;
}

void catalogue_print(FILE *f)
{
    size_t n;
    const struct metric_group *const *g = catalogue_groups(&n);
    metric_groups_print(f, g, n);
}
