#include "reports/judge.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/units.h"
#include "stats/family.h"
#include "stats/outlier.h"
#include "stats/power.h"
#include "reports/present.h"

static bool has_outlier(const double *v, size_t n)
{
    bool *flag = malloc((n ? n : 1) * sizeof *flag);
    if (!flag)
        return false;
    bool any = stats_outliers(v, n, NULL, flag) > 0;
    free(flag);
    return any;
}

int judge_p(const double *a, size_t na, const double *b, size_t nb, struct judge_tests *t)
{
    struct summary sa, sb;
    double *tmp = malloc((na + nb + 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    if (na)                      /* a cell without values may have no array at all */
        memcpy(tmp, a, na * sizeof *tmp);
    stats_summary(tmp, na, &sa);
    if (nb)
        memcpy(tmp, b, nb * sizeof *tmp);
    stats_summary(tmp, nb, &sb);
    free(tmp);
    stats_welch(&sa, &sb, &t->w);
    if (stats_mwu(a, na, b, nb, &t->mwu) < 0)
        return -1;
    bool both = t->mwu.valid && t->w.valid && (has_outlier(a, na) || has_outlier(b, nb));
    t->test = both ? CMP_TEST_BOTH : CMP_TEST_WELCH;
    t->p = both ? fmax(t->w.p, t->mwu.p) : t->w.valid ? t->w.p : NAN;
    /* The rank test takes any two runs a side; Welch's needs them too. */
    if (na < 2 || nb < 2)
        t->p = NAN;
    return 0;
}

static int test_cell(const struct comparison *c, const struct cmp_cell *base, struct cmp_cell *cell)
{
    struct judge_tests t;
    if (judge_p(base->values, base->n, cell->values, cell->n, &t) < 0 ||
        stats_ratio_ci(base->values, base->n, cell->values, cell->n, 0.95, &cell->rci) < 0 ||
        stats_boot_ratio(base->values, base->n, cell->values, cell->n, c->resamples, c->seed, 0.95, &cell->boot,
                         NULL) < 0)
        return -1;
    cell->w = t.w;
    cell->mwu = t.mwu;
    cell->test = t.test;
    cell->p = t.p;
    return 0;
}

/* Whether two labels' runs took turns: their run ids' ranges overlap
 * and they come from one database. */
static bool interleaved(const struct cmp_label *a, const struct cmp_label *b)
{
    if (a->foreign || b->foreign || !a->ok || !b->ok)
        return false;
    return a->run_ids[0] < b->run_ids[b->ok - 1] && b->run_ids[0] < a->run_ids[a->ok - 1];
}

/* A metric that held one value on both sides (no swap at all: 0 and 0)
 * has nothing to test; counted in the family it would only dilute it. */
static bool nothing_to_test(const struct cmp_cell *base, const struct cmp_cell *cell)
{
    return base->s.n && cell->s.n && base->s.min == base->s.max && cell->s.min == cell->s.max &&
           base->s.min == cell->s.min;
}

int judge_cells(struct comparison *c)
{
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct cmp_cell *h = cmp_cell_at(c, l, 0);
        if (stats_trend(h->values, h->n, &c->labels[l].drift) < 0)
            return -1;
    }
    for (size_t m = 0; m < c->nmetrics; m++) {
        const struct cmp_cell *base = cmp_cell_at(c, c->base, m);
        for (size_t l = 0; l < c->nlabels; l++) {
            struct cmp_cell *cell = cmp_cell_at(c, l, m);
            cell->p = cell->p_holm = cell->p_bh = cell->detectable_pct = NAN;
            cell->change_pct = NAN;
            if (!cmp_judged(c))  /* no baseline: side by side, nothing tested */
                continue;
            cell->change_pct = base->s.n && cell->s.n
                                   ? stats_change_pct(base->s.mean, cell->s.mean, c->metrics[m].direction)
                                   : NAN;
            cell->constant = l != c->base && nothing_to_test(base, cell);
            if (l != c->base && !cell->constant && test_cell(c, base, cell) < 0)
                return -1;
        }
    }
    return 0;
}

/* A family's cells in order: comparison, label, metric; extra: --long's
 * further metrics, else the primary ones. */
static size_t family_cells(struct comparison *const *cs, size_t n, bool extra, struct cmp_cell **out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t from = extra ? cs[i]->nprimary : 0, to = extra ? cs[i]->nmetrics : cs[i]->nprimary;
        for (size_t l = 0; cmp_judged(cs[i]) && l < cs[i]->nlabels; l++)
            for (size_t m = from; l != cs[i]->base && m < to; m++) {
                struct cmp_cell *cell = cmp_cell_at(cs[i], l, m);
                if (cell->constant) {
                    cell->significant = cell->gate_significant = false;
                    continue;
                }
                if (out)
                    out[k] = cell;
                k++;
            }
    }
    return k;
}

