#include "reports/history_gate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "reports/compare.h"
#include "stats/family.h"
#include "reports/history_fmt.h"
#include "reports/present.h"
#include "reports/verdict.h"

static size_t add_unique(struct hgate_pick *out, size_t n, size_t max, const char *metric, enum hgate_kind kind)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(out[k].metric, metric) == 0)
            return n;
    if (n < max)
        out[n++] = (struct hgate_pick){ metric, kind };
    return n;
}

size_t hgate_metrics(const char *workload, const char *const *asked, size_t nasked, struct hgate_pick *out,
                     size_t max)
{
    struct wl_present wp;
    report_workload(workload, &wp);
    size_t n = add_unique(out, 0, max, wp.headline, HGATE_HEADLINE);
    for (size_t i = 0; i < nasked; i++)
        n = add_unique(out, n, max, asked[i], HGATE_ASKED);
    for (size_t i = 0; wp.compare_also && wp.compare_also[i]; i++)
        n = add_unique(out, n, max, wp.compare_also[i], HGATE_ALSO);
    for (size_t i = 0; cmp_report_metrics[i]; i++)
        n = add_unique(out, n, max, cmp_report_metrics[i], HGATE_REPORT);
    return n;
}

size_t hgate_metrics_max(const char *workload, size_t nasked)
{
    struct wl_present wp;
    report_workload(workload, &wp);
    size_t n = 1 + nasked;
    for (size_t i = 0; wp.compare_also && wp.compare_also[i]; i++)
        n++;
    for (size_t i = 0; cmp_report_metrics[i]; i++)
        n++;
    return n;
}

int hgate_family(const double *p, const bool *in, size_t n, double alpha, double *adj, bool *fires)
{
    double *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++)
        v[i] = in[i] ? p[i] : NAN;
    int rc = stats_holm(v, n, adj);
    for (size_t i = 0; i < n; i++)
        fires[i] = rc == 0 && in[i] && !isnan(adj[i]) && adj[i] <= alpha;
    free(v);
    return rc;
}

void hgate_cp_opts(double alpha, size_t family, struct cp_opts *cp)
{
    cp_opts_default(cp);
    cp->max_p = alpha;
    double perms = ceil(10.0 * (double)(family ? family : 1) / alpha) - 1;
    if (perms > cp->permutations)
        cp->permutations = perms > HGATE_MAX_PERMUTATIONS ? HGATE_MAX_PERMUTATIONS : (unsigned)perms;
}

/* Why a gated metric cannot be judged although its history was read, or
 * NULL: a gated metric is never dropped without a word, or a renamed or
 * missing headline would leave the gate blind and green. */
static const char *gated_unjudged(const struct history *h)
{
    if (h->metric_absent)
        return "no ok run of this cell stores it";
    if (history_direction(h) == 0)
        return "it has no better direction: nothing is worse";
    return NULL;
}

/* One metric's history and its candidate, added to the cell's; one that
 * is not gated is left out when the cell does not store it or it has no
 * better direction. */
static int judge_metric(struct pm_db *db, const struct hgate_request *rq, const struct cp_opts *cp,
                        struct hgate_cell *c, const struct hgate_pick *pick, struct pm_err *err)
{
    struct hgate_metric *m = &c->m[c->nm];
    memset(m, 0, sizeof *m);
    m->candidate = -1;
    m->p_adj = NAN;
    m->gated = pick->kind == HGATE_HEADLINE || pick->kind == HGATE_ASKED;
    /* Permutations resolve Holm's level for the gated; the others are
     * shown with a family of one's. */
    struct cp_opts alone;
    hgate_cp_opts(rq->alpha, 1, &alone);
    const struct history_request hr = { .label = c->label, .workload = c->workload, .metric = pick->metric,
                                        .allow_emulated = rq->allow_emulated, .absent_ok = true, .detect = true,
                                        .cp = m->gated ? cp : &alone };
    if (history_build(db, &hr, &m->h, err) < 0) {
        history_free(&m->h);
        return -1;
    }
    const char *why = gated_unjudged(&m->h);
    if (why && !m->gated) {
        history_free(&m->h);
        return 0;
    }
    c->nm++;
    if (why || !m->h.detected) {
        snprintf(m->unjudged, sizeof m->unjudged, "%s", why ? why : m->h.why_not);
        return 0;
    }
    const struct cp_gate gate = { .window = rq->window, .threshold_pct = rq->threshold_pct,
                                  .direction = history_direction(&m->h) };
    m->candidate = cp_gate_find(m->h.changes, m->h.nchanges, m->h.npoints, &gate);
    return 0;
}

