#include "harness/metrics.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int metric_set_put(struct metric_set *ms, const char *name, double value, const char *unit,
                   const char *direction)
{
    struct metric *m = (struct metric *)metric_set_find(ms, name);
    if (!m) {
        if (ms->n == ms->cap) {
            size_t cap = ms->cap ? ms->cap * 2 : 32;
            struct metric *v = realloc(ms->v, cap * sizeof *v);
            if (!v)
                return -1;
            ms->v = v;
            ms->cap = cap;
        }
        m = &ms->v[ms->n++];
        snprintf(m->name, sizeof m->name, "%s", name);
    }
    m->value = value;
    snprintf(m->unit, sizeof m->unit, "%s", unit);
    snprintf(m->direction, sizeof m->direction, "%s", direction);
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
