/* A comparison as people read it, in three markups (text, markdown and
 * an HTML fragment): its title and table, the suite's grid, the short
 * names, the ratio sentences, outliers, drift, failed runs and what
 * differed between the labels' environments; the means across workloads,
 * the isolation figures and the verdict at the end. The text, markdown
 * and html formats are these with their markup (cmpfmt_text.c,
 * cmpfmt_html.c); the HTML report takes the fragment. */
#include "reports/cmpfmt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/quote.h"
#include "lib/units.h"
#include "reports/isolation_fmt.h"
#include "stats/outlier.h"

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
                                                                                             : cmp_put_text;
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
        cmp_put_text(f, line);
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
        cmp_put_text(f, line);
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
            cmp_fmt_value(v, sizeof v, lb->outliers[i].value, c->metrics[0].unit);
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
            cmp_put_text(f, c->labels[l].sentence);
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
    void (*put)(FILE *, const char *) = html ? quote_html : md ? quote_markdown : cmp_put_text;
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
    void (*put)(FILE *, const char *) = md ? quote_markdown : cmp_put_text;
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
                cmp_fmt_mean_sd(ms, sizeof ms, cmp_cell_at(c, (size_t)l, 0), c->metrics[0].unit);
                if (cmp_is_base(c, (size_t)l))
                    snprintf(ch, sizeof ch, "baseline");
                else
                    cmp_fmt_change(ch, sizeof ch, c, (size_t)l, 0);
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
void cmp_render_readable(FILE *f, const struct comparison *c, enum markup mk, bool long_view)
{
    struct table t;
    if (long_view)
        cmp_build_long_table(&t, c);
    else
        cmp_build_report_table(&t, c, c->nlabels > 1 && cmp_judged(c));
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
    cmp_render_readable(f, c, MARKUP_HTML, long_view);
}

void cmp_readable_begin(struct cmp_writer *w)
{
    (void)w;
}

void cmp_readable_comparison(struct cmp_writer *w, const struct comparison *c, bool long_view)
{
    if (w->isolation_only)
        return;
    if (w->n++)
        fputc('\n', w->f);
    cmp_render_readable(w->f, c, w->fmt->markup, long_view);
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
                cmp_put_text(f, line);
            fputc('\n', f);
        }
    }
    if (mk == MARKUP_HTML)
        fputs("</ul>\n", f);
}

/* The verdict in words is the last line, for a CI log's reader. */
void cmp_readable_end(struct cmp_writer *w, const struct cmp_verdict *v)
{
    if (!w->isolation_only)
        compare_across_render(w->f, w->across, w->nacross, w->fmt->markup);
    if (!w->isolation_only && w->isolation && w->isolation->n && w->fmt->markup != MARKUP_HTML)
        fputc('\n', w->f);
    isolation_render(w->f, w->isolation, w->fmt->markup);
    if (!v)
        return;
    if (w->fmt->markup == MARKUP_HTML) {
        /* Findings name labels from the database: only terminal-quoted,
         * so in a page they go through quote_html like every other cell. */
        char line[VERDICT_LINE_MAX];
        verdict_format(v, line, sizeof line);
        fputs("<pre class=\"verdict\">", w->f);
        if (v->findings[0])
            quote_html(w->f, v->findings);
        quote_html(w->f, line);
        fputs("</pre>\n", w->f);
        return;
    }
    if (v->findings[0])
        fprintf(w->f, "\n%s", v->findings);
    verdict_print(w->f, v);
}
