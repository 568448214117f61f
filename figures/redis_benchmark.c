/* redis-benchmark --csv: each test's requests per second and its latency
 * columns (ms), found by the header's names so a column moved does not
 * move a figure. */
#include <stdio.h>
#include <string.h>
#include "figures/text.h"

static const struct metric_def redis_defs[] = {
    METRIC("redis_benchmark.<test>.requests_per_s", "req/s", PM_HIGHER, "a test's requests per second (rps)"),
    METRIC("redis_benchmark.<test>.latency_avg_ms", "ms", PM_LOWER, "a test's mean latency (avg_latency_ms)"),
    METRIC("redis_benchmark.<test>.latency_min_ms", "ms", PM_LOWER, "a test's shortest latency (min_latency_ms)"),
    METRIC("redis_benchmark.<test>.latency_p50_ms", "ms", PM_LOWER, "a test's median latency (p50_latency_ms)"),
    METRIC("redis_benchmark.<test>.latency_p95_ms", "ms", PM_LOWER,
           "95th percentile of a test's latency (p95_latency_ms)"),
    METRIC("redis_benchmark.<test>.latency_p99_ms", "ms", PM_LOWER,
           "99th percentile of a test's latency (p99_latency_ms)"),
    METRIC("redis_benchmark.<test>.latency_max_ms", "ms", PM_LOWER, "a test's longest latency (max_latency_ms)"),
};
#define R_FIGURES (sizeof redis_defs / sizeof redis_defs[0])
/* Each figure's column, by the header's name for it. */
static const char *const redis_cols[R_FIGURES] = { "rps",            "avg_latency_ms", "min_latency_ms",
                                                   "p50_latency_ms", "p95_latency_ms", "p99_latency_ms",
                                                   "max_latency_ms" };
#define R_MAX_FIELDS 16

/* line's comma-separated fields, in place: "quoted" (a quote inside
 * doubled) or bare. The count, or -1 for a quote left open, text after a
 * closing quote or more than max fields. */
static int csv_fields(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return -1;
        if (*p == '"') {
            char *o = f[n++] = ++p;
            for (;; p++) {
                if (!*p)
                    return -1;
                if (*p == '"' && p[1] == '"')
                    *o++ = *p++;
                else if (*p == '"')
                    break;
                else
                    *o++ = *p;
            }
            *o = '\0';
            p++;
            if (*p && *p != ',')
                return -1;
        } else {
            f[n++] = p;
            p += strcspn(p, ",");
        }
        if (!*p)
            return n;
        *p++ = '\0';
    }
}

struct redis_csv {
    int fields;                  /* the header's count; 0 before it */
    int col[R_FIGURES];
    bool rows;
};

/* The header: a column for every figure, or the figure that has none. */
static int redis_header(struct redis_csv *c, char **f, int n, struct pm_err *err)
{
    for (size_t k = 0; k < R_FIGURES; k++) {
        c->col[k] = -1;
        for (int i = 1; i < n; i++)
            if (strcmp(f[i], redis_cols[k]) == 0) {
                if (c->col[k] >= 0)
                    return pm_errf(err, "the CSV header has \"%s\" twice", redis_cols[k]);
                c->col[k] = i;
            }
        if (c->col[k] < 0)
            return pm_errf(err, "no %s: the CSV header has no \"%s\" column", redis_defs[k].name, redis_cols[k]);
    }
    c->fields = n;
    return 0;
}

static int redis_row(const struct redis_csv *c, char **f, int n, unsigned no, struct figure_set *out,
                     struct pm_err *err)
{
    char word[FIGURES_MAX_WORD + 1];
    double v[R_FIGURES];
    if (n != c->fields)
        return pm_errf(err, "line %u has %d fields, the header %d", no, n, c->fields);
    if (!fig_word(f[0], strlen(f[0]), word))
        return pm_errf(err, "line %u: the test's name has no letter or digit to name its figures", no);
    for (size_t k = 0; k < R_FIGURES; k++)
        if (!fig_number_all(f[c->col[k]], &v[k]))
            return pm_errf(err, "line %u: the test %s's %s is not a number", no, word, redis_cols[k]);
    for (size_t k = 0; k < R_FIGURES; k++)
        if (figure_set_add(out, &redis_defs[k], word, v[k], err) < 0)
            return -1;
    return 0;
}

/* Lines before the header are passed over (what redis-benchmark says on
 * its standard error, when both were kept together); after it, every line
 * is a test's row. */
static int redis_parse(const char *text, const char *log, struct figure_set *out, struct pm_err *err)
{
    (void)log;
    struct fig_lines it;
    struct redis_csv c = { .fields = 0 };
    char *f[R_MAX_FIELDS];
    fig_lines_init(&it, text);
    while (fig_lines_next(&it)) {
        if (it.long_line && c.fields)
            return pm_errf(err, "line %u is longer than any row of redis-benchmark's CSV", it.no);
        if (!*it.line)
            continue;
        int n = csv_fields(it.line, f, R_MAX_FIELDS);
        if (c.fields == 0) {
            if (n > 1 && strcmp(f[0], "test") == 0 && redis_header(&c, f, n, err) < 0)
                return -1;
            continue;
        }
        if (n < 0)
            return pm_errf(err, "line %u is not a row of redis-benchmark's CSV", it.no);
        if (redis_row(&c, f, n, it.no, out, err) < 0)
            return -1;
        c.rows = true;
    }
    if (c.fields == 0)
        return fig_missing(err, "redis_benchmark.<test>.requests_per_s",
                           "no CSV header (\"test\",\"rps\",...: redis-benchmark --csv writes it)", text);
    if (!c.rows)
        return fig_missing(err, "redis_benchmark.<test>.requests_per_s", "the CSV has a header and no test's row",
                           text);
    return 0;
}

/* The headline (docs/guide/figures.md says why each). */
static const char *const redis_headline[] = { "redis_benchmark.<test>.requests_per_s", NULL };

const struct figure_parser figures_redis_benchmark = {
    .name = "redis-benchmark",
    .reads = "redis-benchmark --csv",
    .defs = redis_defs,
    .n = R_FIGURES,
    .headline = redis_headline,
    .parse = redis_parse,
};
