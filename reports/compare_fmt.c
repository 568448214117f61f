#include "reports/compare_fmt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/quote.h"
#include "lib/units.h"
#include "stats/geomean.h"
#include "reports/isolation_fmt.h"
#include "stats/outlier.h"
#include "reports/table.h"
#include "reports/verdict.h"


/* A number in a cell of the reports' tables (pm_fmt_number: grouped,
 * never e-notation); KB, the swap totals, whole and with its unit, the
 * other units being in the column's header. */
static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
    if (strcmp(unit, "KB") == 0)
        pm_fmt_quantity(buf, len, v, unit);
    else
        pm_fmt_number(buf, len, v);
}

static void fmt_mean_sd(char *buf, size_t len, const struct cmp_cell *cell, const char *unit)
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

static void fmt_change(char *buf, size_t len, const struct comparison *c, size_t l, size_t m)
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
        fmt_value(buf, len, h, unit);
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
static void build_report_table(struct table *t, const struct comparison *c, bool with_change)
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
            fmt_mean_sd(cells[k], sizeof cells[k], cmp_cell_at(c, l, m), c->metrics[m].unit);
            row[k] = cells[k]; k++;
            if (m == 0 && with_change) {
                fmt_change(cells[k], sizeof cells[k], c, l, 0);
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
static void build_long_table(struct table *t, const struct comparison *c)
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
                case 1: cell->s.n ? fmt_value(b, 128, cell->s.mean, u) : (void)snprintf(b, 128, "-"); break;
                case 2: cell->s.n > 1 ? fmt_value(b, 128, cell->s.sd, u) : (void)snprintf(b, 128, "-"); break;
                case 3: cell->s.n > 1 ? (void)snprintf(b, 128, "%.2f", cell->s.cv_pct) : (void)snprintf(b, 128, "-"); break;
                case 4: cell->s.n ? fmt_value(b, 128, cell->s.min, u) : (void)snprintf(b, 128, "-"); break;
                case 5: cell->s.n ? fmt_value(b, 128, cell->s.median, u) : (void)snprintf(b, 128, "-"); break;
                case 6: cell->s.n ? fmt_value(b, 128, cell->s.max, u) : (void)snprintf(b, 128, "-"); break;
                case 7: fmt_change(b, 128, c, l, m); break;
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
static void put_text(FILE *f, const char *s)
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

/* A cell or header that shows a label or an axis value: the short name,
 * the full one in its tooltip. */
static void html_name_cell(FILE *f, const char *tag, const char *cls, const struct comparison *cmp, const char *shown)
{
    const char *full = cmp ? compare_full_name(cmp, shown) : NULL;
    fprintf(f, "<%s%s", tag, cls);
    if (full) {
        fputs(" title=\"", f);
        quote_html(f, full);
        fputc('"', f);
    }
    fputc('>', f);
    quote_html(f, shown);
    fprintf(f, "</%s>", tag);
}

/* A number cell's text in pieces that each stay on one line, so a
 * narrow page breaks "2,176,314 ±18,857 KB" before its ±, and
 * "+0.6% p=0.856" before its p, rather than pushing the table wider. */
static void html_num_text(FILE *f, const char *s)
{
    while (*s) {
        const char *cut = s;
        for (cut = strchr(cut + 1, ' '); cut; cut = strchr(cut + 1, ' '))
            if (strncmp(cut + 1, "±", strlen("±")) == 0 || cut[1] == 'p' || cut[1] == '(')
                break;
        size_t n = cut ? (size_t)(cut - s) : strlen(s);
        char *piece = strndup(s, n);
        fputs("<span>", f);
        quote_html(f, piece ? piece : "");
        fputs("</span>", f);
        free(piece);
        s += n;
        if (*s == ' ') {
            fputc(' ', f);
            s++;
        }
    }
}

/* Labels are in the headers and the first column: those get tooltips. */
static void print_html_table(FILE *f, const struct table *t, const struct comparison *cmp)
{
    fputs("<table class=\"cmp\">\n<thead><tr>", f);
    for (size_t c = 0; c < t->ncols; c++)
        html_name_cell(f, "th", "", cmp, t->headers[c]);
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs("<tr>", f);
        for (size_t c = 0; c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            if (c == 0) {
                /* A name that fits is kept on one line: the numbers wrap first. */
                bool fits = strlen(cell) <= CMP_LABEL_FITS;
                html_name_cell(f, "td", t->right[c] ? " class=\"num\"" : fits ? " class=\"name\"" : "", cmp, cell);
            } else if (t->right[c]) {
                fputs("<td class=\"num\">", f);
                html_num_text(f, cell);
                fputs("</td>", f);
            } else {
                fputs("<td>", f);
                quote_html(f, cell);
                fputs("</td>", f);
            }
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

void compare_legend(FILE *f, const struct comparison *c, enum markup mk)
{
    if (!c->nabbrevs)
        return;
    void (*put)(FILE *, const char *) = mk == MARKUP_HTML ? quote_html : mk == MARKUP_MARKDOWN ? quote_markdown
                                                                                             : put_text;
    fputs(mk == MARKUP_HTML ? "<p class=\"legend\">short names: " : "short names: ", f);
    for (size_t i = 0; i < c->nabbrevs; i++) {
        fputs(i ? ", " : "", f);
        put(f, c->abbrevs[i].abbrev);
        fputs(" = ", f);
        put(f, c->abbrevs[i].full);
    }
    fputs(mk == MARKUP_HTML ? "</p>\n" : "\n\n", f);
}

static void print_diffs(FILE *f, const struct comparison *c, enum markup mk, bool kconfig, const char *heading);

/* Emulated runs compared anyway (--allow-emulated) say so above the table. */
static void print_caveat(FILE *f, const struct comparison *c, enum markup mk)
{
    if (!c->nemulated)
        return;
    char line[1024];
    size_t o = (size_t)snprintf(line, sizeof line, "caveat: the runs of ");
    for (size_t l = 0, k = 0; l < c->nlabels; l++)
        if (c->labels[l].emulated && o < sizeof line)
            o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", k++ ? ", " : "", c->labels[l].name);
    if (o < sizeof line)
        snprintf(line + o, sizeof line - o, " ran under QEMU's TCG emulation (no KVM): rates, %%CPU and times measure "
                 "the emulator as much as the kernel; counts (messages, swap-ins and -outs, faults) are the kernel's");
    if (mk == MARKUP_HTML) {
        fputs("<p class=\"caveat\">", f);
        quote_html(f, line);
        fputs("</p>\n", f);
    } else if (mk == MARKUP_MARKDOWN) {
        fputs("> ", f);
        quote_markdown(f, line);
        fputs("\n\n", f);
    } else {
        put_text(f, line);
        fputs("\n\n", f);
    }
}

/* A line under a table, from data: a paragraph of class cls in html,
 * quoted for markdown, control characters shown as \xNN in text. */
static void note_line(FILE *f, enum markup mk, const char *cls, const char *line)
{
    if (mk == MARKUP_HTML) {
        fprintf(f, "<p class=\"%s\">", cls);
        quote_html(f, line);
        fputs("</p>\n", f);
        return;
    }
    if (mk == MARKUP_MARKDOWN)
        quote_markdown(f, line);
    else
        put_text(f, line);
    fputc('\n', f);
}

/* Runs far from their label's others, by run id, and whether they were
 * left out: never dropped without a word. */
static void print_outliers(FILE *f, const struct comparison *c, enum markup mk)
{
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct cmp_label *lb = &c->labels[l];
        if (!lb->noutliers)
            continue;
        char line[1024];
        size_t among = cmp_cell_at(c, l, 0)->n + (lb->outliers_excluded ? lb->noutliers : 0);
        size_t o = (size_t)snprintf(line, sizeof line, "outlier%s of %s (modified z-score of %s above %.2f, the "
                                    "critical value for %zu runs): ", lb->noutliers > 1 ? "s" : "", lb->name,
                                    c->metrics[0].name, stats_outlier_threshold(among), among);
        for (size_t i = 0; i < lb->noutliers && o < sizeof line; i++) {
            char v[64], z[32];
            fmt_value(v, sizeof v, lb->outliers[i].value, c->metrics[0].unit);
            stats_fmt_z(z, sizeof z, lb->outliers[i].z);
            o += (size_t)snprintf(line + o, sizeof line - o, "%srun %lld (%s, %s)", i ? ", " : "",
                                  (long long)lb->outliers[i].run_id, v, z);
        }
        if (o < sizeof line)
            snprintf(line + o, sizeof line - o, "%s", lb->outliers_excluded ? "; excluded (--exclude-outliers)"
                                                                             : "; kept (--exclude-outliers leaves them out)");
        note_line(f, mk, "outliers", line);
    }
}

/* Labels whose runs trend with their order. */
static void print_drift(FILE *f, const struct comparison *c, enum markup mk)
{
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct trend *t = &c->labels[l].drift;
        if (!t->valid || !(t->p < c->alpha))
            continue;
        char line[768], p[32];
        stats_fmt_p(p, sizeof p, t->p, false);
        snprintf(line, sizeof line, "drift: the runs of %s trend with their order (%s %s, Spearman rho = %.2f, %s, "
                 "n = %zu): labels run at different times differ by this too; interleave them (a suite's order = "
                 "interleaved) or measure a control in the same run", c->labels[l].name, c->metrics[0].title,
                 t->rho > 0 ? "rising" : "falling", t->rho, p, cmp_cell_at(c, l, 0)->n);
        note_line(f, mk, "drift", line);
    }
}

/* Why a comparison has no baseline: one line where its sentences would be. */
static void print_unjudged(FILE *f, const struct comparison *c, enum markup mk)
{
    char line[600];
    snprintf(line, sizeof line, "not judged: %s", c->unjudged);
    note_line(f, mk, "unjudged", line);
}

static void print_sentences_and_env(FILE *f, const struct comparison *c, enum markup mk)
{
    bool md = mk == MARKUP_MARKDOWN, html = mk == MARKUP_HTML;
    if (!cmp_judged(c))
        print_unjudged(f, c, mk);
    if (html && cmp_judged(c))
        fputs("<ul class=\"sentences\">\n", f);
    for (size_t l = 0; cmp_judged(c) && l < c->nlabels; l++) {
        if (l == c->base)
            continue;
        if (html) {
            fputs("<li>", f);
            quote_html(f, c->labels[l].sentence);
            fputs("</li>\n", f);
        } else if (md) {
            fputs("- ", f);
            quote_markdown(f, c->labels[l].sentence);
            fputc('\n', f);
        } else {
            put_text(f, c->labels[l].sentence);
            fputc('\n', f);
        }
    }
    if (html && cmp_judged(c))
        fputs("</ul>\n", f);
    print_outliers(f, c, mk);
    print_drift(f, c, mk);
    bool any_fail = false;
    for (size_t l = 0; l < c->nlabels; l++)
        any_fail |= c->labels[l].ok != c->labels[l].runs;
    if (any_fail) {
        if (html)
            fputs("<p class=\"failures\">", f);
        else
            fputc('\n', f);
        fputs("runs not averaged in (failed, oom, aborted):", f);
        for (size_t l = 0; l < c->nlabels; l++) {
            const struct cmp_label *lb = &c->labels[l];
            if (lb->ok == lb->runs)
                continue;
            char line[512];
            snprintf(line, sizeof line, " %s %zu failed, %zu oom, %zu aborted of %zu;", lb->name, lb->failed, lb->oom,
                     lb->aborted, lb->runs);
            if (html)
                quote_html(f, line);
            else if (md)
                quote_markdown(f, line);
            else
                fputs(line, f);
        }
        fputs(html ? "</p>\n" : "\n", f);
    }
    if (c->ndiffs == 0) {
        fputs(html ? "<p>environment: no differences between the labels' runs</p>\n"
                   : "\nenvironment: no differences between the labels' runs\n", f);
        return;
    }
    /* The kernels' memory-management options apart from the rest: what a
     * kernel comparison's reader looks for first. */
    print_diffs(f, c, mk, false, "environment differences");
    print_diffs(f, c, mk, true, "kernel configuration differences (memory management)");
}

/* An option some kernel does not have at all (new, renamed or removed
 * between releases): listed per kernel rather than as a row of its own. */
static bool partial(const struct comparison *c, const struct cmp_env_diff *d)
{
    for (size_t l = 0; l < c->nlabels; l++)
        if (d->values[l] && strcmp(d->values[l], "(absent)") == 0)
            return true;
    return false;
}

/* Is diff d one of this list's: an environment setting, or (kconfig) a
 * kernel option every kernel has, or (only) one that some lack? */
static bool diff_in(const struct comparison *c, const struct cmp_env_diff *d, bool kconfig, bool only)
{
    bool is_k = strncmp(d->key, "kconfig.", 8) == 0;
    if (is_k != kconfig)
        return false;
    return !kconfig || partial(c, d) == only;
}

static void print_only_in(FILE *f, const struct comparison *c, enum markup mk)
{
    bool html = mk == MARKUP_HTML, md = mk == MARKUP_MARKDOWN;
    void (*put)(FILE *, const char *) = html ? quote_html : md ? quote_markdown : put_text;
    for (size_t l = 0; l < c->nlabels; l++) {
        size_t n = 0;
        for (size_t d = 0; d < c->ndiffs; d++) {
            const struct cmp_env_diff *e = &c->diffs[d];
            if (!diff_in(c, e, true, true) || !e->values[l] || strcmp(e->values[l], "(absent)") == 0 ||
                strcmp(e->values[l], "(no ok run)") == 0)
                continue;
            if (n++ == 0) {
                fputs(html ? "<p class=\"only-in\">" : md ? "- " : "  ", f);
                fputs("options not every kernel has, ", f);
                put(f, c->labels[l].name);
                fputs(" has:", f);
            } else {
                fputc(',', f);
            }
            fputc(' ', f);
            put(f, e->key + 8);
            fputc('=', f);
            put(f, e->values[l]);
        }
        if (n)
            fputs(html ? "</p>\n" : "\n", f);
    }
}

static void print_diffs(FILE *f, const struct comparison *c, enum markup mk, bool kconfig, const char *heading)
{
    bool html = mk == MARKUP_HTML, md = mk == MARKUP_MARKDOWN;
    size_t n = 0, nonly = 0;
    for (size_t d = 0; d < c->ndiffs; d++) {
        n += diff_in(c, &c->diffs[d], kconfig, false);
        nonly += kconfig && diff_in(c, &c->diffs[d], true, true);
    }
    if (n == 0 && nonly == 0)
        return;
    if (html) {
        fprintf(f, "<h4>%s</h4>\n", heading);
        if (n) {
            fputs("<table class=\"env\">\n<thead><tr><th>setting</th>", f);
            for (size_t l = 0; l < c->nlabels; l++)
                html_name_cell(f, "th", "", c, cmp_label_shown(&c->labels[l]));
            fputs("</tr></thead>\n<tbody>\n", f);
            for (size_t d = 0; d < c->ndiffs; d++) {
                if (!diff_in(c, &c->diffs[d], kconfig, false))
                    continue;
                fputs("<tr><td>", f);
                quote_html(f, c->diffs[d].key + (kconfig ? 8 : 0));
                fputs("</td>", f);
                for (size_t l = 0; l < c->nlabels; l++) {
                    fputs("<td>", f);
                    quote_html(f, c->diffs[d].values[l] ? c->diffs[d].values[l] : "");
                    fputs("</td>", f);
                }
                fputs("</tr>\n", f);
            }
            fputs("</tbody>\n</table>\n", f);
        }
        if (nonly)
            print_only_in(f, c, mk);
        return;
    }
    fprintf(f, "\n%s%s\n", heading, md ? ":\n" : ":");
    /* Text goes out as it is (the command's terminal stream shows control
     * characters escaped); markdown gets its punctuation escaped. */
    void (*put)(FILE *, const char *) = md ? quote_markdown : put_text;
    for (size_t d = 0; d < c->ndiffs; d++) {
        if (!diff_in(c, &c->diffs[d], kconfig, false))
            continue;
        fputs(md ? "- " : "  ", f);
        put(f, c->diffs[d].key + (kconfig ? 8 : 0));
        fputc(':', f);
        for (size_t l = 0; l < c->nlabels; l++) {
            fputs(l ? ", " : " ", f);
            put(f, c->labels[l].name);
            fputc('=', f);
            put(f, c->diffs[d].values[l] ? c->diffs[d].values[l] : "");
        }
        fputc('\n', f);
    }
    if (nonly)
        print_only_in(f, c, mk);
}

/* For csv: the header line, printed once. */
static void compare_csv_header(FILE *f)
{
    fputs("workload,label,baseline,metric,unit,direction,n,mean,sd,cv_pct,min,median,max,change_pct,t,df,p,"
          "significant,ci_low,ci_high,runs,failed,oom,aborted,test,p_decided,p_bh,p_holm,mw_u,mw_p,boot_ratio,"
          "boot_low,boot_high,detectable_pct,outliers,ratio,ratio_low,ratio_high,ratio_shape\n", f);
}


static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputs(",", f);
}