/* Holm over the cell's gated metrics that could be judged: a candidate's
 * p, 1 for a metric without one. */
static int judge_family(struct hgate_cell *c, double alpha, struct pm_err *err)
{
    size_t n = c->nm ? c->nm : 1;
    double *p = calloc(n, sizeof *p), *adj = calloc(n, sizeof *adj);
    bool *in = calloc(n, sizeof *in), *fires = calloc(n, sizeof *fires);
    int rc = p && adj && in && fires ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < c->nm; i++) {
        const struct hgate_metric *m = &c->m[i];
        in[i] = m->gated && !m->unjudged[0];
        p[i] = m->candidate >= 0 ? m->h.changes[m->candidate].p : 1;
        c->family += in[i];
        c->ngated += m->gated;
    }
    if (rc == 0)
        rc = hgate_family(p, in, c->nm, alpha, adj, fires);
    for (size_t i = 0; rc == 0 && i < c->nm; i++) {
        struct hgate_metric *m = &c->m[i];
        m->regression = fires[i] && m->candidate >= 0;
        if (in[i] && m->candidate >= 0)
            m->p_adj = adj[i];
    }
    free(p);
    free(adj);
    free(in);
    free(fires);
    return rc < 0 ? pm_errf(err, "out of memory") : 0;
}

static int judge_cell(struct pm_db *db, const struct hgate_request *rq, struct hgate_cell *c, struct pm_err *err)
{
    size_t max = hgate_metrics_max(c->workload, rq->nmetrics), gated = 0;
    struct hgate_pick *picks = calloc(max, sizeof *picks);
    if (!picks || !(c->m = calloc(max, sizeof *c->m))) {
        free(picks);
        return pm_errf(err, "out of memory");
    }
    size_t n = hgate_metrics(c->workload, rq->metrics, rq->nmetrics, picks, max);
    for (size_t i = 0; i < n; i++)
        gated += picks[i].kind == HGATE_HEADLINE || picks[i].kind == HGATE_ASKED;
    struct cp_opts cp;
    hgate_cp_opts(rq->alpha, gated, &cp);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = judge_metric(db, rq, &cp, c, &picks[i], err);
    free(picks);
    return rc < 0 ? -1 : judge_family(c, rq->alpha, err);
}

/* The cells: each label asked for (each of its workloads, or
 * --workload's), or every label with ok runs. */
static int add_cells(struct pm_db *db, const struct hgate_request *rq, const char *label, struct hgate *g,
                     struct pm_err *err)
{
    char **labels, **workloads;
    size_t n;
    if (store_history_cells(db, label, rq->workload, &labels, &workloads, &n, err) < 0)
        return -1;
    if (label && n == 0) {
        char shown[300];
        quote_terminal(label, shown, sizeof shown);
        return pm_errf(err, "--history: '%s' has no ok runs%s%s in %s: no history to judge", shown,
                       rq->workload ? " of workload " : "", rq->workload ? rq->workload : "", db->path);
    }
    int rc = 0;
    struct hgate_cell *v = n ? realloc(g->cells, (g->n + n) * sizeof *v) : g->cells;
    if (n && !v)
        rc = pm_errf(err, "out of memory");
    else
        g->cells = v;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct hgate_cell *c = &g->cells[g->n++];
        memset(c, 0, sizeof *c);
        snprintf(c->label, sizeof c->label, "%s", labels[i]);
        snprintf(c->workload, sizeof c->workload, "%s", workloads[i]);
        rc = judge_cell(db, rq, c, err);
    }
    store_history_cells_free(labels, workloads, n);
    return rc;
}

/* Whether any cell stores metric: a --metric none of the judged cells
 * stores is a typo, the caller's bad input, not a metric to call unjudged. */
