#include "figures/figures.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"

int figure_name(const struct metric_def *d, const char *word, char *buf, size_t len)
{
    const char *lt = strchr(d->name, '<'), *gt = lt ? strchr(lt, '>') : NULL;
    int n = gt ? snprintf(buf, len, "%.*s%s%s", (int)(lt - d->name), d->name, word ? word : "", gt + 1)
               : snprintf(buf, len, "%s", d->name);
    return n < 0 || (size_t)n >= len || (gt && !word) ? -1 : 0;
}

int figure_set_add(struct figure_set *s, const struct metric_def *d, const char *word, double value,
                   struct pm_err *err)
{
    char name[sizeof s->v[0].name];
    if (figure_name(d, word, name, sizeof name) < 0)
        return pm_errf(err, "no name for the figure %s with '%.*s': more than %zu characters, or no word", d->name,
                       FIGURES_MAX_WORD, word ? word : "", sizeof name - 1);
    if (!isfinite(value))
        return pm_errf(err, "%s is not a finite number", name);
    /* Every figure a parser declares is a rate, a time or a count. */
    if (value < 0)
        return pm_errf(err, "%s is negative (%g)", name, value);
    /* The same name twice means the output held a job, test or line twice
     * (or two names that read alike): which one is the figure is unknown. */
    if (figure_set_find(s, name))
        return pm_errf(err, "%s is in the output twice", name);
    if (s->n >= FIGURES_MAX)
        return pm_errf(err, "more than %d figures (at %s)", FIGURES_MAX, name);
    if (ALLOC_GROW(s->v, s->n + 1, s->cap) < 0)
        return pm_errf(err, "out of memory for %s", name);
    struct figure *f = &s->v[s->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->value = value;
    snprintf(f->unit, sizeof f->unit, "%s", d->unit);
    f->dir = d->dir;
    return 0;
}

const struct figure *figure_set_find(const struct figure_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    return NULL;
}

void figure_set_free(struct figure_set *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
