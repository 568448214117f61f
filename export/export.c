#include "export/export.h"
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "export/lineproto.h"
#include "store/runinfo.h"
#include "store/ticks.h"

const char *const export_format_names[] = { "csv", "jsonl", "line", NULL };

int export_parse_what(const char *text, unsigned *what, struct pm_err *err)
{
    static const char *const words[] = { "samples", "metrics", "meta" };
    *what = 0;
    const char *p = text;
    do {
        size_t n = strcspn(p, ","), k = 0;
        while (k < 3 && !(strlen(words[k]) == n && strncmp(p, words[k], n) == 0))
            k++;
        if (k == 3)
            return pm_errf(err, "'%.*s' is not something a run holds (accepted: samples, metrics or meta, or several "
                           "joined by commas)", (int)n, p);
        *what |= 1u << k;
        p += n;
    } while (*p++ == ',');
    return 0;
}

static unsigned what_of(const struct export_request *rq)
{
    return rq->what ? rq->what : EXPORT_SAMPLES;
}

int export_check(const struct export_request *rq, struct pm_err *err)
{
    unsigned what = what_of(rq);
    /* A CSV file is one table with one header: rows of samples, metrics
     * and metadata have different columns. */
    if (rq->format == EXPORT_CSV && (what & (what - 1)))
        return pm_errf(err, "--what: CSV is one table a file: samples, metrics or meta, one at a time (--format jsonl "
                       "and line take several)");
    if (rq->format == EXPORT_LINE && (what & EXPORT_META))
        return pm_errf(err, "--what: line protocol has no place for metadata (host, kernel, label, run, status and "
                       "workload are every point's tags; --format csv or jsonl carry the rest)");
    if (rq->wide && (rq->format != EXPORT_CSV || what != EXPORT_SAMPLES))
        return pm_errf(err, "--wide: lays out samples in CSV, a row per tick and a column per series (accepted with "
                       "--format csv and --what samples; jsonl and line are a record per tick already)");
    for (size_t g = 0; g < rq->nglobs; g++)
        if (!rq->globs[g][0])
            return pm_errf(err, "--series: an empty pattern (accepted: shell patterns such as 'vmstat.*' or "
                           "'meminfo.Mem*', joined by commas)");
    return 0;
}

static bool kept(const struct export_request *rq, const char *name)
{
    for (size_t g = 0; g < rq->nglobs; g++)
        if (fnmatch(rq->globs[g], name, 0) == 0)
            return true;
    return rq->nglobs == 0;
}

static bool kept_cb(void *ctx, const char *name)
{
    return kept(ctx, name);
}

/* What is known before the first byte: every run's head, which --series
 * pattern matched something, and --wide's columns, the kept series of
 * every run in order of first appearance. Its size is the runs' and
 * series' count, never the ticks'. */
struct plan {
    const struct export_request *rq;
    struct run_head *heads;
    bool *matched;                /* per --series pattern */
    char **cols;
    size_t ncols, capcols;
};

static int note_name(struct plan *p, const char *name, bool column, struct pm_err *err)
{
    for (size_t g = 0; g < p->rq->nglobs; g++)
        if (!p->matched[g] && fnmatch(p->rq->globs[g], name, 0) == 0)
            p->matched[g] = true;
    if (!column || !kept(p->rq, name))
        return 0;
    for (size_t c = 0; c < p->ncols; c++)
        if (strcmp(p->cols[c], name) == 0)
            return 0;
    if (p->ncols == p->capcols) {
        size_t cap = p->capcols ? p->capcols * 2 : 256;
        char **v = realloc(p->cols, cap * sizeof *v);
        if (!v)
            return pm_errf(err, "out of memory");
        p->cols = v;
        p->capcols = cap;
    }
    if (!(p->cols[p->ncols] = strdup(name)))
        return pm_errf(err, "out of memory");
    p->ncols++;
    return 0;
}

static int note_metric(void *ctx, const char *name, double value, const char *unit, const char *direction,
                       struct pm_err *err)
{
    (void)value;
    (void)unit;
    (void)direction;
    return note_name(ctx, name, false, err);
}

