#include "figures/figures.h"
#include "figures/text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line per parser, in the order help lists them: X(name) stands for
 * the parser figures_name its own file defines. */
#define PM_FIGURE_PARSERS(X) \
    X(fio)                   \
    X(stress_ng)             \
    X(redis_benchmark)       \
    X(pgbench)               \
    X(sysbench)              \
    X(hackbench)             \
    X(memcaslap)

#define DECLARE(name) extern const struct figure_parser figures_##name;
PM_FIGURE_PARSERS(DECLARE)
#define ENTRY(name) &figures_##name,
const struct figure_parser *const figures_parsers_table[] = { PM_FIGURE_PARSERS(ENTRY) NULL };

const struct figure_parser *figures_parser(const char *name)
{
    for (size_t i = 0; name && figures_parsers_table[i]; i++)
        if (strcmp(figures_parsers_table[i]->name, name) == 0)
            return figures_parsers_table[i];
    return NULL;
}

void figures_parsers(char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; figures_parsers_table[i] && n < len; i++) {
        int w = snprintf(buf + n, len - n, "%s%s", i ? ", " : "", figures_parsers_table[i]->name);
        if (w < 0)
            return;
        n += (size_t)w;
    }
}

const struct figure *figures_headline(const struct figure_parser *p, const struct figure_set *s)
{
    for (size_t k = 0; p->headline && p->headline[k]; k++) {
        const struct metric_def d = { .name = p->headline[k] };
        for (size_t i = 0; i < s->n; i++) {
            const char *unit;
            enum metric_dir dir;
            if (metric_def_matches(&d, s->v[i].name, &unit, &dir))
                return &s->v[i];
        }
    }
    return NULL;
}

bool figures_declares(const struct figure_parser *p, const char *name)
{
    for (size_t k = 0; k < p->n; k++) {
        const char *unit;
        enum metric_dir dir;
        if (metric_def_matches(&p->defs[k], name, &unit, &dir))
            return true;
    }
    return false;
}

int figures_parse_log(const char *parser, const char *text, size_t len, const char *log, size_t log_len,
                      struct figure_set *out, struct pm_err *err)
{
    const struct figure_parser *p = figures_parser(parser);
    if (!p) {
        char names[256];
        figures_parsers(names, sizeof names);
        return pm_errf(err, "unknown figures parser '%.64s' (known: %s)", parser ? parser : "", names);
    }
    if (log && !p->takes_log)
        return pm_errf(err, "%s: takes no log, only the tool's output", p->name);
    struct pm_err e = { "" };
    char *t = fig_text_copy("output", text ? text : "", text ? len : 0, &e), *l = NULL;
    if (t && log)
        l = fig_text_copy("log", log, log_len, &e);
    size_t before = out->n;
    int rc = t && (!log || l) ? p->parse(t, l, out, &e) : -1;
    if (rc == 0 && out->n == before)
        rc = pm_errf(&e, "no figure read");
    free(t);
    free(l);
    if (rc < 0) {
        /* Nothing read from an output that failed is kept: a run with
         * half its figures would look whole in a report. */
        out->n = before;
        return pm_errf(err, "%s: %s", p->name, e.msg);
    }
    return 0;
}

int figures_parse(const char *parser, const char *text, size_t len, struct figure_set *out, struct pm_err *err)
{
    return figures_parse_log(parser, text, len, NULL, 0, out, err);
}