static void print_csv(FILE *f, const struct comparison *c)
{
    for (size_t m = 0; m < c->nmetrics; m++) {
        for (size_t l = 0; l < c->nlabels; l++) {
            const struct cmp_cell *cell = cmp_cell_at(c, l, m);
            const struct cmp_label *lb = &c->labels[l];
            quote_csv(f, c->workload);
            fputc(',', f);
            quote_csv(f, lb->name);
            fputc(',', f);
            quote_csv(f, cmp_judged(c) ? c->labels[c->base].name : "");
            fputc(',', f);
            quote_csv(f, c->metrics[m].name);
            fputc(',', f);
            quote_csv(f, c->metrics[m].unit);
            fputc(',', f);
            quote_csv(f, c->metrics[m].direction);
            fprintf(f, ",%zu", cell->s.n);
            bool has = cell->s.n > 0, tested = cmp_judged(c) && l != c->base, vs = tested && cell->w.valid;
            csv_num(f, has ? cell->s.mean : NAN);
            csv_num(f, cell->s.n > 1 ? cell->s.sd : NAN);
            csv_num(f, cell->s.n > 1 ? cell->s.cv_pct : NAN);
            csv_num(f, has ? cell->s.min : NAN);
            csv_num(f, has ? cell->s.median : NAN);
            csv_num(f, has ? cell->s.max : NAN);
            csv_num(f, tested ? cell->change_pct : NAN);
            csv_num(f, vs ? cell->w.t : NAN);
            csv_num(f, vs ? cell->w.df : NAN);
            csv_num(f, vs ? cell->w.p : NAN);
            fprintf(f, ",%s", !tested ? "" : cell->significant ? "yes" : "no");
            csv_num(f, vs ? cell->w.ci_low : NAN);
            csv_num(f, vs ? cell->w.ci_high : NAN);
            fprintf(f, ",%zu,%zu,%zu,%zu", lb->runs, lb->failed, lb->oom, lb->aborted);
            bool judged = l != c->base && !isnan(cell->p);
            fprintf(f, ",%s", judged ? cell->test : "");
            csv_num(f, judged ? cell->p : NAN);
            csv_num(f, judged ? cell->p_bh : NAN);
            csv_num(f, judged ? cell->p_holm : NAN);
            csv_num(f, judged ? cell->mwu.u : NAN);
            csv_num(f, judged ? cell->mwu.p : NAN);
            csv_num(f, judged && cell->boot.valid ? cell->boot.ratio : NAN);
            csv_num(f, judged && cell->boot.valid ? cell->boot.low : NAN);
            csv_num(f, judged && cell->boot.valid ? cell->boot.high : NAN);
            csv_num(f, judged ? cell->detectable_pct : NAN);
            fprintf(f, ",%zu", lb->noutliers);
            bool set = judged && cell->rci.valid && cell->rci.shape != RATIO_CI_ALL;
            csv_num(f, judged && cell->rci.valid ? cell->rci.ratio : NAN);
            csv_num(f, set ? cell->rci.low : NAN);
            csv_num(f, set ? cell->rci.high : NAN);
            fprintf(f, ",%s", judged && cell->rci.valid ? ratio_ci_shape_name(cell->rci.shape) : "");
            fputc('\n', f);
        }
    }
}

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

