/* What every format of compare may use: a comparison's figures as the
 * cells of the reports' tables (a number grouped and never in e-notation,
 * mean ±sd, the change and its test), the tables themselves (the reports'
 * layout and mmtests' long one) and text from data made safe for a
 * terminal. */
#include "reports/cmpfmt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/quote.h"
#include "lib/units.h"

/* A number in a cell of the reports' tables (pm_fmt_number: grouped,
 * never e-notation); KB, the swap totals, whole and with its unit, the
 * other units being in the column's header. */
void cmp_fmt_value(char *buf, size_t len, double v, const char *unit)
{
    if (strcmp(unit, "KB") == 0)
        pm_fmt_quantity(buf, len, v, unit);
    else
        pm_fmt_number(buf, len, v);
}

void cmp_fmt_mean_sd(char *buf, size_t len, const struct cmp_cell *cell, const char *unit)
{
    if (cell->s.n == 0) {
        snprintf(buf, len, "-");
        return;
    }
    char m[64], s[64];
    bool kb = strcmp(unit, "KB") == 0;
    /* KB once, after both numbers: "79,931 ±386 KB". */
    if (kb) {
        pm_fmt_fixed(m, sizeof m, cell->s.mean, 0);
        pm_fmt_fixed(s, sizeof s, cell->s.sd, 0);
    } else {
        pm_fmt_number(m, sizeof m, cell->s.mean);
        pm_fmt_number(s, sizeof s, cell->s.sd);
    }
    if (cell->s.n < 2)
        snprintf(buf, len, "%s%s", m, kb ? " KB" : "");
    else
        snprintf(buf, len, "%s ±%s%s", m, s, kb ? " KB" : "");
}

void cmp_fmt_change(char *buf, size_t len, const struct comparison *c, size_t l, size_t m)
{
    const struct cmp_cell *cell = cmp_cell_at(c, l, m);
    if (cmp_is_base(c, l)) {
        snprintf(buf, len, "base");
    } else if (cell->constant && isnan(cell->change_pct)) {  /* 0 and 0: no change to say, nothing tested */
        snprintf(buf, len, "constant");
    } else if (isnan(cell->change_pct)) {
        snprintf(buf, len, "-");
    } else if (isnan(cell->p)) {
        snprintf(buf, len, "%+.1f%% (%s)", cell->change_pct,
                 cell->constant                                          ? "constant"
                 : cell->s.n >= 2 && cmp_cell_at(c, c->base, m)->s.n >= 2 ? "untestable"
                                                                          : "n too small");
    } else {
        char p[32];
        stats_fmt_p(p, sizeof p, cell->p, true);
        snprintf(buf, len, "%+.1f%% %s%s%s", cell->change_pct, strcmp(cell->test, CMP_TEST_BOTH) == 0 ? "W+MW " : "", p,
                 cell->significant ? " *" : "");
    }
}

/* A rate's harmonic mean: each run does the same work (the chat's
 * messages, usemem's bytes), so total work over total time, the mean rate
 * of the runs together, is the harmonic mean of their rates, not the
 * arithmetic one. Only for rates (a unit per second). */
static void fmt_hmean(char *buf, size_t len, const struct cmp_cell *cell, const char *unit)
{
    size_t ul = strlen(unit);
    double h = stats_hmean(cell->values, cell->n);
    if (ul < 2 || strcmp(unit + ul - 2, "/s") != 0 || isnan(h))
        snprintf(buf, len, "-");
    else
        cmp_fmt_value(buf, len, h, unit);
}

static void fmt_boot(char *buf, size_t len, const struct comparison *c, size_t l, size_t m)
{
    const struct cmp_cell *cell = cmp_cell_at(c, l, m);
    if (l == c->base || !cell->boot.valid)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "[%.1f%%, %.1f%%]", 100 * cell->boot.low, 100 * cell->boot.high);
}