static int plan_run(struct pm_db *db, struct plan *p, size_t i, struct pm_err *err)
{
    const struct export_request *rq = p->rq;
    if (store_run_head_load(db, rq->runs[i], &p->heads[i], err) < 0)
        return -1;
    /* Every run's series are read here, also when no name is needed: a
     * run whose series cannot be read is refused before the first byte,
     * not after the runs before it went out. */
    if (what_of(rq) & EXPORT_SAMPLES) {
        struct tick_reader rd;
        if (tick_reader_open(&rd, db, rq->runs[i], err) < 0)
            return -1;
        int rc = 0;
        for (size_t s = 0; s < rd.n && rc == 0 && (rq->nglobs || rq->wide); s++)
            if (rd.names[s])
                rc = note_name(p, rd.names[s], rq->wide, err);
        tick_reader_close(&rd);
        if (rc < 0)
            return -1;
    }
    if ((what_of(rq) & EXPORT_METRICS) && rq->nglobs)
        return store_run_metrics_each(db, rq->runs[i], note_metric, p, err);
    return 0;
}

static int plan_make(struct pm_db *db, struct plan *p, struct pm_err *err)
{
    const struct export_request *rq = p->rq;
    p->heads = calloc(rq->nruns ? rq->nruns : 1, sizeof *p->heads);
    p->matched = calloc(rq->nglobs ? rq->nglobs : 1, sizeof *p->matched);
    if (!p->heads || !p->matched)
        return pm_errf(err, "out of memory");
    for (size_t i = 0; i < rq->nruns; i++)
        if (plan_run(db, p, i, err) < 0)
            return -1;
    unsigned what = what_of(rq);
    const char *noun = (what & EXPORT_SAMPLES) && (what & EXPORT_METRICS) ? "series or metric"
                       : (what & EXPORT_SAMPLES) ? "series" : "metric";
    for (size_t g = 0; g < rq->nglobs; g++)
        if (!p->matched[g])
            return pm_errf(err, "--series: '%s' matches no %s of the run%s exported (names are source.key, e.g. "
                           "'vmstat.pswp*' or 'meminfo.Mem*'; '*' matches dots too)", rq->globs[g], noun,
                           rq->nruns == 1 ? "" : "s");
    return 0;
}

static void plan_free(struct plan *p)
{
    for (size_t c = 0; c < p->ncols; c++)
        free(p->cols[c]);
    free(p->cols);
    free(p->heads);
    free(p->matched);
}

/* One run going out: the strings every row repeats, made once. */
struct out {
    FILE *f;
    const struct export_request *rq;
    const struct plan *p;
    const struct run_head *h;
    char *prefix;               /* csv "run,uuid,label," or jsonl {"run":..,"uuid":..,"label":.., */
    char **names;               /* per series position: its name as the format writes it, NULL if not kept */
    bool *keep;                 /* per series position */
    int *col;                   /* --wide: per column, the series position or -1 */
    struct lp_buf lb;
};

/* s as a CSV field (quote_csv: quoted when it must be, a formula
 * neutralised), malloc'd. */
