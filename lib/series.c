#include "lib/series.h"
#include "lib/alloc.h"
#include "lib/hash.h"
#include <stdlib.h>
#include <string.h>

void series_table_init(struct series_table *t)
{
    memset(t, 0, sizeof *t);
}

void series_table_free(struct series_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].name);
    free(t->v);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int rehash(struct series_table *t, size_t nslots)
{
    size_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t h = pm_fnv1a(PM_FNV1A_INIT, t->v[i].name, strlen(t->v[i].name)) & (nslots - 1);
        while (slots[h])
            h = (h + 1) & (nslots - 1);
        slots[h] = i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

static struct series *lookup(const struct series_table *t, const char *name, size_t len, size_t *slot)
{
    if (!t->nslots)
        return NULL;
    size_t h = pm_fnv1a(PM_FNV1A_INIT, name, len) & (t->nslots - 1);
    while (t->slots[h]) {
        struct series *s = &t->v[t->slots[h] - 1];
        if (strncmp(s->name, name, len) == 0 && s->name[len] == '\0')
            return s;
        h = (h + 1) & (t->nslots - 1);
    }
    if (slot)
        *slot = h;
    return NULL;
}

struct series *series_table_get(struct series_table *t, const char *name, size_t len)
{
    size_t slot = 0;
    struct series *s = lookup(t, name, len, &slot);
    if (s)
        return s;
    if ((t->n + 1) * 2 > t->nslots) {
        if (rehash(t, t->nslots ? t->nslots * 2 : 512) < 0)
            return NULL;
        lookup(t, name, len, &slot);
    }
    if (ALLOC_GROW(t->v, t->n + 1, t->cap) < 0)
        return NULL;
    char *copy = strndup(name, len);
    if (!copy)
        return NULL;
    s = &t->v[t->n];
    memset(s, 0, sizeof *s);
    s->name = copy;
    t->slots[slot] = ++t->n;
    return s;
}

const struct series *series_table_find(const struct series_table *t, const char *name)
{
    return lookup(t, name, strlen(name), NULL);
}

void series_record(struct series *s, struct pm_value v)
{
    double d = pm_value_as_double(v);
    if (s->ticks == 0) {
        s->first = v;
        s->max = d;
    } else if (d > s->max) {
        s->max = d;
    }
    s->last = v;
    s->ticks++;
}

double pm_value_as_double(struct pm_value v)
{
    return v.kind == PM_INT ? (double)v.i : v.r;
}

static double delta_of(const struct series *s)
{
    if (s->first.kind == PM_INT && s->last.kind == PM_INT)
        return (double)(s->last.i - s->first.i);
    return pm_value_as_double(s->last) - pm_value_as_double(s->first);
}

bool series_delta(const struct series_table *t, const char *name, double *delta)
{
    const struct series *s = series_table_find(t, name);
    if (!s || !s->ticks)
        return false;
    *delta = delta_of(s);
    return true;
}

bool series_last(const struct series_table *t, const char *name, double *last)
{
    const struct series *s = series_table_find(t, name);
    if (!s || !s->ticks)
        return false;
    *last = pm_value_as_double(s->last);
    return true;
}

void series_rate_step(struct series *s, double dt)
{
    double v = pm_value_as_double(s->last);
    if (s->ticks >= 2 && dt > 0) {
        double r = (v - s->prev) / dt;
        if (s->rates == 0 || r < s->rate_min)
            s->rate_min = r;
        if (s->rates == 0 || r > s->rate_max)
            s->rate_max = r;
        s->rates++;
    }
    s->prev = v;
}

bool series_rate_range(const struct series_table *t, const char *name, double *min, double *max)
{
    const struct series *s = series_table_find(t, name);
    if (!s || !s->rates)
        return false;
    *min = s->rate_min;
    *max = s->rate_max;
    return true;
}

bool series_max(const struct series_table *t, const char *name, double *max)
{
    const struct series *s = series_table_find(t, name);
    if (!s || !s->ticks)
        return false;
    *max = s->max;
    return true;
}

/* Per-zone counter suffixes the kernel has used; anything else after the
 * prefix (pgscan_direct_throttle) is a different counter, not a zone. */
bool series_is_zone_suffix(const char *s)
{
    static const char *zones[] = { "dma", "dma32", "normal", "high", "highmem", "movable", "device" };
    for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++)
        if (strcmp(s, zones[i]) == 0)
            return true;
    return false;
}

int series_delta_prefix(const struct series_table *t, const char *prefix, double *sum)
{
    size_t plen = strlen(prefix);
    int count = 0;
    *sum = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct series *s = &t->v[i];
        if (!s->ticks || strncmp(s->name, prefix, plen) != 0)
            continue;
        if (s->name[plen] != '\0' && !(s->name[plen] == '_' && series_is_zone_suffix(s->name + plen + 1)))
            continue;
        *sum += delta_of(s);
        count++;
    }
    return count;
}

static void table_put(struct sink *self, const char *name, size_t len, struct pm_value v)
{
    struct table_sink *ts = (struct table_sink *)self;
    struct series *s = series_table_get(ts->table, name, len);
    if (s)
        series_record(s, v);
}

void pm_table_sink_init(struct table_sink *ts, struct series_table *t)
{
    ts->base.put = table_put;
    ts->table = t;
}
