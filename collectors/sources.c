#include "collectors/sources.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Made from the registry (PM_SOURCES in sources.h): adding a source is its
 * own file (its struct source_def, its collectors, its derived metrics)
 * and a line there. */
#define PM_SOURCE_EXTERN(name) extern const struct source_def source_##name;
PM_SOURCES(PM_SOURCE_EXTERN)
#define PM_SOURCE_ENTRY(name) &source_##name,
const struct source_def *const source_registry[SRC_COUNT] = { PM_SOURCES(PM_SOURCE_ENTRY) };
#define PM_SOURCE_NAME(name) #name,
const char *const source_names[SRC_COUNT] = { PM_SOURCES(PM_SOURCE_NAME) };

void sources_init(struct source_set *ss, const struct source_opts *o)
{
    memset(ss, 0, sizeof *ss);
    struct source_opts with_root = *o;
    if (!with_root.proc_root)
        with_root.proc_root = "/proc";
    for (int i = 0; i < SRC_COUNT; i++)
        if (!(o->off & (1u << i)))
            source_registry[i]->init(ss, &with_root);
}

int derive_metrics(const struct series_table *t, long page_size, struct metric_set *out,
                   struct derive_notes *notes)
{
    struct derive_notes unused;
    if (!notes)
        notes = &unused;
    memset(notes, 0, sizeof *notes);
    int rc = 0;
    for (int i = 0; i < SRC_COUNT; i++)
        if (source_registry[i]->derive)
            rc |= source_registry[i]->derive(t, page_size, out, notes);
    return rc ? -1 : 0;
}

void sources_open(struct source_set *ss)
{
    for (size_t i = 0; i < ss->n; i++) {
        struct collector *c = &ss->cols[i];
        struct pm_err err;
        if (c->ops->open(c, &err) == 0) {
            c->open_ok = true;
        } else {
            c->open_ok = false;
            snprintf(c->note, sizeof c->note, "absent: %s", err.msg);
        }
    }
}

void sources_close(struct source_set *ss)
{
    for (size_t i = 0; i < ss->n; i++) {
        if (ss->cols[i].open_ok)
            ss->cols[i].ops->close(&ss->cols[i]);
        free(ss->cols[i].slot_cache);
        ss->cols[i].slot_cache = NULL;
    }
}

int sources_parse_collect(const char *text, unsigned *off, struct pm_err *err)
{
    /* Commas or spaces: a suite file's commas make an axis, so there
     * "collect = -procs -mthp" is one value. */
    const char *p = text;
    for (;;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, ", ");
        const char *w = p;
        size_t wn = n;
        bool on = true;
        if (wn && (*w == '-' || *w == '+')) {
            on = *w == '+';
            w++;
            wn--;
        }
        int id = -1;
        for (int i = 0; i < SRC_COUNT; i++)
            if (strlen(source_names[i]) == wn && strncmp(source_names[i], w, wn) == 0)
                id = i;
        if (id < 0) {
            char accepted[256] = "";
            for (int i = 0; i < SRC_COUNT; i++)
                snprintf(accepted + strlen(accepted), sizeof accepted - strlen(accepted), "%s%s", i ? ", " : "",
                         source_names[i]);
            return pm_errf(err, "'%.*s' is not a source (accepted: -NAME or +NAME, separated by commas or spaces, "
                           "NAME one of %s)", (int)n, p, accepted);
        }
        if (on)
            *off &= ~(1u << id);
        else
            *off |= 1u << id;
        p += n;
        while (*p == ' ')
            p++;
        if (*p == '\0')
            return 0;
        if (*p == ',')
            p++;        /* a word must follow: "-procs," is refused by the next round */
    }
}

void sources_describe_off(unsigned off, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < SRC_COUNT && o < len; i++)
        if (off & (1u << i))
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", source_names[i]);
}