/* The smallest change (%) a cell's runs would have found: the two sides'
 * CVs pooled, the smaller side's runs, at the level Holm's first step
 * holds the family's smallest p to. */
static double detectable(const struct cmp_cell *base, const struct cmp_cell *cell, double alpha)
{
    if (base->s.n < 2 || cell->s.n < 2)
        return NAN;
    double cv = sqrt((base->s.cv_pct * base->s.cv_pct + cell->s.cv_pct * cell->s.cv_pct) / 2);
    size_t n = base->s.n < cell->s.n ? base->s.n : cell->s.n;
    return stats_detectable_pct(cv, (unsigned)n, alpha, JUDGE_POWER);
}

static int adjust(struct cmp_cell **cells, size_t k, double alpha)
{
    double *p = malloc((k ? k : 1) * 3 * sizeof *p);
    if (!p)
        return -1;
    double *holm = p + k, *bh = p + 2 * k;
    size_t judged = 0;
    for (size_t i = 0; i < k; i++) {
        p[i] = cells[i]->p;
        judged += !isnan(p[i]);
    }
    if (stats_holm(p, k, holm) < 0 || stats_bh(p, k, bh) < 0) {
        free(p);
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        cells[i]->p_holm = holm[i];
        cells[i]->p_bh = bh[i];
        cells[i]->significant = bh[i] < alpha;
        cells[i]->gate_significant = holm[i] < alpha;
    }
    free(p);
    return (int)(judged ? judged : 1);
}

struct judged_p judge_cell_p(const struct comparison *c, size_t m, const struct cmp_cell *cell, bool holm)
{
    return (struct judged_p){ .valid = !isnan(cell->p), .p = cell->p, .p_adj = holm ? cell->p_holm : cell->p_bh,
                              .family = m < c->nprimary ? c->family : c->family_extra,
                              .both = strcmp(cell->test ? cell->test : "", CMP_TEST_BOTH) == 0,
                              .adjusted = holm ? "Holm-adjusted" : NULL };
}

/* The workload's second figure (the chat's p99 latency) gets its own
 * judgement in the same sentence: throughput alone hides stalls. Only a
 * figure the workload names, with runs on both sides, is judged. */
static void append_also(struct comparison *c, size_t l, size_t m, const struct wl_present *shown)
{
    bool also = false;
    for (size_t i = 0; shown->compare_also && shown->compare_also[i]; i++)
        also |= strcmp(shown->compare_also[i], c->metrics[m].name) == 0;
    const struct cmp_cell *am = cmp_cell_at(c, c->base, m), *bm = cmp_cell_at(c, l, m);
    if (!also || !am->s.n || !bm->s.n || am->s.mean == 0)
        return;
    size_t o = strlen(c->labels[l].sentence);
    char p[160] = "n too small to judge", b[64], a[64], times[64];
    if (!isnan(bm->p)) {
        struct judged_p jp = judge_cell_p(c, m, bm, false);
        stats_fmt_judged_p(p, sizeof p, &jp);
        if (bm->significant)
            strncat(p, ", significant", sizeof p - strlen(p) - 1);
    }
    pm_fmt_sig(b, sizeof b, bm->s.mean, 6);
    pm_fmt_sig(a, sizeof a, am->s.mean, 6);
    pm_fmt_sig(times, sizeof times, bm->s.mean / am->s.mean, 3);
    snprintf(c->labels[l].sentence + o, sizeof c->labels[l].sentence - o, "; %s %s against %s %s: %s times (%s)",
             c->metrics[m].name, b, a, c->metrics[m].unit, times, p);
}

