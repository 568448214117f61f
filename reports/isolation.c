#include "reports/isolation.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/kv.h"
#include "reports/present.h"
#include "store/runinfo.h"

/* The axes (suite keys) whose values protect the measured workload. */
static const char *const iso_protection_keys[] = { "mem-low", "mem-min", NULL };

/* The hog's figures, as the run stores them beside the measured
 * workload's (the sibling's metrics are named after it: sibling.KEY). */
#define SIBLING_PREFIX "sibling."
#define SIBLING_PASSES_PER_S MN_sibling_passes_per_s

/* The keys a hog cell may differ in from its cell without the hog (and
 * from its cell unprotected: iso_protection_keys). */
static const char *const sibling_only[] = { "sibling", NULL };

static bool in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

/* A label's axis values (its config, when a suite's cell: a JSON object);
 * false when it has none (a label outside suites). */
static bool parse_axes(const char *json, struct kv_list *out)
{
    memset(out, 0, sizeof *out);
    json_error_t e;
    json_t *o = json_loads(json, 0, &e);
    if (!json_is_object(o)) {
        json_decref(o);
        return false;
    }
    const char *k;
    json_t *v;
    bool ok = true;
    json_object_foreach(o, k, v)
        ok = ok && pm_kv_set(out, k, json_is_string(v) ? json_string_value(v) : "") == 0;
    json_decref(o);
    if (!ok)
        pm_kv_free(out);
    return ok;
}

/* A value that asks for no hog or no protection: absent, "none", or a
 * size or percentage of 0 ("0", "0M", "0%"). */
static bool unset_value(const char *v)
{
    if (!v || !v[0] || strcmp(v, "none") == 0)
        return true;
    char *end;
    double d = strtod(v, &end);
    return end != v && d == 0 && strspn(end, "KMGTPkmgtpBb%") == strlen(end);
}

/* Do a and b set every key alike, but for the keys of skip? */
static bool same_except(const struct kv_list *a, const struct kv_list *b, const char *const *skip)
{
    const struct kv_list *sides[2][2] = { { a, b }, { b, a } };
    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < sides[s][0]->n; i++) {
            const char *k = sides[s][0]->v[i].key, *o = pm_kv_get(sides[s][1], k);
            if (!in_list(skip, k) && (!o || strcmp(o, sides[s][0]->v[i].value) != 0))
                return false;
        }
    return true;
}

static bool protected_axes(const struct kv_list *ax)
{
    for (size_t i = 0; iso_protection_keys[i]; i++)
        if (!unset_value(pm_kv_get(ax, iso_protection_keys[i])))
            return true;
    return false;
}

/* What each label of a comparison is to the isolation figures. */
struct iso_label {
    bool has_axes, hog;
    struct kv_list axes;
    char spec[512];
};

/* A run's sibling: the first that names one is the label's hog. */
static int hog_of_run(void *ctx, const char *key, const char *value, struct pm_err *err)
{
    struct iso_label *il = ctx;
    (void)key;
    (void)err;
    if (unset_value(value))
        return 0;
    il->hog = true;
    snprintf(il->spec, sizeof il->spec, "%s", value);
    return 1;
}

/* Did label l's runs run beside a sibling? Its spec from the first run
 * that says so; an axis value "none" says no whatever the runs say. */
static int label_hog(struct pm_db *db, const struct cmp_label *lb, struct iso_label *il, struct pm_err *err)
{
    il->hog = false;
    if (lb->foreign || (il->has_axes && unset_value(pm_kv_get(&il->axes, "sibling")) && pm_kv_get(&il->axes, "sibling")))
        return 0;
    return store_run_meta_key_each(db, lb->run_ids, lb->ok, "sibling", hog_of_run, il, err);
}

/* The values of metric name in runs ids (those that stored it), with its
 * unit and direction. */
struct iso_values {
    double *v;
    size_t n;
    char unit[16], direction[8];
};

/* One run's value (each run has the metric at most once: n slots). */
static int add_value(void *ctx, const char *name, double value, const char *unit, const char *direction,
                     struct pm_err *err)
{
    struct iso_values *out = ctx;
    (void)name;
    (void)err;
    out->v[out->n++] = value;
    snprintf(out->unit, sizeof out->unit, "%s", unit);
    snprintf(out->direction, sizeof out->direction, "%s", direction);
    return 0;
}

static int load_metric(struct pm_db *db, const int64_t *ids, size_t n, const char *name, struct iso_values *out,
                       struct pm_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->direction, sizeof out->direction, "none");
    if (!(out->v = malloc((n ? n : 1) * sizeof *out->v)))
        return pm_errf(err, "out of memory");
    return store_run_metric_key_each(db, ids, n, name, add_value, out, err);
}

static double mean_of(const struct iso_values *x)
{
    double s = 0;
    for (size_t i = 0; i < x->n; i++)
        s += x->v[i];
    return x->n ? s / (double)x->n : NAN;
}

/* A share oriented so that 1 kept everything: a rate beside the hog over
 * the rate without it; a latency or time without the hog over the one
 * beside it. The interval is Welch's inverted, of that very ratio. */