/* A table under its title, as a heading of the given level in HTML and
 * markdown, a line in text. */
static void print_titled_table(FILE *f, enum markup mk, int level, const char *title, const struct table *t,
                               const struct comparison *c)
{
    if (mk == MARKUP_HTML) {
        fprintf(f, "<h%d>", level);
        quote_html(f, title);
        fprintf(f, "</h%d>\n", level);
        print_html_table(f, t, c);
    } else if (mk == MARKUP_MARKDOWN) {
        fprintf(f, "%.*s ", level, "######");
        quote_markdown(f, title);
        fputs("\n\n", f);
        table_print_markdown(t, f);
        fputc('\n', f);
    } else {
        fprintf(f, "%s\n\n", title);
        table_print(t, f);
        fputc('\n', f);
    }
}

/* A suite's two axes as the 2002 report laid its kernels and memory sizes
 * out: one axis down, the other across, each entry a cell's headline mean
 * ±sd and its change against the baseline. */
static void print_grid(FILE *f, const struct comparison *c, enum markup mk)
{
    const struct cmp_grid *g = c->grid;
    if (!g || g->ncols + 1 > TABLE_MAX_COLS)
        return;
    char corner[160];
    snprintf(corner, sizeof corner, "%s \\ %s", g->row_axis, g->col_axis);
    const char *headers[TABLE_MAX_COLS];
    bool right[TABLE_MAX_COLS];
    headers[0] = corner;
    right[0] = false;
    for (size_t j = 0; j < g->ncols; j++) {
        headers[j + 1] = compare_abbrev_of(c, g->cols[j]);
        right[j + 1] = true;
    }
    struct table t;
    table_init(&t, g->ncols + 1, headers, right);
    char entries[TABLE_MAX_COLS][128];
    const char *row[TABLE_MAX_COLS];
    for (size_t i = 0; i < g->nrows; i++) {
        row[0] = compare_abbrev_of(c, g->rows[i]);
        for (size_t j = 0; j < g->ncols; j++) {
            int l = g->label[i * g->ncols + j];
            entries[j][0] = '\0';
            if (l >= 0) {
                char ms[96], ch[48];
                fmt_mean_sd(ms, sizeof ms, cmp_cell_at(c, (size_t)l, 0), c->metrics[0].unit);
                if (cmp_is_base(c, (size_t)l))
                    snprintf(ch, sizeof ch, "baseline");
                else
                    fmt_change(ch, sizeof ch, c, (size_t)l, 0);
                if (cmp_judged(c))
                    snprintf(entries[j], sizeof entries[j], "%s (%s)", ms, ch);
                else
                    snprintf(entries[j], sizeof entries[j], "%s", ms);
            }
            row[j + 1] = entries[j];
        }
        table_add_row(&t, row);
    }
    char title[400], name[256];
    compare_title(c, name, sizeof name);
    snprintf(title, sizeof title, "%s by %s and %s: %s, mean ±sd%s", name, g->row_axis, g->col_axis,
             c->metrics[0].title[0] ? c->metrics[0].title : c->metrics[0].name,
             cmp_judged(c) ? " (change against the baseline)" : "");
    print_titled_table(f, mk, 4, title, &t, c);
    table_free(&t);
}