/* The rows --long adds under the change: the other tests and the family. */
static void fmt_test_row(char *buf, size_t len, const struct comparison *c, size_t l, size_t m, int row)
{
    const struct cmp_cell *cell = cmp_cell_at(c, l, m);
    char a[32], b[32];
    if (l == c->base || isnan(cell->p)) {
        snprintf(buf, len, "-");
        return;
    }
    switch (row) {
    case 0:
        stats_fmt_p(a, sizeof a, cell->w.p, true);
        snprintf(buf, len, "%s", cell->w.valid ? a : "-");
        break;
    case 1:
        stats_fmt_p(a, sizeof a, cell->mwu.p, true);
        snprintf(buf, len, "U=%g %s%s", cell->mwu.u, a, cell->mwu.exact ? "" : " (normal)");
        break;
    case 2:
        ratio_ci_fmt_pct(buf, len, &cell->rci);
        break;
    case 3:
        stats_fmt_p(a, sizeof a, cell->p_bh, true);
        stats_fmt_p(b, sizeof b, cell->p_holm, true);
        /* "p=0.04" -> "0.04", "p<0.001" -> "<0.001" */
        snprintf(buf, len, "%s / %s", a[1] == '=' ? a + 2 : a + 1, b[1] == '=' ? b + 2 : b + 1);
        break;
    default:
        if (isnan(cell->detectable_pct))
            snprintf(buf, len, "-");
        else
            snprintf(buf, len, "%.1f%%", cell->detectable_pct);
    }
}

/* The 95% confidence interval of the difference, in the metric's unit. */
static void fmt_ci_diff(char *buf, size_t len, const struct comparison *c, size_t l, size_t m)
{
    const struct cmp_cell *cell = cmp_cell_at(c, l, m);
    if (l == c->base || !cell->w.valid) {
        snprintf(buf, len, "-");
        return;
    }
    char lo[64], hi[64];
    pm_fmt_number(lo, sizeof lo, cell->w.ci_low);
    pm_fmt_number(hi, sizeof hi, cell->w.ci_high);
    snprintf(buf, len, "[%s, %s]", lo, hi);
}

static void fmt_failures(char *buf, size_t len, const struct cmp_label *lb)
{
    snprintf(buf, len, "%zu:%zu", lb->runs - lb->ok, lb->runs);
}

/* The reports' layout: one row per label. */
void cmp_build_report_table(struct table *t, const struct comparison *c, bool with_change)
{
    const char *headers[TABLE_MAX_COLS];
    bool right[TABLE_MAX_COLS];
    size_t nc = 0;
    headers[nc] = "label"; right[nc++] = false;
    for (size_t m = 0; m < c->nmetrics && nc < TABLE_MAX_COLS - 4; m++) {
        headers[nc] = c->metrics[m].title; right[nc++] = true;
        if (m == 0 && with_change) {
            headers[nc] = "change"; right[nc++] = true;
        }
    }
    headers[nc] = "n"; right[nc++] = true;
    headers[nc] = "fail:runs"; right[nc++] = true;
    table_init(t, nc, headers, right);
    for (size_t l = 0; l < c->nlabels; l++) {
        char cells[TABLE_MAX_COLS][128];
        const char *row[TABLE_MAX_COLS];
        size_t k = 0;
        snprintf(cells[k], sizeof cells[k], "%s", cmp_label_shown(&c->labels[l]));
        row[k] = cells[k]; k++;
        for (size_t m = 0; m < c->nmetrics && k < TABLE_MAX_COLS - 4; m++) {
            cmp_fmt_mean_sd(cells[k], sizeof cells[k], cmp_cell_at(c, l, m), c->metrics[m].unit);
            row[k] = cells[k]; k++;
            if (m == 0 && with_change) {
                cmp_fmt_change(cells[k], sizeof cells[k], c, l, 0);
                row[k] = cells[k]; k++;
            }
        }
        snprintf(cells[k], sizeof cells[k], "%zu", c->labels[l].ok);
        row[k] = cells[k]; k++;
        fmt_failures(cells[k], sizeof cells[k], &c->labels[l]);
        row[k] = cells[k]; k++;
        table_add_row(t, row);
    }
}