static bool stored_anywhere(const struct hgate *g, const char *metric)
{
    for (size_t i = 0; i < g->n; i++)
        for (size_t k = 0; k < g->cells[i].nm; k++)
            if (strcmp(g->cells[i].m[k].h.metric, metric) == 0 && !g->cells[i].m[k].h.metric_absent)
                return true;
    return false;
}

/* history_build's own one line for a metric the cell does not store. */
static int not_stored(struct pm_db *db, const struct hgate_request *rq, const struct hgate_cell *c, const char *metric,
                      struct pm_err *err)
{
    struct history h;
    const struct history_request hr = { .label = c->label, .workload = c->workload, .metric = metric,
                                        .allow_emulated = rq->allow_emulated };
    int rc = history_build(db, &hr, &h, err);
    history_free(&h);
    return rc < 0 ? -1 : pm_errf(err, "--metric: '%s' is not a metric the runs of %s store", metric, c->label);
}

static int check_asked(struct pm_db *db, const struct hgate_request *rq, const struct hgate *g, struct pm_err *err)
{
    for (size_t i = 0; g->n && i < rq->nmetrics; i++)
        if (!stored_anywhere(g, rq->metrics[i]))
            return not_stored(db, rq, &g->cells[0], rq->metrics[i], err);
    return 0;
}

int hgate_build(struct pm_db *db, const struct hgate_request *rq, struct hgate *g, struct pm_err *err)
{
    memset(g, 0, sizeof *g);
    g->window = rq->window;
    g->threshold_pct = rq->threshold_pct;
    g->alpha = rq->alpha;
    if (!rq->nlabels)
        return add_cells(db, rq, NULL, g, err) < 0 ? -1 : check_asked(db, rq, g, err);
    for (size_t i = 0; i < rq->nlabels; i++)
        if (add_cells(db, rq, rq->labels[i], g, err) < 0)
            return -1;
    return check_asked(db, rq, g, err);
}

void hgate_free(struct hgate *g)
{
    for (size_t i = 0; i < g->n; i++) {
        for (size_t k = 0; k < g->cells[i].nm; k++)
            history_free(&g->cells[i].m[k].h);
        free(g->cells[i].m);
    }
    free(g->cells);
    memset(g, 0, sizeof *g);
}

/* "chat.msgs_per_s is 10.0 % worse from night N (kernel A before, B
 * after): 1,000 -> 900 msg/s, p = 0.005, Holm-adjusted 0.01 over 2
 * gated metrics" */
static void regression_words(char *buf, size_t len, const struct hgate_cell *c, const struct hgate_metric *m)
{
    const struct history *h = &m->h;
    const struct cp_change *ch = &h->changes[m->candidate];
    char before[64], after[64], p[32], adj[96] = "";
    pm_fmt_sig(before, sizeof before, ch->mean_before, 6);
    pm_fmt_sig(after, sizeof after, ch->mean_after, 6);
    stats_fmt_p(p, sizeof p, ch->p, false);
    if (m->gated && c->family > 1) {
        char a[32];
        stats_fmt_p(a, sizeof a, m->p_adj, false);
        snprintf(adj, sizeof adj, ", Holm-adjusted %s over %zu gated metrics", a[2] == '=' ? a + 4 : a + 2,
                 c->family);
    }
    /* A level that moved with nothing recorded changing is the machine's
     * drift as likely as a regression: said, never hidden. */
    const char *drift = history_change_has_event(h, (size_t)m->candidate)
                            ? ""
                            : "; caveat: nothing recorded changed at that night (kernel, settings and pressmark as "
                              "before), so the machine's drift would read the same; a control measured each night "
                              "tells them apart";
    /* one decimal, as the history's own lines; a crafted history's huge
     * change in significant digits, not three hundred */
    char pct[64];
    if (fabs(ch->change_pct) < 1e9)
        snprintf(pct, sizeof pct, "%.1f", fabs(ch->change_pct));
    else
        pm_fmt_sig(pct, sizeof pct, fabs(ch->change_pct), 3);
    snprintf(buf, len, "%s is %s %% worse from night %s (kernel %s before, %s after): %s -> %s %s, %s%s%s", h->metric,
             pct, h->nights[h->change_night[m->candidate]].id,
             history_kernel_before(h, (size_t)m->candidate), history_kernel_after(h, (size_t)m->candidate), before,
             after, h->unit, p, adj, drift);
}

