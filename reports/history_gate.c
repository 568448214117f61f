#include "reports/history_gate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "reports/compare.h"
#include "reports/history_fmt.h"
#include "reports/present.h"
#include "reports/verdict.h"

static size_t add_unique(const char **out, size_t n, size_t max, const char *metric)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(out[k], metric) == 0)
            return n;
    if (n < max)
        out[n++] = metric;
    return n;
}

/* The metrics compare judges for a workload: its headline, then those
 * asked for, or else the workload's own and the reports' table's. */
static size_t judged_metrics(const char *workload, const struct hgate_request *rq, const char **out, size_t max)
{
    struct wl_present wp;
    report_workload(workload, &wp);
    size_t n = add_unique(out, 0, max, wp.headline);
    for (size_t i = 0; i < rq->nmetrics; i++)
        n = add_unique(out, n, max, rq->metrics[i]);
    for (size_t i = 0; !rq->nmetrics && wp.compare_also && wp.compare_also[i]; i++)
        n = add_unique(out, n, max, wp.compare_also[i]);
    for (size_t i = 0; !rq->nmetrics && cmp_report_metrics[i]; i++)
        n = add_unique(out, n, max, cmp_report_metrics[i]);
    return n;
}

static bool asked_for(const struct hgate_request *rq, const char *metric)
{
    for (size_t i = 0; i < rq->nmetrics; i++)
        if (strcmp(rq->metrics[i], metric) == 0)
            return true;
    return false;
}

/* One metric's history and what the gate makes of it, added to the
 * cell's unless it is not judged here (not stored, no better direction). */
static int judge_metric(struct pm_db *db, const struct hgate_request *rq, struct hgate_cell *c, const char *metric,
                        bool asked, struct pm_err *err)
{
    struct hgate_metric *m = &c->m[c->nm];
    memset(m, 0, sizeof *m);
    m->gated = -1;
    const struct history_request hr = { .label = c->label, .workload = c->workload, .metric = metric,
                                        .allow_emulated = rq->allow_emulated, .absent_ok = !asked, .detect = true,
                                        .cp = rq->cp };
    if (history_build(db, &hr, &m->h, err) < 0) {
        history_free(&m->h);
        return -1;
    }
    if (m->h.metric_absent || history_direction(&m->h) == 0) {
        history_free(&m->h);
        return 0;
    }
    c->nm++;
    if (!m->h.detected) {
        snprintf(m->unjudged, sizeof m->unjudged, "%s", m->h.why_not);
        return 0;
    }
    const struct cp_gate gate = { .window = rq->window, .threshold_pct = rq->threshold_pct,
                                  .direction = history_direction(&m->h) };
    m->gated = cp_gate_find(m->h.changes, m->h.nchanges, m->h.npoints, &gate);
    return 0;
}