/* mmtests' layout: for each metric, rows of statistics, a column per label. */
void cmp_build_long_table(struct table *t, const struct comparison *c)
{
    const char *headers[TABLE_MAX_COLS];
    bool right[TABLE_MAX_COLS];
    size_t nc = 0;
    headers[nc] = "metric"; right[nc++] = false;
    headers[nc] = "stat"; right[nc++] = false;
    for (size_t l = 0; l < c->nlabels && nc < TABLE_MAX_COLS; l++) {
        headers[nc] = cmp_label_shown(&c->labels[l]); right[nc++] = true;
    }
    table_init(t, nc, headers, right);
    static const char *stats[] = { "n", "mean", "stddev", "CV%", "min", "median", "max", "change", "95% CI diff",
                                   "Welch p", "Mann-Whitney", "ratio 95% CI", "p adj BH/Holm", "finds (80%)",
                                   "hmean", "BCa bootstrap" };
    for (size_t m = 0; m < c->nmetrics; m++) {
        for (size_t s = 0; s < sizeof stats / sizeof stats[0]; s++) {
            if (s == 15 && !c->resamples)  /* asked for only (--bootstrap) */
                continue;
            char cells[TABLE_MAX_COLS][128];
            const char *row[TABLE_MAX_COLS];
            size_t k = 0;
            char metric[160];
            snprintf(metric, sizeof metric, "%s (%s, %s is better)", c->metrics[m].name, c->metrics[m].unit,
                     strcmp(c->metrics[m].direction, "none") == 0 ? "neither" : c->metrics[m].direction);
            row[k++] = s == 0 ? metric : "";
            row[k++] = stats[s];
            for (size_t l = 0; l < c->nlabels && k < TABLE_MAX_COLS; l++) {
                const struct cmp_cell *cell = cmp_cell_at(c, l, m);
                char *b = cells[k];
                const char *u = c->metrics[m].unit;
                switch (s) {
                case 0: snprintf(b, 128, "%zu", cell->s.n); break;
                case 1: cell->s.n ? cmp_fmt_value(b, 128, cell->s.mean, u) : (void)snprintf(b, 128, "-"); break;
                case 2: cell->s.n > 1 ? cmp_fmt_value(b, 128, cell->s.sd, u) : (void)snprintf(b, 128, "-"); break;
                case 3: cell->s.n > 1 ? (void)snprintf(b, 128, "%.2f", cell->s.cv_pct) : (void)snprintf(b, 128, "-"); break;
                case 4: cell->s.n ? cmp_fmt_value(b, 128, cell->s.min, u) : (void)snprintf(b, 128, "-"); break;
                case 5: cell->s.n ? cmp_fmt_value(b, 128, cell->s.median, u) : (void)snprintf(b, 128, "-"); break;
                case 6: cell->s.n ? cmp_fmt_value(b, 128, cell->s.max, u) : (void)snprintf(b, 128, "-"); break;
                case 7: cmp_fmt_change(b, 128, c, l, m); break;
                case 8: fmt_ci_diff(b, 128, c, l, m); break;
                case 14: fmt_hmean(b, 128, cell, u); break;
                case 15: fmt_boot(b, 128, c, l, m); break;
                default: fmt_test_row(b, 128, c, l, m, (int)s - 9); break;
                }
                row[k] = b;
                k++;
            }
            table_add_row(t, row);
        }
    }
}

/* Text as data: a control character in a label (a newline above all)
 * could start a line of its own that reads as pressmark's ("verdict: ..."),
 * so it is written as \xNN (quote_terminal). */
void cmp_put_text(FILE *f, const char *s)
{
    size_t len = 4 * strlen(s) + 8;     /* every byte at most \xNN */
    char *q = malloc(len);
    if (!q) {
        fputs("(out of memory)", f);
        return;
    }
    quote_terminal(s, q, len);
    fputs(q, f);
    free(q);
}
