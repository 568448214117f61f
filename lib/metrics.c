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

const struct latency_member_def metric_latency_members[LAT_MEMBERS] = {
    [LAT_SAMPLES] = { "_samples", "count", PM_NEITHER, "latencies recorded: %s" },
    [LAT_P50] = { "_p50_us", "us", PM_LOWER, "median of %s (within 0.8%%, log-linear histogram)" },
    [LAT_P90] = { "_p90_us", "us", PM_LOWER, "90th percentile of %s" },
    [LAT_P99] = { "_p99_us", "us", PM_LOWER, "99th percentile of %s" },
    [LAT_P999] = { "_p999_us", "us", PM_LOWER, "99.9th percentile of %s" },
    [LAT_MAX] = { "_max_us", "us", PM_LOWER, "the longest of %s" },
    [LAT_MEAN] = { "_mean_us", "us", PM_LOWER, "mean of %s" },
};

int metric_put(struct metric_set *ms, const struct metric_def *d, double value)
{
    return metric_set_put(ms, d->name, value, d->unit, d->dir);
}

int metric_put_word(struct metric_set *ms, const struct metric_def *d, const char *word, double value)
{
    char name[96];
    const char *lt = strchr(d->name, '<'), *gt = lt ? strchr(lt, '>') : NULL;
    if (!gt)
        return metric_put(ms, d, value);
    snprintf(name, sizeof name, "%.*s%s%s", (int)(lt - d->name), d->name, word, gt + 1);
    return metric_set_put(ms, name, value, d->unit, d->dir);
}

/* A pattern's "<word>" matches one or more of [a-z0-9_]; everything else
 * matches itself. */
static bool matches(const char *pat, const char *s)
{
    while (*pat) {
        if (*pat == '<') {
            const char *end = strchr(pat, '>');
            if (!end)
                return false;
            size_t n = 0;
            while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
                n++;
            /* The word is greedy but may give back what the rest needs. */
            for (; n > 0; n--)
                if (matches(end + 1, s + n))
                    return true;
            return false;
        }
        if (*pat++ != *s++)
            return false;
    }
    return *s == '\0';
}

bool metric_def_matches(const struct metric_def *d, const char *name, const char **unit, enum metric_dir *dir)
{
    if (!d->latency) {
        *unit = d->unit;
        *dir = d->dir;
        return matches(d->name, name);
    }
    size_t n = strlen(d->name);
    if (strncmp(name, d->name, n) != 0)
        return false;
    for (size_t i = 0; i < LAT_MEMBERS; i++)
        if (strcmp(name + n, metric_latency_members[i].suffix) == 0) {
            *unit = metric_latency_members[i].unit;
            *dir = metric_latency_members[i].dir;
            return true;
        }
    return false;
}

const struct metric_def *metric_groups_find(const struct metric_group *const *g, size_t n, const char *name,
                                            const char **unit, enum metric_dir *dir)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < g[i]->n; k++)
            if (metric_def_matches(&g[i]->defs[k], name, unit, dir))
                return &g[i]->defs[k];
    return NULL;
}

static const char *better(enum metric_dir d)
{
    return d == PM_HIGHER ? "higher" : d == PM_LOWER ? "lower" : "-";
}

/* Words wrapped at 110 columns, continuation lines under the text. */
static void wrapped(FILE *f, const char *text, size_t col, size_t indent)
{
    const char *p = text;
    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t w = sp ? (size_t)(sp - p) : strlen(p);
        if (col + 1 + w > 110 && col > indent) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (p != text) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)w, p);
        col += w;
        p += w;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

/* A unit is always followed by a blank: the columns stay apart for the
 * readers of this text (t17, the man page) whatever a unit's length. */
enum { NAME_W = 40, UNIT_W = 10, DIR_W = 8, TEXT_COL = 2 + NAME_W + 2 + UNIT_W + 1 + DIR_W };

static void print_row(FILE *f, const char *name, const char *unit, enum metric_dir dir, const char *meaning)
{
    fprintf(f, "  %-*s  %-*s %-*s", NAME_W, name, UNIT_W, unit, DIR_W, better(dir));
    wrapped(f, meaning, TEXT_COL, TEXT_COL);
}

static void print_def(FILE *f, const struct metric_def *d)
{
    if (!d->latency) {
        print_row(f, d->name, d->unit, d->dir, d->meaning);
        return;
    }
    for (size_t i = 0; i < LAT_MEMBERS; i++) {
        const struct latency_member_def *m = &metric_latency_members[i];
        char name[96], text[512];
        snprintf(name, sizeof name, "%s%s", d->name, m->suffix);
        /* The member's text is pressmark's own format with the def's meaning as its argument. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(text, sizeof text, m->text, d->meaning);
#pragma GCC diagnostic pop
        print_row(f, name, m->unit, m->dir, text);
    }
}

void metric_groups_print(FILE *f, const struct metric_group *const *g, size_t n)
{
    fprintf(f, "\n  %-*s  %-*s %-*s%s\n", NAME_W, "metric", UNIT_W, "unit", DIR_W, "better", "what it is");
    for (size_t i = 0; i < n; i++) {
        const char *colon = strchr(g[i]->title, ':');
        size_t len = colon ? (size_t)(colon - g[i]->title) : strlen(g[i]->title);
        fprintf(f, "\n%.*s metrics:\n", (int)len, g[i]->title);
        if (colon && colon[1])
            wrapped(f, colon + (colon[1] == ' ' ? 2 : 1), 0, 0);
        for (size_t k = 0; k < g[i]->n; k++)
            print_def(f, &g[i]->defs[k]);
    }
}