/* The table, its title, the ratio sentences and what differed, in one of
 * the three markups people read. */
static void render_readable(FILE *f, const struct comparison *c, enum markup mk, bool long_view)
{
    struct table t;
    if (long_view)
        build_long_table(&t, c);
    else
        build_report_table(&t, c, c->nlabels > 1 && cmp_judged(c));
    char title[1100], alpha[256], name[256], base[300] = "no baseline";
    pm_fmt_sig(alpha, sizeof alpha, c->alpha, 3);
    if (c->family > 1 && cmp_judged(c))
        snprintf(alpha + strlen(alpha), sizeof alpha - strlen(alpha), " for a family of %zu comparisons", c->family);
    if (long_view && cmp_judged(c) && c->nmetrics > c->nprimary)
        snprintf(alpha + strlen(alpha), sizeof alpha - strlen(alpha),
                 " (the metrics below %s are a family of their own, %zu, and judge nothing)",
                 c->metrics[c->nprimary - 1].name, c->family_extra);
    compare_title(c, name, sizeof name);
    if (cmp_judged(c))
        snprintf(base, sizeof base, "baseline %s", c->labels[c->base].name);
    snprintf(title, sizeof title, "%s%s%s: %zu %s%s, %s, alpha %s%s", name, c->suite[0] ? ", " : "", c->suite,
             c->nlabels, c->suite[0] ? "cell" : "label", c->nlabels == 1 ? "" : "s", base, alpha,
             long_view ? "" : cmp_judged(c) ? "; mean ±sd of ok runs, change: + is better, * significant"
                                            : "; mean ±sd of ok runs");
    print_caveat(f, c, mk);
    print_titled_table(f, mk, 3, title, &t, c);
    table_free(&t);
    print_grid(f, c, mk);
    compare_legend(f, c, mk);
    print_sentences_and_env(f, c, mk);
}