static int share_of(const struct iso_values *with, const struct iso_values *without, struct iso_share *s)
{
    s->n_with = with->n;
    s->n_without = without->n;
    s->mean_with = mean_of(with);
    s->mean_without = mean_of(without);
    snprintf(s->unit, sizeof s->unit, "%s", with->n ? with->unit : without->unit);
    snprintf(s->direction, sizeof s->direction, "%s", with->n ? with->direction : without->direction);
    bool lower = strcmp(s->direction, "lower") == 0;
    s->oriented = lower || strcmp(s->direction, "higher") == 0;
    memset(&s->ci, 0, sizeof s->ci);
    s->ci.ratio = s->ci.low = s->ci.high = NAN;
    if (!s->oriented)
        return 0;
    const struct iso_values *a = lower ? with : without, *b = lower ? without : with;
    if (stats_ratio_ci(a->v, a->n, b->v, b->n, 0.95, &s->ci) < 0)
        return -1;
    /* One run a side has no interval, but its ratio is still what it kept. */
    double ma = mean_of(a), mb = mean_of(b);
    if (isnan(s->ci.ratio) && a->n && b->n && ma != 0)
        s->ci.ratio = mb / ma;
    return 0;
}

static const char *metric_title_in(const struct comparison *c, const char *name)
{
    for (size_t m = 0; m < c->nmetrics; m++)
        if (strcmp(c->metrics[m].name, name) == 0)
            return c->metrics[m].title;
    return name;
}

/* The runs a cell's figures come from: its headline's (outliers out when
 * the comparison left them out). */
static const struct cmp_cell *runs_of(const struct comparison *c, size_t l)
{
    return cmp_cell_at(c, l, 0);
}

/* The headline's and compare_also's shares of hog cell h against b. */
static int row_shares(struct pm_db *db, const struct comparison *c, size_t h, size_t b, struct iso_row *row,
                      struct pm_err *err)
{
    struct wl_present wp;
    report_workload(c->workload, &wp);
    const char *names[ISO_MAX_SHARES];
    size_t n = 0;
    names[n++] = c->headline;
    for (size_t i = 0; wp.compare_also && wp.compare_also[i] && n < ISO_MAX_SHARES; i++)
        if (strcmp(wp.compare_also[i], c->headline) != 0)
            names[n++] = wp.compare_also[i];
    const struct cmp_cell *rh = runs_of(c, h), *rb = runs_of(c, b);
    for (size_t i = 0; i < n; i++) {
        struct iso_values with, without;
        struct iso_share *s = &row->shares[row->nshares];
        int rc = load_metric(db, rh->run_ids, rh->n, names[i], &with, err);
        if (rc == 0)
            rc = load_metric(db, rb->run_ids, rb->n, names[i], &without, err);
        if (rc == 0 && share_of(&with, &without, s) < 0)
            rc = pm_errf(err, "out of memory");
        free(with.v);
        free(without.v);
        if (rc < 0)
            return -1;
        snprintf(s->metric, sizeof s->metric, "%s", names[i]);
        snprintf(s->title, sizeof s->title, "%s", metric_title_in(c, names[i]));
        row->nshares++;
    }
    return 0;
}

/* The hog's passes per second and its own headline in cell h's runs. */
static int hog_progress(struct pm_db *db, const struct comparison *c, size_t h, struct iso_row *row,
                        struct iso_values *pps, struct pm_err *err)
{
    const struct cmp_cell *rh = runs_of(c, h);
    if (load_metric(db, rh->run_ids, rh->n, SIBLING_PASSES_PER_S, pps, err) < 0)
        return -1;
    row->hog_n = pps->n;
    row->hog_passes_per_s = mean_of(pps);
    row->hog_headline = NAN;
    char workload[64];
    snprintf(workload, sizeof workload, "%.*s", (int)strcspn(row->spec, " \t"), row->spec);
    struct wl_present wp;
    if (!report_workload(workload, &wp))
        return 0;                /* a hog this pressmark does not know: its passes only */
    snprintf(row->hog_metric, sizeof row->hog_metric, SIBLING_PREFIX "%s", wp.headline);
    snprintf(row->hog_title, sizeof row->hog_title, "%s", wp.title);
    struct iso_values hv;
    if (load_metric(db, rh->run_ids, rh->n, row->hog_metric, &hv, err) < 0)
        return -1;
    row->hog_headline = mean_of(&hv);
    snprintf(row->hog_unit, sizeof row->hog_unit, "%s", hv.unit);
    free(hv.v);
    return 0;
}

static int push_row(struct isolation *iso, struct iso_row **row)
{
    struct iso_row *v = realloc(iso->rows, (iso->n + 1) * sizeof *v);
    if (!v)
        return -1;
    iso->rows = v;
    *row = &v[iso->n++];
    memset(*row, 0, sizeof **row);
    return 0;
}

