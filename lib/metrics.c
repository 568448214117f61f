#include "lib/metrics.h"
#include "lib/alloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_names[] = { [PM_NEITHER] = "none", [PM_HIGHER] = "higher", [PM_LOWER] = "lower" };

const char *metric_dir_name(enum metric_dir d)
{
    return (unsigned)d < sizeof dir_names / sizeof dir_names[0] ? dir_names[d] : "none";
}

enum metric_dir metric_dir_parse(const char *name)
{
    for (size_t i = 0; i < sizeof dir_names / sizeof dir_names[0]; i++)
        if (name && strcmp(name, dir_names[i]) == 0)
            return (enum metric_dir)i;
    return PM_NEITHER;
}

int metric_set_put(struct metric_set *ms, const char *name, double value, const char *unit,
                   enum metric_dir direction)
{
    struct metric *m = (struct metric *)metric_set_find(ms, name);
    if (!m) {
        if (ALLOC_GROW(ms->v, ms->n + 1, ms->cap) < 0)
            return -1;
        m = &ms->v[ms->n++];
        snprintf(m->name, sizeof m->name, "%s", name);
    }
    m->value = value;
    snprintf(m->unit, sizeof m->unit, "%s", unit);
    snprintf(m->direction, sizeof m->direction, "%s", metric_dir_name(direction));
    return 0;
}

const struct metric *metric_set_find(const struct metric_set *ms, const char *name)
{
    for (size_t i = 0; i < ms->n; i++)
        if (strcmp(ms->v[i].name, name) == 0)
            return &ms->v[i];
    return NULL;
}

void metric_set_free(struct metric_set *ms)
{
    free(ms->v);
    memset(ms, 0, sizeof *ms);
}
