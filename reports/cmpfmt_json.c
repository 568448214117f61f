/* compare --format json: one document, {format_version, comparisons: [a
 * comparison per workload], across, isolation, verdict}, as
 * docs/json/compare.schema.json describes it. */
#include "reports/cmpfmt.h"
#include <math.h>
#include "reports/isolation_fmt.h"

/* The other tests and the family, beside Welch's fields (t, df, ci_*),
 * which keep their names; p is the deciding test's. */
static void json_tests(struct jw *j, const struct cmp_cell *cell)
{
    bool judged = !isnan(cell->p);
    jw_string(j, "test", judged ? cell->test : "");
    jw_number(j, "p_bh", cell->p_bh);
    jw_number(j, "p_holm", cell->p_holm);
    jw_bool(j, "gate_significant", cell->gate_significant);
    jw_number(j, "detectable_change_pct", cell->detectable_pct);
    jw_object_begin(j, "welch");
    jw_number(j, "t", cell->w.valid ? cell->w.t : NAN);
    jw_number(j, "df", cell->w.valid ? cell->w.df : NAN);
    jw_number(j, "p", cell->w.valid ? cell->w.p : NAN);
    jw_object_end(j);
    jw_object_begin(j, "mann_whitney");
    jw_number(j, "u", cell->mwu.valid ? cell->mwu.u : NAN);
    jw_number(j, "p", cell->mwu.valid ? cell->mwu.p : NAN);
    jw_bool(j, "exact", cell->mwu.exact);
    jw_number(j, "p_min", cell->mwu.valid ? cell->mwu.p_min : NAN);
    jw_object_end(j);
    jw_object_begin(j, "ratio_ci");
    jw_string(j, "statistic", "ratio of means");
    jw_string(j, "method", "welch-inverted");
    jw_number(j, "level", 0.95);
    jw_number(j, "ratio", cell->rci.valid ? cell->rci.ratio : NAN);
    jw_string(j, "shape", cell->rci.valid ? ratio_ci_shape_name(cell->rci.shape) : NULL);
    jw_number(j, "low", cell->rci.valid ? cell->rci.low : NAN);
    jw_number(j, "high", cell->rci.valid ? cell->rci.high : NAN);
    jw_bool(j, "excludes_1", ratio_ci_excludes(&cell->rci, 1));
    jw_object_end(j);
    if (!cell->boot.resamples) {
        jw_null(j, "bootstrap");
        return;
    }
    jw_object_begin(j, "bootstrap");
    jw_string(j, "statistic", "ratio of means");
    jw_string(j, "method", "BCa");
    jw_number(j, "ratio", cell->boot.ratio);
    jw_number(j, "low", cell->boot.valid ? cell->boot.low : NAN);
    jw_number(j, "high", cell->boot.valid ? cell->boot.high : NAN);
    jw_object_end(j);
}

static void json_outliers(struct jw *j, const struct cmp_label *lb)
{
    jw_array_begin(j, "outliers");
    for (size_t i = 0; i < lb->noutliers; i++) {
        jw_object_begin(j, NULL);
        jw_int(j, "run_id", lb->outliers[i].run_id);
        jw_number(j, "value", lb->outliers[i].value);
        jw_number(j, "z", lb->outliers[i].z);
        jw_object_end(j);
    }
    jw_array_end(j);
    jw_bool(j, "outliers_excluded", lb->outliers_excluded);
}

/* A suite's two-axis layout: the axes, their values, each entry's label. */
static void json_grid(struct jw *j, const struct comparison *c)
{
    const struct cmp_grid *g = c->grid;
    jw_object_begin(j, "grid");
    jw_string(j, "rows_axis", g->row_axis);
    jw_string(j, "columns_axis", g->col_axis);
    jw_array_begin(j, "rows");
    for (size_t i = 0; i < g->nrows; i++)
        jw_string(j, NULL, g->rows[i]);
    jw_array_end(j);
    jw_array_begin(j, "columns");
    for (size_t i = 0; i < g->ncols; i++)
        jw_string(j, NULL, g->cols[i]);
    jw_array_end(j);
    jw_array_begin(j, "labels");
    for (size_t i = 0; i < g->nrows; i++) {
        jw_array_begin(j, NULL);
        for (size_t k = 0; k < g->ncols; k++) {
            int l = g->label[i * g->ncols + k];
            if (l >= 0)
                jw_string(j, NULL, c->labels[l].name);
            else
                jw_null(j, NULL);
        }
        jw_array_end(j);
    }
    jw_array_end(j);
    jw_object_end(j);
}