/* Hog cell h's cell without the hog in c: -1 with why when it has none. */
static long find_base(const struct comparison *c, const struct iso_label *ls, size_t h, char *why, size_t len)
{
    if (!ls[h].has_axes) {
        if (cmp_judged(c) && c->base != h && !ls[c->base].hog && !c->labels[c->base].foreign)
            return (long)c->base;
        snprintf(why, len, "no label without the hog to hold it against: the baseline %s%s",
                 cmp_judged(c) ? c->labels[c->base].name : "(none)",
                 !cmp_judged(c) ? " is not set" : c->labels[c->base].foreign ? " is another database's"
                 : c->base == h ? " is this label" : " ran with a sibling too");
        return -1;
    }
    for (size_t l = 0; l < c->nlabels; l++)
        if (l != h && ls[l].has_axes && !ls[l].hog && !c->labels[l].foreign &&
            same_except(&ls[h].axes, &ls[l].axes, sibling_only))
            return (long)l;
    snprintf(why, len, "no cell without the hog: none of %s's cells has this cell's settings with sibling none",
             c->workload);
    return -1;
}

/* Protected hog cell h's hog against its cell unprotected. */
static int hog_vs_unprotected(struct pm_db *db, const struct comparison *c, const struct iso_label *ls, size_t h,
                              const struct iso_values *pps, struct iso_row *row, struct pm_err *err)
{
    row->protected_cell = protected_axes(&ls[h].axes);
    row->hog_kept.ratio = row->hog_kept.low = row->hog_kept.high = NAN;
    if (!row->protected_cell)
        return 0;
    for (size_t u = 0; u < c->nlabels; u++) {
        if (u == h || !ls[u].hog || !ls[u].has_axes || protected_axes(&ls[u].axes) ||
            !same_except(&ls[h].axes, &ls[u].axes, iso_protection_keys))
            continue;
        struct iso_values upps;
        const struct cmp_cell *ru = runs_of(c, u);
        if (load_metric(db, ru->run_ids, ru->n, SIBLING_PASSES_PER_S, &upps, err) < 0)
            return -1;
        int rc = stats_ratio_ci(upps.v, upps.n, pps->v, pps->n, 0.95, &row->hog_kept);
        double mu = mean_of(&upps);
        if (isnan(row->hog_kept.ratio) && upps.n && pps->n && mu != 0)
            row->hog_kept.ratio = mean_of(pps) / mu;
        free(upps.v);
        if (rc < 0)
            return pm_errf(err, "out of memory");
        row->has_unprotected = true;
        snprintf(row->unprotected, sizeof row->unprotected, "%s", cmp_label_shown(&c->labels[u]));
        return 0;
    }
    return 0;
}

/* One row per hog cell of c. */
static int comparison_rows(struct pm_db *db, const struct comparison *c, struct iso_label *ls, struct isolation *iso,
                           struct pm_err *err)
{
    for (size_t h = 0; h < c->nlabels; h++) {
        if (!ls[h].hog)
            continue;
        struct iso_row *row;
        if (push_row(iso, &row) < 0)
            return pm_errf(err, "out of memory");
        snprintf(row->workload, sizeof row->workload, "%s", c->workload);
        snprintf(row->group, sizeof row->group, "%s", c->group);
        snprintf(row->cell, sizeof row->cell, "%s", c->labels[h].name);
        snprintf(row->cell_shown, sizeof row->cell_shown, "%s", cmp_label_shown(&c->labels[h]));
        snprintf(row->spec, sizeof row->spec, "%s", ls[h].spec);
        long b = find_base(c, ls, h, row->why, sizeof row->why);
        row->paired = b >= 0;
        if (row->paired) {
            snprintf(row->base, sizeof row->base, "%s", c->labels[b].name);
            snprintf(row->base_shown, sizeof row->base_shown, "%s", cmp_label_shown(&c->labels[b]));
            if (row_shares(db, c, h, (size_t)b, row, err) < 0)
                return -1;
        }
        struct iso_values pps = { 0 };
        int rc = hog_progress(db, c, h, row, &pps, err);
        if (rc == 0 && ls[h].has_axes)
            rc = hog_vs_unprotected(db, c, ls, h, &pps, row, err);
        free(pps.v);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int isolation_build(struct pm_db *db, struct comparison *const *cs, size_t n, struct isolation *out,
                    struct pm_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct comparison *c = cs[i];
        struct iso_label *ls = calloc(c->nlabels ? c->nlabels : 1, sizeof *ls);
        if (!ls)
            rc = pm_errf(err, "out of memory");
        bool any = false;
        for (size_t l = 0; rc == 0 && l < c->nlabels; l++) {
            /* Outside suites config is the label's name, not axes. */
            ls[l].has_axes = c->suite[0] && parse_axes(c->labels[l].config, &ls[l].axes);
            rc = label_hog(db, &c->labels[l], &ls[l], err);
            any |= ls[l].hog;
        }
        if (rc == 0 && any)
            rc = comparison_rows(db, c, ls, out, err);
        for (size_t l = 0; ls && l < c->nlabels; l++)
            pm_kv_free(&ls[l].axes);
        free(ls);
    }
    if (rc < 0)
        isolation_free(out);
    return rc;
}

void isolation_free(struct isolation *iso)
{
    free(iso->rows);
    iso->rows = NULL;
    iso->n = 0;
}