void compare_render_html(FILE *f, const struct comparison *c, bool long_view)
{
    render_readable(f, c, MARKUP_HTML, long_view);
}

static void readable_begin(struct cmp_writer *w)
{
    (void)w;
}

static void readable_comparison(struct cmp_writer *w, const struct comparison *c, bool long_view)
{
    if (w->isolation_only)
        return;
    if (w->n++)
        fputc('\n', w->f);
    render_readable(w->f, c, w->fmt->markup, long_view);
}

/* The geometric means across workloads, one line per configuration. */
void compare_across_render(FILE *f, const struct across *across, size_t n, enum markup mk)
{
    if (!n)
        return;
    const char *head = "across workloads: the geometric mean of each workload's headline against its baseline "
                       "(above 100 % is better: rates cell/baseline, times baseline/cell), 95 % interval from the runs";
    if (mk == MARKUP_HTML) {
        fputs("<p class=\"across\">", f);
        quote_html(f, head);
        fputs("</p>\n<ul class=\"across\">\n", f);
    } else {
        fprintf(f, "\n%s\n", head);
    }
    for (size_t i = 0; i < n; i++) {
        const struct across *a = &across[i];
        char line[512];
        if (a->g.valid)
            snprintf(line, sizeof line, "%s: %.1f %% [%.1f, %.1f] over %zu workloads", a->shown, 100 * a->g.ratio,
                     100 * a->g.low, 100 * a->g.high, a->workloads);
        else
            snprintf(line, sizeof line, "%s: - (a ratio not above 0)", a->shown);
        if (mk == MARKUP_HTML) {
            fputs("<li>", f);
            quote_html(f, line);
            fputs("</li>\n", f);
        } else {
            fputs(mk == MARKUP_MARKDOWN ? "- " : "  ", f);
            if (mk == MARKUP_MARKDOWN)
                quote_markdown(f, line);
            else
                put_text(f, line);
            fputc('\n', f);
        }
    }
    if (mk == MARKUP_HTML)
        fputs("</ul>\n", f);
}

