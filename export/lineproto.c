#include "export/lineproto.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/units.h"

static int put(struct lp_buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 65536;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

static int puts_(struct lp_buf *b, const char *s)
{
    return put(b, s, strlen(s));
}

/* Line protocol escaping: measurement names escape commas and spaces;
 * tag keys, tag values and field keys also escape '='. A backslash is
 * doubled everywhere: left alone, one at the end of a key would escape
 * the '=' that follows it. CR and LF would end the point: they become
 * spaces, escaped as every space is (a bare one ends the tags). */
static int put_escaped(struct lp_buf *b, const char *s, bool equals)
{
    for (; *s; s++) {
        if (*s == ',' || *s == ' ' || *s == '\n' || *s == '\r' || *s == '\\' || (equals && *s == '=')) {
            if (put(b, "\\", 1) < 0)
                return -1;
        }
        char c = *s == '\n' || *s == '\r' ? ' ' : *s;
        if (put(b, &c, 1) < 0)
            return -1;
    }
    return 0;
}

static int put_tag(struct lp_buf *b, const char *k, const char *v)
{
    if (!v || !*v)
        return 0;                   /* an empty tag value is not allowed */
    return puts_(b, ",") | put_escaped(b, k, true) | puts_(b, "=") | put_escaped(b, v, true);
}

/* A field; one that has no value the protocol can carry (NaN, an empty
 * key, which a server refuses with the whole batch) is left out. */
static int put_field(struct lp_buf *b, bool *first, const char *k, double v)
{
    if (!isfinite(v) || !*k)
        return 0;
    char num[PM_EXACT_LEN];
    pm_fmt_exact(num, sizeof num, v);
    int rc = puts_(b, *first ? " " : ",") | put_escaped(b, k, true) | puts_(b, "=") | puts_(b, num);
    *first = false;
    return rc;
}

/* A field whose value is written already (a tick's, exactly as stored). */
static int put_field_text(struct lp_buf *b, bool *first, const char *k, const char *num)
{
    if (!*k)
        return 0;
    int rc = puts_(b, *first ? " " : ",") | put_escaped(b, k, true) | puts_(b, "=") | puts_(b, num);
    *first = false;
    return rc;
}

static int put_head(struct lp_buf *b, const struct run_head *h, const char *suffix)
{
    char m[128];
    snprintf(m, sizeof m, "pressmark_%s%s", h->workload, suffix);
    return put_escaped(b, m, false) | put_tag(b, "host", h->host) | put_tag(b, "kernel", h->kernel) |
           put_tag(b, "label", h->label) | put_tag(b, "run", h->uuid) | put_tag(b, "status", h->status) |
           put_tag(b, "workload", h->workload);
}

static int put_stamp(struct lp_buf *b, int64_t ns)
{
    char ts[48];
    snprintf(ts, sizeof ts, " %lld\n", (long long)ns);
    return puts_(b, ts);
}

struct run_fields {
    struct lp_buf *b;
    bool first;
    lp_keep_fn keep;
    void *ctx;
};

static int metric_field(void *arg, const char *name, double value, const char *unit, const char *direction,
                        struct pm_err *err)
{
    (void)unit;
    (void)direction;
    struct run_fields *rf = arg;
    if (rf->keep && !rf->keep(rf->ctx, name))
        return 0;
    if (put_field(rf->b, &rf->first, name, value) < 0)
        return pm_errf(err, "out of memory");
    return 0;
}

int lp_run_point(struct pm_db *db, const struct run_head *h, lp_keep_fn keep, void *ctx, struct lp_buf *b,
                 struct pm_err *err)
{
    struct run_fields rf = { .b = b, .first = true, .keep = keep, .ctx = ctx };
    if (put_head(b, h, "") < 0)
        return pm_errf(err, "out of memory");
    if (store_run_metrics_each(db, h->id, metric_field, &rf, err) < 0)
        return -1;
    int rc = 0;
    if (rf.first)
        rc |= put_field(b, &rf.first, "runs", 1);
    rc |= put_stamp(b, h->started_ns);
    return rc ? pm_errf(err, "out of memory") : 0;
}

int lp_tick_point(const struct run_head *h, const struct tick_reader *rd, const bool *keep, struct lp_buf *b)
{
    bool first = true;
    int rc = put_head(b, h, "_samples");
    char num[32];
    for (size_t i = 0; i < rd->n; i++)
        if ((!keep || keep[i]) && tick_reader_text(rd, i, num))
            rc |= put_field_text(b, &first, rd->names[i], num);
    if (first)
        rc |= put_field(b, &first, "ticks", 1);
    /* In unsigned arithmetic: a database's times may be anything. */
    rc |= put_stamp(b, (int64_t)((uint64_t)h->started_ns + (uint64_t)rd->t_ns));
    return rc ? -1 : 0;
}

void lp_buf_free(struct lp_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}