const char *judge_caveat(const struct comparison *c, size_t l)
{
    const struct cmp_label *a = &c->labels[c->base], *b = &c->labels[l];
    bool trend = (a->drift.valid && a->drift.p < c->alpha) || (b->drift.valid && b->drift.p < c->alpha);
    if (!interleaved(a, b))
        return "the two ran one after the other, not interleaved, so a drift of the machine between them would "
               "read the same";
    return trend ? "a side's runs drift with their order (see drift below), which may explain it" : NULL;
}

/* A verdict that drift would explain says so. */
static void append_drift(struct comparison *c, size_t l)
{
    const char *why = judge_caveat(c, l);
    if (!cmp_cell_at(c, l, 0)->significant || !why)
        return;
    size_t o = strlen(c->labels[l].sentence);
    snprintf(c->labels[l].sentence + o, sizeof c->labels[l].sentence - o, "; caveat: %s", why);
}

/* What a comparison that found nothing could have found. */
static void append_power(struct comparison *c, size_t l)
{
    const struct cmp_cell *cell = cmp_cell_at(c, l, 0);
    if (isnan(cell->p) || cell->significant || isnan(cell->detectable_pct))
        return;
    size_t o = strlen(c->labels[l].sentence);
    snprintf(c->labels[l].sentence + o, sizeof c->labels[l].sentence - o,
             "; these runs would find a change of %.1f %% or more at 80 %% power", cell->detectable_pct);
}

/* Each label's sentence against the baseline, on the headline metric; a
 * side with no ok runs gets a sentence saying so instead of a judgement.
 * Metrics the user picked get no second figures. */
static void write_sentences(struct comparison *c)
{
    struct wl_present shown;
    report_workload(c->workload, &shown);
    for (size_t l = 0; cmp_judged(c) && l < c->nlabels; l++) {
        if (l == c->base)
            continue;
        const struct cmp_cell *a = cmp_cell_at(c, c->base, 0), *b = cmp_cell_at(c, l, 0);
        if (a->s.n == 0 || b->s.n == 0) {
            snprintf(c->labels[l].sentence, sizeof c->labels[l].sentence, "%s: no ok runs of %s to compare",
                     c->labels[l].name, a->s.n == 0 ? c->labels[c->base].name : c->labels[l].name);
            continue;
        }
        struct judged_p jp = judge_cell_p(c, 0, b, false);
        stats_ratio_sentence(c->labels[l].sentence, sizeof c->labels[l].sentence, c->workload, c->labels[l].name,
                             c->labels[c->base].name, &b->s, &a->s, &jp, c->metrics[0].direction, c->alpha);
        for (size_t m = 1; !c->user_metrics && m < c->nmetrics; m++)
            append_also(c, l, m, &shown);
        append_drift(c, l);
        append_power(c, l);
    }
}

/* Adjust one family over cs; its size (at least 1), or -1 out of memory. */
static int judge_family(struct comparison *const *cs, size_t n, bool extra, double alpha)
{
    size_t k = family_cells(cs, n, extra, NULL);
    struct cmp_cell **cells = malloc((k ? k : 1) * sizeof *cells);
    if (!cells)
        return -1;
    family_cells(cs, n, extra, cells);
    int judged = adjust(cells, k, alpha);
    free(cells);
    return judged;
}

int compare_judge(struct comparison *const *cs, size_t n, double alpha)
{
    int judged = judge_family(cs, n, false, alpha), extra = judge_family(cs, n, true, alpha);
    if (judged < 0 || extra < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct comparison *c = cs[i];
        c->alpha = alpha;
        c->family = (size_t)judged;
        c->family_extra = (size_t)extra;
        for (size_t l = 0; cmp_judged(c) && l < c->nlabels; l++)
            for (size_t m = 0; l != c->base && m < c->nmetrics; m++)
                cmp_cell_at(c, l, m)->detectable_pct = detectable(
                    cmp_cell_at(c, c->base, m), cmp_cell_at(c, l, m),
                    alpha / (double)(m < c->nprimary ? judged : extra));
        write_sentences(c);
    }
    return 0;
}