/* The verdict in words is the last line, for a CI log's reader. */
static void readable_end(struct cmp_writer *w, const struct cmp_verdict *v)
{
    if (!w->isolation_only)
        compare_across_render(w->f, w->across, w->nacross, w->fmt->markup);
    if (!w->isolation_only && w->isolation && w->isolation->n && w->fmt->markup != MARKUP_HTML)
        fputc('\n', w->f);
    isolation_render(w->f, w->isolation, w->fmt->markup);
    if (!v)
        return;
    if (v->findings[0])
        fprintf(w->f, "\n%s", v->findings);
    verdict_print(w->f, v);
}

/* CSV is one table a file: the comparisons', or with --isolation the
 * isolation figures'. */
static void csv_begin(struct cmp_writer *w)
{
    if (!w->isolation_only)
        compare_csv_header(w->f);
}

static void csv_comparison(struct cmp_writer *w, const struct comparison *c, bool long_view)
{
    (void)long_view;
    w->n++;
    if (!w->isolation_only)
        print_csv(w->f, c);
}

/* Data formats keep their output parseable: the verdict's line goes to
 * the log (the command's stderr). */
static void csv_end(struct cmp_writer *w, const struct cmp_verdict *v)
{
    if (w->isolation_only)
        isolation_csv(w->f, w->isolation);
    if (v && w->log)
        verdict_print(w->log, v);
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

static const struct cmp_format formats[] = {
    { "text", MARKUP_TEXT, true, readable_begin, readable_comparison, readable_end },
    { "markdown", MARKUP_MARKDOWN, true, readable_begin, readable_comparison, readable_end },
    { "csv", MARKUP_TEXT, false, csv_begin, csv_comparison, csv_end },
    { "json", MARKUP_TEXT, false, json_begin, json_comparison, json_finish },
    { "html", MARKUP_HTML, false, readable_begin, readable_comparison, readable_end },
};

const char *const cmp_format_names[] = { "text", "markdown", "csv", "json", "html", NULL };

const struct cmp_format *cmp_format_get(unsigned index)
{
    return index < sizeof formats / sizeof formats[0] ? &formats[index] : &formats[0];
}