static char *csv_field(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    quote_csv(m, s);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *make_prefix(const struct out *o)
{
    const struct run_head *h = o->h;
    char *a, *b, *s = NULL;
    bool csv = o->rq->format == EXPORT_CSV;
    a = csv ? csv_field(h->uuid) : json_quote(h->uuid);
    b = csv ? csv_field(h->label) : json_quote(h->label);
    if (a && b && asprintf(&s, csv ? "%lld,%s,%s," : "{\"run\":%lld,\"uuid\":%s,\"label\":%s,", (long long)h->id, a,
                           b) < 0)
        s = NULL;
    free(a);
    free(b);
    return s;
}

/* "seq,t_ns,time_s" of the current tick; time_s exactly t_ns / 1e9 in
 * decimals (a double would round a long run's nanoseconds). */
static void tick_when(const struct tick_reader *rd, char *buf, size_t len)
{
    unsigned long long a = rd->t_ns < 0 ? 0 - (unsigned long long)rd->t_ns : (unsigned long long)rd->t_ns;
    char frac[16];
    snprintf(frac, sizeof frac, "%09llu", a % 1000000000ull);
    size_t n = strlen(frac);
    while (n > 0 && frac[n - 1] == '0')
        frac[--n] = '\0';
    snprintf(buf, len, "%lld,%lld,%s%llu%s%s", (long long)rd->seq, (long long)rd->t_ns, rd->t_ns < 0 ? "-" : "",
             a / 1000000000ull, n ? "." : "", frac);
}

static int csv_tick(struct out *o, const struct tick_reader *rd)
{
    char when[96], num[PM_EXACT_LEN];
    tick_when(rd, when, sizeof when);
    for (size_t i = 0; i < rd->n; i++)
        if (o->names[i] && tick_reader_text(rd, i, num))
            fprintf(o->f, "%s%s,%s,%s\n", o->prefix, when, o->names[i], num);
    return 0;
}

static int csv_wide_tick(struct out *o, const struct tick_reader *rd)
{
    char when[96], num[PM_EXACT_LEN];
    tick_when(rd, when, sizeof when);
    fputs(o->prefix, o->f);
    fputs(when, o->f);
    for (size_t c = 0; c < o->p->ncols; c++) {
        fputc(',', o->f);
        if (o->col[c] >= 0 && tick_reader_text(rd, (size_t)o->col[c], num))
            fputs(num, o->f);
    }
    fputc('\n', o->f);
    return 0;
}

static int jsonl_tick(struct out *o, const struct tick_reader *rd)
{
    char num[PM_EXACT_LEN];
    fprintf(o->f, "%s\"seq\":%lld,\"t_ns\":%lld,\"values\":{", o->prefix, (long long)rd->seq, (long long)rd->t_ns);
    bool first = true;
    for (size_t i = 0; i < rd->n; i++) {
        if (o->names[i] && tick_reader_text(rd, i, num)) {
            fprintf(o->f, "%s%s:%s", first ? "" : ",", o->names[i], num);
            first = false;
        }
    }
    fputs("}}\n", o->f);
    return 0;
}

static int line_tick(struct out *o, const struct tick_reader *rd)
{
    o->lb.n = 0;
    if (lp_tick_point(o->h, rd, o->keep, &o->lb) < 0)
        return -1;
    fwrite(o->lb.p, 1, o->lb.n, o->f);
    return 0;
}

/* Which series go out, each name as the format writes it, and --wide's
 * column map: made once a run, as large as its series. */
static int series_prepare(struct out *o, const struct tick_reader *rd, struct pm_err *err)
{
    size_t n = rd->n ? rd->n : 1;
    o->names = calloc(n, sizeof *o->names);
    o->keep = calloc(n, sizeof *o->keep);
    o->col = calloc(o->p->ncols ? o->p->ncols : 1, sizeof *o->col);
    if (!o->names || !o->keep || !o->col)
        return pm_errf(err, "out of memory");
    for (size_t i = 0; i < rd->n; i++) {
        if (!rd->names[i] || !kept(o->rq, rd->names[i]))
            continue;
        o->keep[i] = true;
        if (o->rq->format == EXPORT_LINE || o->rq->wide)
            continue;
        o->names[i] = o->rq->format == EXPORT_CSV ? csv_field(rd->names[i]) : json_quote(rd->names[i]);
        if (!o->names[i])
            return pm_errf(err, "out of memory");
    }
    for (size_t c = 0; c < o->p->ncols; c++)
        o->col[c] = tick_reader_find(rd, o->p->cols[c]);
    return 0;
}

static void series_free(struct out *o, size_t n)
{
    for (size_t i = 0; o->names && i < n; i++)
        free(o->names[i]);
    free(o->names);
    free(o->keep);
    free(o->col);
    o->names = NULL;
    o->keep = NULL;
    o->col = NULL;
}

static int write_error(struct pm_err *err)
{
    return pm_errf(err, "writing the export: %s", strerror(errno ? errno : EIO));
}

static int write_samples(struct pm_db *db, struct out *o, struct pm_err *err)
{
    int (*tick)(struct out *, const struct tick_reader *) =
        o->rq->format == EXPORT_LINE ? line_tick : o->rq->format == EXPORT_JSONL ? jsonl_tick
        : o->rq->wide ? csv_wide_tick : csv_tick;
    struct tick_reader rd;
    if (tick_reader_open(&rd, db, o->h->id, err) < 0)
        return -1;
    int rc = series_prepare(o, &rd, err), more = 0;
    while (rc == 0 && (more = tick_reader_next(&rd, err)) == 1) {
        /* ferror at every tick: a full disk or a closed pipe ends the
         * export there, not after the run's last tick; errno cleared
         * first, so the one line says what the failed write said. */
        errno = 0;
        if (tick(o, &rd) < 0)
            rc = pm_errf(err, "out of memory");
        else if (ferror(o->f))
            rc = write_error(err);
    }
    if (rc == 0 && more < 0) {
        struct pm_err why = *err;
        rc = pm_errf(err, "run %lld: %s", (long long)o->h->id, why.msg);
    }
    series_free(o, rd.n);
    tick_reader_close(&rd);
    return rc;
}

/* A number as a CSV field or JSON value: exact, and where it has no
 * value (NaN, infinite) an empty field or null. */
static void put_number(FILE *f, double v, bool json)
{
    char num[PM_EXACT_LEN];
    if (!isfinite(v)) {
        fputs(json ? "null" : "", f);
        return;
    }
    pm_fmt_exact(num, sizeof num, v);
    fputs(num, f);
}

static int csv_metric(void *ctx, const char *name, double value, const char *unit, const char *direction,
                      struct pm_err *err)
{
    (void)err;
    struct out *o = ctx;
    if (!kept(o->rq, name))
        return 0;
    fputs(o->prefix, o->f);
    quote_csv(o->f, o->h->workload);
    fputc(',', o->f);
    quote_csv(o->f, name);
    fputc(',', o->f);
    put_number(o->f, value, false);
    fputc(',', o->f);
    quote_csv(o->f, unit);
    fputc(',', o->f);
    quote_csv(o->f, direction);
    fputc('\n', o->f);
    return 0;
}

static int csv_meta(void *ctx, const char *key, const char *value, struct pm_err *err)
{
    (void)err;
    struct out *o = ctx;
    fputs(o->prefix, o->f);
    quote_csv(o->f, key);
    fputc(',', o->f);
    quote_csv(o->f, value);
    fputc('\n', o->f);
    return 0;
}

/* "key":"value" in a JSON line (a comma before all but the first), each
 * string quoted by jansson; a NULL value writes "key": for the object or
 * number the caller writes next. */
static int json_pair(FILE *f, bool *first, const char *key, const char *value, struct pm_err *err)
{
    char *k = json_quote(key), *v = value ? json_quote(value) : NULL;
    if (k && (v || !value))
        fprintf(f, "%s%s:%s", *first ? "" : ",", k, v ? v : "");
    *first = false;
    free(k);
    free(v);
    return k && (v || !value) ? 0 : pm_errf(err, "out of memory");
}

struct json_obj {
    struct out *o;
    bool first;
};

static int jsonl_metric(void *ctx, const char *name, double value, const char *unit, const char *direction,
                        struct pm_err *err)
{
    struct json_obj *j = ctx;
    FILE *f = j->o->f;
    if (!kept(j->o->rq, name))
        return 0;
    if (json_pair(f, &j->first, name, NULL, err) < 0)
        return -1;
    fputs("{\"value\":", f);
    put_number(f, value, true);
    bool inner = false;
    if (json_pair(f, &inner, "unit", unit, err) < 0 || json_pair(f, &inner, "direction", direction, err) < 0)
        return -1;
    fputc('}', f);
    return 0;
}

static int jsonl_meta(void *ctx, const char *key, const char *value, struct pm_err *err)
{
    struct json_obj *j = ctx;
    return json_pair(j->o->f, &j->first, key, value, err);
}

/* The run's own line of JSON lines: what names it, its metrics and
 * metadata (the shapes of show --format json), before its ticks. */
static int jsonl_run(struct pm_db *db, struct out *o, unsigned what, struct pm_err *err)
{
    const struct run_head *h = o->h;
    bool first = true;              /* the prefix ends with its comma */
    fputs(o->prefix, o->f);
    if (json_pair(o->f, &first, "workload", h->workload, err) < 0 || json_pair(o->f, &first, "status", h->status, err) < 0 ||
        json_pair(o->f, &first, "host", h->host, err) < 0 || json_pair(o->f, &first, "kernel", h->kernel, err) < 0)
        return -1;
    fprintf(o->f, ",\"started_ns\":%lld", (long long)h->started_ns);
    struct json_obj j = { .o = o, .first = true };
    if (what & EXPORT_METRICS) {
        fputs(",\"metrics\":{", o->f);
        if (store_run_metrics_each(db, h->id, jsonl_metric, &j, err) < 0)
            return -1;
        fputc('}', o->f);
    }
    j.first = true;
    if (what & EXPORT_META) {
        fputs(",\"metadata\":{", o->f);
        if (store_run_meta_each(db, h->id, jsonl_meta, &j, err) < 0)
            return -1;
        fputc('}', o->f);
    }
    fputs("}\n", o->f);
    return 0;
}

/* Everything of one run, in push's order: the run, then its ticks. */
static int write_run(struct pm_db *db, struct out *o, struct pm_err *err)
{
    unsigned what = what_of(o->rq);
    enum export_format fmt = o->rq->format;
    if (!(o->prefix = make_prefix(o)))
        return pm_errf(err, "out of memory");
    int rc = 0;
    errno = 0;
    if (fmt == EXPORT_CSV && what == EXPORT_METRICS)
        rc = store_run_metrics_each(db, o->h->id, csv_metric, o, err);
    else if (fmt == EXPORT_CSV && what == EXPORT_META)
        rc = store_run_meta_each(db, o->h->id, csv_meta, o, err);
    else if (fmt == EXPORT_JSONL && (what & (EXPORT_METRICS | EXPORT_META)))
        rc = jsonl_run(db, o, what, err);
    else if (fmt == EXPORT_LINE && (what & EXPORT_METRICS)) {
        o->lb.n = 0;
        rc = lp_run_point(db, o->h, o->rq->nglobs ? kept_cb : NULL, (void *)o->rq, &o->lb, err);
        if (rc == 0)
            fwrite(o->lb.p, 1, o->lb.n, o->f);
    }
    if (rc == 0 && ferror(o->f))
        rc = write_error(err);
    if (rc == 0 && (what & EXPORT_SAMPLES))
        rc = write_samples(db, o, err);
    free(o->prefix);
    o->prefix = NULL;
    return rc;
}

static void csv_header(FILE *f, const struct export_request *rq, const struct plan *p)
{
    unsigned what = what_of(rq);
    if (what == EXPORT_METRICS) {
        fputs("run,uuid,label,workload,name,value,unit,direction\n", f);
    } else if (what == EXPORT_META) {
        fputs("run,uuid,label,key,value\n", f);
    } else if (!rq->wide) {
        fputs("run,uuid,label,seq,t_ns,time_s,name,value\n", f);
    } else {
        fputs("run,uuid,label,seq,t_ns,time_s", f);
        for (size_t c = 0; c < p->ncols; c++) {
            fputc(',', f);
            quote_csv(f, p->cols[c]);
        }
        fputc('\n', f);
    }
}

int export_runs(struct pm_db *db, const struct export_request *rq, FILE *f, bool *written, struct pm_err *err)
{
    *written = false;
    if (export_check(rq, err) < 0)
        return -1;
    struct plan p = { .rq = rq };
    if (plan_make(db, &p, err) < 0) {
        plan_free(&p);
        return -1;
    }
    *written = true;
    if (rq->format == EXPORT_CSV)
        csv_header(f, rq, &p);
    struct out o = { .f = f, .rq = rq, .p = &p };
    int rc = 0;
    for (size_t i = 0; i < rq->nruns && rc == 0; i++) {
        o.h = &p.heads[i];
        rc = write_run(db, &o, err);
    }
    lp_buf_free(&o.lb);
    plan_free(&p);
    errno = 0;
    if (rc == 0 && (fflush(f) != 0 || ferror(f)))
        rc = write_error(err);
    return rc;
}
