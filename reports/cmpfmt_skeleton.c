/* The shape of a compare format, to copy when adding one. It is compiled
 * with the rest (so it keeps up with the interface) but not registered:
 * to make a copy a --format word, add one line to the registry, X(NAME) in
 * PM_CMP_FORMATS (reports/compare_fmt.c), for the struct cmp_format
 * cmp_format_NAME below; NAME is then what --format takes. The steps:
 *
 *   1. begin(): what comes before the first comparison (json opens its
 *      document here; csv writes its header).
 *   2. comparison(): one comparison (a workload, or a part of a suite):
 *      its labels, metrics (metrics[0] is the headline) and cells, each
 *      cell's summary and its change against the baseline. cmpfmt.h has
 *      the cells' text as the reports' tables write them, the tables
 *      themselves, and the readable renderer whole (cmp_render_readable).
 *      Labels, workloads and settings are data from the database: quote
 *      them for where they go (cmp_put_text for a terminal, lib/quote.h
 *      for CSV, HTML, markdown; the JSON writer quotes by itself).
 *   3. end(): the means across workloads (w->across), the isolation
 *      figures (w->isolation; with --isolation, w->isolation_only, they
 *      are all the output), and the verdict when compare judged
 *      (--fail-on-regression): its line last on standard output for a
 *      format people read, on standard error for a format programs parse.
 *   4. The struct cmp_format: the markup the readable helpers write in,
 *      whether it is read on a terminal (human: then strings from the
 *      database are shown with control characters escaped), the three
 *      operations; then the registry's line.
 *
 * This one is a whole format: a line per comparison naming its headline,
 * a line per label with the headline's mean ±sd and change, and the count
 * of comparisons at the end. */
#include "reports/cmpfmt.h"
#include "reports/isolation_fmt.h"

static void skeleton_begin(struct cmp_writer *w)
{
    (void)w;    /* nothing comes before the first comparison */
}

static void skeleton_comparison(struct cmp_writer *w, const struct comparison *c, bool long_view)
{
    (void)long_view;    /* one layout: --long changes nothing here */
    w->n++;
    if (w->isolation_only)
        return;
    fputs("skeleton: ", w->f);
    cmp_put_text(w->f, c->workload);
    fputs(", ", w->f);
    cmp_put_text(w->f, c->metrics[0].name);
    fputs(" (", w->f);
    cmp_put_text(w->f, c->metrics[0].unit);
    fputs(")\n", w->f);
    for (size_t l = 0; l < c->nlabels; l++) {
        char mean[96], change[96];
        cmp_fmt_mean_sd(mean, sizeof mean, cmp_cell_at(c, l, 0), c->metrics[0].unit);
        cmp_fmt_change(change, sizeof change, c, l, 0);
        fputs("  ", w->f);
        cmp_put_text(w->f, cmp_label_shown(&c->labels[l]));
        fprintf(w->f, ": %s, %s\n", mean, change);
    }
}

static void skeleton_end(struct cmp_writer *w, const struct cmp_verdict *v)
{
    if (!w->isolation_only)
        fprintf(w->f, "skeleton: %zu comparison%s\n", w->n, w->n == 1 ? "" : "s");
    isolation_render(w->f, w->isolation, MARKUP_TEXT);
    if (!v)
        return;
    /* The findings name labels; they come terminal-quoted, and this is a
     * human format (a machine one would write them as its own data). */
    if (v->findings[0])
        fprintf(w->f, "\n%s", v->findings);
    verdict_print(w->f, v);
}

const struct cmp_format cmp_format_skeleton = {
    .markup = MARKUP_TEXT, .human = true,
    .begin = skeleton_begin, .comparison = skeleton_comparison, .end = skeleton_end,
};