static void add_line(char *lines, size_t len, const char *line)
{
    size_t o = strlen(lines);
    if (o + 2 > len)
        return;
    /* A label's newline must not start a line of its own in a CI log. */
    quote_terminal(line, lines + o, len - o - 1);
    o += strlen(lines + o);
    lines[o++] = '\n';
    lines[o] = '\0';
}

int hgate_verdict(const struct hgate *g, char *lines, size_t len)
{
    int code = VERDICT_OK;
    bool unjudged = false;
    for (size_t i = 0; i < g->n; i++) {
        const struct hgate_cell *c = &g->cells[i];
        for (size_t k = 0; k < c->nm; k++) {
            char words[4096], line[4608];
            const struct hgate_metric *m = &c->m[k];
            if (m->gated && m->unjudged[0]) {
                snprintf(line, sizeof line, "cannot judge %s (%s) %s: %s", c->label, c->workload, m->h.metric,
                         m->unjudged);
                unjudged = true;
            } else if (m->regression) {
                regression_words(words, sizeof words, c, m);
                snprintf(line, sizeof line, "REGRESSION %s (%s): %s", c->label, c->workload, words);
                code = VERDICT_REGRESSED;
            } else {
                continue;
            }
            add_line(lines, len, line);
        }
    }
    return code == VERDICT_OK && unjudged ? VERDICT_UNJUDGED : code;
}

/* What the gate makes of change ch of a metric. */
static const char *change_verdict(const struct hgate *g, const struct hgate_metric *m, size_t ch, char *buf,
                                  size_t len)
{
    const struct history *h = &m->h;
    if ((long)ch != m->candidate)
        return h->changes[ch].at + g->window >= h->npoints ? "within the window, not a regression"
                                                            : "older than the window";
    if (m->regression)
        return "REGRESSION";
    if (!m->gated)
        return "worse within the window: reported, not gated (--metric gates on it)";
    char a[32];
    stats_fmt_p(a, sizeof a, m->p_adj, false);
    snprintf(buf, len, "worse within the window, but not significant over the gated metrics (Holm-adjusted %s)",
             a[2] == '=' ? a + 4 : a + 2);
    return buf;
}

/* A metric's line: its newest night, its change points and what the
 * gate makes of each. */
static void metric_text(FILE *f, const struct hgate *g, const struct hgate_metric *m)
{
    const struct history *h = &m->h;
    char metric[200], line[1600], why[160];
    quote_terminal(h->metric, metric, sizeof metric);
    const char *role = m->gated ? "" : " (not gated)";
    if (m->unjudged[0]) {
        fprintf(f, "  %s%s: cannot judge: %s\n", metric, role, m->unjudged);
        return;
    }
    if (!h->nchanges)
        fprintf(f, "  %s%s: no change point over %zu nights\n", metric, role, h->npoints);
    for (size_t c = 0; c < h->nchanges; c++) {
        history_change_sentence(line, sizeof line, h, c);
        char kb[300], ka[300];
        quote_terminal(history_kernel_before(h, c), kb, sizeof kb);
        quote_terminal(history_kernel_after(h, c), ka, sizeof ka);
        fprintf(f, "  %s%s: %s; kernel %s before, %s after; night %zu of %zu: %s\n", metric, role, line, kb, ka,
                h->change_night[c] + 1, h->nnights, change_verdict(g, m, c, why, sizeof why));
    }
}