/* For json: one comparison as an object inside an enclosing writer. */
static void compare_json(struct jw *j, const struct comparison *c)
{
    jw_object_begin(j, NULL);
    jw_string(j, "workload", c->workload);
    if (c->group[0])
        jw_string(j, "group", c->group);
    jw_string(j, "baseline", cmp_judged(c) ? c->labels[c->base].name : NULL);
    if (!cmp_judged(c))
        jw_string(j, "not_judged", c->unjudged);
    jw_string(j, "headline", c->headline);
    jw_number(j, "alpha", c->alpha);
    jw_int(j, "family", (int64_t)c->family);
    jw_int(j, "family_extra", (int64_t)c->family_extra);
    jw_int(j, "bootstrap_resamples", (int64_t)c->resamples);
    jw_int(j, "bootstrap_seed", (int64_t)c->seed);
    jw_array_begin(j, "labels");
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct cmp_label *lb = &c->labels[l];
        jw_object_begin(j, NULL);
        jw_string(j, "label", lb->name);
        jw_int(j, "runs", (int64_t)lb->runs);
        jw_int(j, "ok", (int64_t)lb->ok);
        jw_int(j, "failed", (int64_t)lb->failed);
        jw_int(j, "oom", (int64_t)lb->oom);
        jw_int(j, "aborted", (int64_t)lb->aborted);
        jw_array_begin(j, "run_ids");
        for (size_t i = 0; i < lb->ok; i++)
            jw_int(j, NULL, lb->run_ids[i]);
        jw_array_end(j);
        bool tested = cmp_judged(c) && l != c->base;
        if (tested)
            jw_string(j, "sentence", lb->sentence);
        json_outliers(j, lb);
        jw_object_begin(j, "drift");
        jw_number(j, "spearman_rho", lb->drift.valid ? lb->drift.rho : NAN);
        jw_number(j, "p", lb->drift.valid ? lb->drift.p : NAN);
        jw_object_end(j);
        jw_object_begin(j, "metrics");
        for (size_t m = 0; m < c->nmetrics; m++) {
            const struct cmp_cell *cell = cmp_cell_at(c, l, m);
            jw_object_begin(j, c->metrics[m].name);
            jw_string(j, "unit", c->metrics[m].unit);
            jw_string(j, "direction", c->metrics[m].direction);
            jw_int(j, "n", (int64_t)cell->s.n);
            jw_number(j, "mean", cell->s.n ? cell->s.mean : NAN);
            jw_number(j, "sd", cell->s.n > 1 ? cell->s.sd : NAN);
            jw_number(j, "cv_pct", cell->s.n > 1 ? cell->s.cv_pct : NAN);
            jw_number(j, "min", cell->s.n ? cell->s.min : NAN);
            jw_number(j, "median", cell->s.n ? cell->s.median : NAN);
            jw_number(j, "max", cell->s.n ? cell->s.max : NAN);
            jw_array_begin(j, "values");
            for (size_t i = 0; i < cell->n; i++)
                jw_number(j, NULL, cell->values[i]);
            jw_array_end(j);
            if (tested) {
                jw_object_begin(j, "vs_baseline");
                jw_number(j, "change_pct", cell->change_pct);
                jw_bool(j, "tested", !isnan(cell->p));
                jw_number(j, "t", cell->w.valid ? cell->w.t : NAN);
                jw_number(j, "df", cell->w.valid ? cell->w.df : NAN);
                jw_number(j, "p", cell->p);
                jw_number(j, "ci_low", cell->w.valid ? cell->w.ci_low : NAN);
                jw_number(j, "ci_high", cell->w.valid ? cell->w.ci_high : NAN);
                jw_bool(j, "significant", cell->significant);
                jw_bool(j, "judges", m < c->nprimary && !isnan(cell->p));
                json_tests(j, cell);
                jw_object_end(j);
            }
            jw_object_end(j);
        }
        jw_object_end(j);
        jw_object_end(j);
    }
    jw_array_end(j);
    if (c->grid)
        json_grid(j, c);
    jw_object_begin(j, "environment_differences");
    for (size_t d = 0; d < c->ndiffs; d++) {
        jw_object_begin(j, c->diffs[d].key);
        for (size_t l = 0; l < c->nlabels; l++)
            jw_string(j, c->labels[l].name, c->diffs[d].values[l]);
        jw_object_end(j);
    }
    jw_object_end(j);
    jw_object_end(j);
}

static void json_begin(struct cmp_writer *w)
{
    jw_init(&w->j, w->f, true);
    jw_object_begin(&w->j, NULL);
    jw_int(&w->j, "format_version", PM_JSON_FORMAT_VERSION);
    jw_array_begin(&w->j, "comparisons");
}

static void json_comparison(struct cmp_writer *w, const struct comparison *c, bool long_view)
{
    (void)long_view;
    w->n++;
    compare_json(&w->j, c);
}

static void json_finish(struct cmp_writer *w, const struct cmp_verdict *v)
{
    jw_array_end(&w->j);
    jw_array_begin(&w->j, "across");
    for (size_t i = 0; i < w->nacross; i++) {
        const struct across *a = &w->across[i];
        jw_object_begin(&w->j, NULL);
        jw_string(&w->j, "configuration", a->config);
        jw_string(&w->j, "label", a->shown);
        jw_int(&w->j, "workloads", (int64_t)a->workloads);
        jw_number(&w->j, "geomean_ratio", a->g.ratio);
        jw_number(&w->j, "low", a->g.low);
        jw_number(&w->j, "high", a->g.high);
        jw_object_end(&w->j);
    }
    jw_array_end(&w->j);
    isolation_json(&w->j, w->isolation);
    if (v) {
        jw_object_begin(&w->j, "verdict");
        jw_int(&w->j, "exit_status", v->exit_status);
        jw_number(&w->j, "threshold_pct", v->threshold_pct);
        jw_string(&w->j, "findings", v->findings);
        jw_object_end(&w->j);
    }
    jw_object_end(&w->j);
    jw_end(&w->j);
    if (v && w->log)
        verdict_print(w->log, v);
}

const struct cmp_format cmp_format_json = {
    .markup = MARKUP_TEXT, .begin = json_begin, .comparison = json_comparison, .end = json_finish,
};