static int judge_cell(struct pm_db *db, const struct hgate_request *rq, struct hgate_cell *c, struct pm_err *err)
{
    const char *metrics[64];
    size_t n = judged_metrics(c->workload, rq, metrics, 64);
    if (!(c->m = calloc(n, sizeof *c->m)))
        return pm_errf(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (judge_metric(db, rq, c, metrics[i], asked_for(rq, metrics[i]), err) < 0)
            return -1;
    return 0;
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

int hgate_build(struct pm_db *db, const struct hgate_request *rq, struct hgate *g, struct pm_err *err)
{
    memset(g, 0, sizeof *g);
    g->window = rq->window;
    g->threshold_pct = rq->threshold_pct;
    if (!rq->nlabels)
        return add_cells(db, rq, NULL, g, err);
    for (size_t i = 0; i < rq->nlabels; i++)
        if (add_cells(db, rq, rq->labels[i], g, err) < 0)
            return -1;
    return 0;
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

/* "chat.msgs_per_s msg/s is 10.0 % worse from night N (kernel A before, B after): 1,000 -> 900 msg/s, p = 0.005" */
static void regression_words(char *buf, size_t len, const struct hgate_metric *m)
{
    const struct history *h = &m->h;
    const struct cp_change *ch = &h->changes[m->gated];
    char before[64], after[64], p[32];
    pm_fmt_sig(before, sizeof before, ch->mean_before, 6);
    pm_fmt_sig(after, sizeof after, ch->mean_after, 6);
    stats_fmt_p(p, sizeof p, ch->p, false);
    snprintf(buf, len, "%s is %.1f %% worse from night %s (kernel %s before, %s after): %s -> %s %s, %s", h->metric,
             fabs(ch->change_pct), h->nights[h->change_night[m->gated]].id, history_kernel_before(h, (size_t)m->gated),
             history_kernel_after(h, (size_t)m->gated), before, after, h->unit, p);
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
            char words[1200], line[1600];
            if (c->m[k].unjudged[0]) {
                snprintf(line, sizeof line, "cannot judge %s (%s) %s: %s", c->label, c->workload, c->m[k].h.metric,
                         c->m[k].unjudged);
                unjudged = true;
            } else if (c->m[k].gated >= 0) {
                regression_words(words, sizeof words, &c->m[k]);
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

/* A metric's line: its newest night, its change points and what the
 * gate makes of each. */
static void metric_text(FILE *f, const struct hgate *g, const struct hgate_metric *m)
{
    const struct history *h = &m->h;
    char metric[200], line[1600];
    quote_terminal(h->metric, metric, sizeof metric);
    if (m->unjudged[0]) {
        fprintf(f, "  %s: cannot judge: %s\n", metric, m->unjudged);
        return;
    }
    if (!h->nchanges)
        fprintf(f, "  %s: no change point over %zu nights\n", metric, h->npoints);
    for (size_t c = 0; c < h->nchanges; c++) {
        history_change_sentence(line, sizeof line, h, c);
        char kb[300], ka[300];
        quote_terminal(history_kernel_before(h, c), kb, sizeof kb);
        quote_terminal(history_kernel_after(h, c), ka, sizeof ka);
        const char *what = (long)c == m->gated ? "REGRESSION"
                           : h->changes[c].at + g->window >= h->npoints ? "within the window, not a regression"
                                                                         : "older than the window";
        fprintf(f, "  %s: %s; kernel %s before, %s after; night %zu of %zu: %s\n", metric, line, kb, ka,
                h->change_night[c] + 1, h->nnights, what);
    }
}

void hgate_print_text(FILE *f, const struct hgate *g)
{
    char pct[32];
    pm_fmt_sig(pct, sizeof pct, g->threshold_pct, 6);
    fprintf(f, "each label's newest %zu night%s against its history: a regression is a change point of the nights' "
               "means within them, worse by at least %s %%\n", g->window, g->window == 1 ? "" : "s", pct);
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
        fputs(":\n", f);
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
        fprintf(f, "verdict: regression: a metric's level moved the worse way by %s %% or more within the newest %zu "
                   "nights (a change point of its history)\n", pct, g->window);
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
    jw_string(j, "direction", h->direction);
    jw_int(j, "nights", (int64_t)h->nnights);
    jw_string(j, "newest_night", h->nnights ? h->nights[h->nnights - 1].id : NULL);
    jw_string(j, "unjudged", m->unjudged[0] ? m->unjudged : NULL);
    jw_array_begin(j, "changes");
    for (size_t c = 0; c < h->nchanges; c++)
        history_change_json(j, h, c);
    jw_array_end(j);
    if (m->gated >= 0)
        jw_int(j, "regression", m->gated);
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
    jw_array_begin(&j, "cells");
    for (size_t i = 0; i < g->n; i++) {
        jw_object_begin(&j, NULL);
        jw_string(&j, "label", g->cells[i].label);
        jw_string(&j, "workload", g->cells[i].workload);
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
    if (m->unjudged[0]) {
        fputs("\n      <error type=\"unjudged\" message=\"", f);
        quote_html(f, m->unjudged);
        fputs("\"/>\n    ", f);
    } else {
        char words[1200];
        if (m->gated >= 0)
            regression_words(words, sizeof words, m);
        fputs(m->gated >= 0 ? "\n      <failure type=\"regression\" message=\"" : "\n      <system-out>", f);
        if (m->gated >= 0) {
            quote_html(f, words);
            fputs("\">", f);
        }
        junit_details(f, g, m);
        fputs(m->gated >= 0 ? "</failure>\n    " : "</system-out>\n    ", f);
    }
    fputs("</testcase>\n", f);
}

void hgate_junit(FILE *f, const struct hgate *g)
{
    size_t tests = 0, failures = 0, errors = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t k = 0; k < g->cells[i].nm; k++) {
            tests++;
            errors += g->cells[i].m[k].unjudged[0] != '\0';
            failures += g->cells[i].m[k].gated >= 0;
        }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pressmark compare --history\" "
               "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", tests, failures, errors);
    for (size_t i = 0; i < g->n; i++) {
        const struct hgate_cell *c = &g->cells[i];
        size_t fl = 0, er = 0;
        for (size_t k = 0; k < c->nm; k++) {
            er += c->m[k].unjudged[0] != '\0';
            fl += c->m[k].gated >= 0;
        }
        char suite[200];
        snprintf(suite, sizeof suite, "pressmark.history.%s", c->workload);
        fputs("  <testsuite name=\"", f);
        quote_html(f, suite);
        fputc('.', f);
        quote_html(f, c->label);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n", c->nm, fl, er);
        for (size_t k = 0; k < c->nm; k++)
            junit_case(f, g, c, &c->m[k], suite);
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}