void hgate_print_text(FILE *f, const struct hgate *g)
{
    char pct[32];
    pm_fmt_sig(pct, sizeof pct, g->threshold_pct, 6);
    char alpha[32];
    pm_fmt_sig(alpha, sizeof alpha, g->alpha, 6);
    fprintf(f, "each label's newest %zu night%s against its history: a regression is a change point of the nights' "
               "means within them, worse by at least %s %%, of a gated metric (the headline and each --metric), "
               "significant at %s over them (Holm); the other metrics are reported, never failing\n",
            g->window, g->window == 1 ? "" : "s", pct, alpha);
    for (size_t i = 0; i < g->n; i++) {
        const struct hgate_cell *c = &g->cells[i];
        char label[600], workload[200];
        quote_terminal(c->label, label, sizeof label);
        quote_terminal(c->workload, workload, sizeof workload);
        const struct history *h = c->nm ? &c->m[0].h : NULL;
        fprintf(f, "\n%s (workload %s)", label, workload);
        if (h && h->nnights) {
            const struct hist_night *last = &h->nights[h->nnights - 1];
            char kern[300];
            quote_terminal(last->kernels, kern, sizeof kern);
            fprintf(f, ": %zu night%s, the newest %s (kernel %s)", h->nnights, h->nnights == 1 ? "" : "s", last->id, kern);
        }
        fprintf(f, ": %zu gated metric%s", c->ngated, c->ngated == 1 ? "" : "s");
        if (c->family < c->ngated)
            fprintf(f, ", %zu judged", c->family);
        fputc('\n', f);
        if (!c->nm)
            fputs("  no metric with a better direction to judge\n", f);
        for (size_t k = 0; k < c->nm; k++)
            metric_text(f, g, &c->m[k]);
    }
}

void hgate_print_verdict(FILE *f, const struct hgate *g, int exit_status)
{
    char pct[32];
    pm_fmt_sig(pct, sizeof pct, g->threshold_pct, 6);
    if (exit_status == VERDICT_REGRESSED)
        fprintf(f, "verdict: regression: a gated metric's level moved the worse way by %s %% or more within the "
                   "newest %zu nights (a change point of its history, significant over the gated metrics)\n",
                pct, g->window);
    else if (exit_status == VERDICT_UNJUDGED)
        fputs("verdict: cannot judge: see the lines above\n", f);
    else
        fprintf(f, "verdict: no regression of %s %% or more within the newest %zu nights\n", pct, g->window);
}

static void metric_json(struct jw *j, const struct hgate_metric *m)
{
    const struct history *h = &m->h;
    jw_object_begin(j, NULL);
    jw_string(j, "metric", h->metric);
    jw_string(j, "unit", h->unit);
    jw_string(j, "direction", history_direction(h) ? h->direction : "none");
    jw_int(j, "nights", (int64_t)h->nnights);
    jw_string(j, "newest_night", h->nnights ? h->nights[h->nnights - 1].id : NULL);
    jw_string(j, "unjudged", m->unjudged[0] ? m->unjudged : NULL);
    jw_array_begin(j, "changes");
    for (size_t c = 0; c < h->nchanges; c++)
        history_change_json(j, h, c);
    jw_array_end(j);
    jw_bool(j, "gated", m->gated);
    if (m->candidate >= 0)
        jw_int(j, "candidate", m->candidate);
    else
        jw_null(j, "candidate");
    jw_number(j, "p_adjusted", m->p_adj);
    if (m->candidate >= 0)
        jw_bool(j, "candidate_event", history_change_has_event(h, (size_t)m->candidate));
    else
        jw_null(j, "candidate_event");
    if (m->regression)
        jw_int(j, "regression", m->candidate);
    else
        jw_null(j, "regression");
    jw_object_end(j);
}

int hgate_write_json(FILE *f, const struct hgate *g, bool judge, int exit_status, const char *findings)
{
    struct jw j;
    jw_init(&j, f, true);
    jw_object_begin(&j, NULL);
    jw_int(&j, "format_version", PM_JSON_FORMAT_VERSION);
    jw_array_begin(&j, "comparisons");
    jw_array_end(&j);
    jw_array_begin(&j, "across");
    jw_array_end(&j);
    jw_object_begin(&j, "history");
    jw_int(&j, "window", (int64_t)g->window);
    jw_number(&j, "threshold_pct", g->threshold_pct);
    jw_number(&j, "alpha", g->alpha);
    jw_array_begin(&j, "cells");
    for (size_t i = 0; i < g->n; i++) {
        jw_object_begin(&j, NULL);
        jw_string(&j, "label", g->cells[i].label);
        jw_string(&j, "workload", g->cells[i].workload);
        jw_int(&j, "family", (int64_t)g->cells[i].family);
        jw_array_begin(&j, "metrics");
        for (size_t k = 0; k < g->cells[i].nm; k++)
            metric_json(&j, &g->cells[i].m[k]);
        jw_array_end(&j);
        jw_object_end(&j);
    }
    jw_array_end(&j);
    jw_object_end(&j);
    if (judge) {
        jw_object_begin(&j, "verdict");
        jw_int(&j, "exit_status", exit_status);
        jw_number(&j, "threshold_pct", g->threshold_pct);
        jw_string(&j, "findings", findings);
        jw_object_end(&j);
    }
    jw_object_end(&j);
    return jw_end(&j);
}

