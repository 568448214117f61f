#include "harness/catalogue.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "collectors/sources.h"
#include "figures/figures.h"
#include "harness/observer.h"
#include "harness/sibling.h"
#include "harness/stalls.h"
#include "workloads/workload.h"

#define MAX_GROUPS 64

#define MAX_FIGURE_GROUPS 8

/* The figures parsers' tables that workloads store figures of, each once,
 * under a heading that says who stores them. */
static size_t add_figure_groups(const struct metric_group **groups, size_t k)
{
    static struct metric_group fig[MAX_FIGURE_GROUPS];
    static char titles[MAX_FIGURE_GROUPS][160];
    size_t nf = 0;
    for (size_t i = 0; pm_workloads[i]; i++)
        for (size_t j = 0; pm_workloads[i]->figures && pm_workloads[i]->figures[j]; j++) {
            const struct figure_parser *p = figures_parser(pm_workloads[i]->figures[j]);
            bool seen = false;
            for (size_t f = 0; f < nf; f++)
                seen |= fig[f].defs == (p ? p->defs : NULL);
            if (!p || seen || nf == MAX_FIGURE_GROUPS || k == MAX_GROUPS)
                continue;
            snprintf(titles[nf], sizeof titles[nf], "%s: %s's own figures (%s; run %s)", p->name, p->name, p->reads,
                     pm_workloads[i]->name);
            fig[nf] = (struct metric_group){ .title = titles[nf], .defs = p->defs, .n = p->n };
            groups[k++] = &fig[nf++];
        }
    return k;
}

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
        for (size_t g = 0; pm_sources[i]->metrics && pm_sources[i]->metrics[g] && k < MAX_GROUPS; g++)
            groups[k++] = pm_sources[i]->metrics[g];
    if (k + 3 <= MAX_GROUPS) {
        groups[k++] = &stall_metrics;
        groups[k++] = &observer_metrics;
        groups[k++] = &sibling_metrics;
    }
    for (size_t i = 0; pm_workloads[i] && k < MAX_GROUPS; i++)
        if (pm_workloads[i]->metrics)
            groups[k++] = pm_workloads[i]->metrics;
    k = add_figure_groups(groups, k);
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

void catalogue_print(FILE *f)
{
    size_t n;
    const struct metric_group *const *g = catalogue_groups(&n);
    metric_groups_print(f, g, n);
}