/* A test case's body: the history's nights as a reader of the CI page
 * wants them, the change points found and the gate's settings. */
static void junit_details(FILE *f, const struct hgate *g, const struct hgate_metric *m)
{
    const struct history *h = &m->h;
    char line[1600], pct[32];
    pm_fmt_sig(pct, sizeof pct, g->threshold_pct, 6);
    snprintf(line, sizeof line, "%s (%s, %s is better): %zu nights, the newest %s; a regression is a change point "
             "within the newest %zu nights worse by at least %s %%\n", h->metric, h->unit, h->direction, h->nnights,
             h->nnights ? h->nights[h->nnights - 1].id : "-", g->window, pct);
    quote_html(f, line);
    for (size_t c = 0; c < h->nchanges; c++) {
        history_change_html(f, h, c);
        fputc('\n', f);
    }
}

/* A gated metric is a test case that fails on its regression or errs
 * when it cannot be judged; one that is not gated is skipped, its
 * history beside it. */
static void junit_case(FILE *f, const struct hgate *g, const struct hgate_cell *c, const struct hgate_metric *m,
                       const char *suite)
{
    fputs("    <testcase classname=\"", f);
    quote_html(f, suite);
    fputc('.', f);
    quote_html(f, c->label);
    fputs("\" name=\"", f);
    quote_html(f, m->h.metric);
    fputs("\" time=\"0\">", f);
    if (!m->gated) {
        fputs("\n      <skipped message=\"reported, not gated (--metric gates on it)\"/>", f);
        if (m->unjudged[0]) {
            fputs("\n      <system-out>cannot judge: ", f);
            quote_html(f, m->unjudged);
        } else {
            fputs("\n      <system-out>", f);
            junit_details(f, g, m);
        }
        fputs("</system-out>\n    ", f);
    } else if (m->unjudged[0]) {
        fputs("\n      <error type=\"unjudged\" message=\"", f);
        quote_html(f, m->unjudged);
        fputs("\"/>\n    ", f);
    } else {
        char words[4096];
        if (m->regression)
            regression_words(words, sizeof words, c, m);
        fputs(m->regression ? "\n      <failure type=\"regression\" message=\"" : "\n      <system-out>", f);
        if (m->regression) {
            quote_html(f, words);
            fputs("\">", f);
        }
        junit_details(f, g, m);
        fputs(m->regression ? "</failure>\n    " : "</system-out>\n    ", f);
    }
    fputs("</testcase>\n", f);
}

/* A cell's failures, errors and skipped cases. */
static void junit_counts(const struct hgate_cell *c, size_t *fl, size_t *er, size_t *sk)
{
    for (size_t k = 0; k < c->nm; k++) {
        *sk += !c->m[k].gated;
        *er += c->m[k].gated && c->m[k].unjudged[0] != '\0';
        *fl += c->m[k].regression;
    }
}

void hgate_junit(FILE *f, const struct hgate *g)
{
    size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    for (size_t i = 0; i < g->n; i++) {
        tests += g->cells[i].nm;
        junit_counts(&g->cells[i], &failures, &errors, &skipped);
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pressmark compare --history\" "
               "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", tests, failures, errors, skipped);
    for (size_t i = 0; i < g->n; i++) {
        const struct hgate_cell *c = &g->cells[i];
        size_t fl = 0, er = 0, sk = 0;
        junit_counts(c, &fl, &er, &sk);
        char suite[200];
        snprintf(suite, sizeof suite, "pressmark.history.%s", c->workload);
        fputs("  <testsuite name=\"", f);
        quote_html(f, suite);
        fputc('.', f);
        quote_html(f, c->label);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", c->nm, fl, er, sk);
        for (size_t k = 0; k < c->nm; k++)
            junit_case(f, g, c, &c->m[k], suite);
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}
