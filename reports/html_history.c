#include "reports/html_history.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "lib/quote.h"
#include "lib/units.h"
#include "reports/history_chart.h"
#include "reports/history_fmt.h"
#include "reports/html_svg.h"

static bool seen(const struct html_histories *hs, const char *label, const char *workload)
{
    for (size_t i = 0; i < hs->n; i++)
        if (strcmp(hs->v[i].label, label) == 0 && strcmp(hs->v[i].workload, workload) == 0)
            return true;
    return false;
}

/* One label's history, kept when it spans two suite runs or more; one
 * that cannot be read is a line under the section, not a failed page. */
static int add_history(struct pm_db *db, const char *label, const char *workload, bool allow_emulated,
                       struct html_histories *hs, struct pm_err *err)
{
    struct history h;
    struct pm_err herr;
    const struct history_request rq = { .label = label, .workload = workload, .allow_emulated = allow_emulated,
                                        .absent_ok = true, .detect = true };
    if (history_build(db, &rq, &h, &herr) < 0) {
        history_free(&h);
        char (*v)[512] = realloc(hs->skipped, (hs->nskipped + 1) * sizeof *v);
        if (!v)
            return pm_errf(err, "out of memory");
        hs->skipped = v;
        snprintf(v[hs->nskipped++], sizeof v[0], "the history of %s (%s) is not shown: %s", label, workload, herr.msg);
        return 0;
    }
    if (h.metric_absent || h.suite_nights < 2) {
        history_free(&h);
        return 0;
    }
    struct history *v = realloc(hs->v, (hs->n + 1) * sizeof *v);
    if (!v) {
        history_free(&h);
        return pm_errf(err, "out of memory");
    }
    hs->v = v;
    v[hs->n++] = h;
    return 0;
}

int html_histories_build(struct pm_db *db, const struct comparison *cs, size_t n, bool allow_emulated,
                         struct html_histories *out, struct pm_err *err)
{
    memset(out, 0, sizeof *out);
    for (size_t w = 0; w < n; w++)
        for (size_t l = 0; l < cs[w].nlabels; l++) {
            const struct cmp_label *lb = &cs[w].labels[l];
            if (lb->foreign || seen(out, lb->name, cs[w].workload))
                continue;
            if (add_history(db, lb->name, cs[w].workload, allow_emulated, out, err) < 0)
                return -1;
        }
    return 0;
}

void html_histories_free(struct html_histories *hs)
{
    for (size_t i = 0; i < hs->n; i++)
        history_free(&hs->v[i]);
    free(hs->v);
    free(hs->skipped);
    memset(hs, 0, sizeof *hs);
}

static void cell(FILE *f, const char *text, bool num)
{
    fputs(num ? "<td class=\"num\">" : "<td>", f);
    quote_html(f, text);
    fputs("</td>", f);
}

static void night_rows(FILE *f, const struct history *h)
{
    fputs("<div class=\"scroll\"><table>\n<thead><tr><th>night (UTC)</th><th>suite</th><th>n</th><th>mean</th>"
          "<th>sd</th><th>min</th><th>max</th><th>kernel</th><th>pressmark</th><th>marks</th></tr></thead>\n"
          "<tbody>\n", f);
    for (size_t k = 0; k < h->nnights; k++) {
        const struct hist_night *n = &h->nights[k];
        char num[5][64] = { "", "-", "-", "-", "-" }, mark[300];
        snprintf(num[0], sizeof num[0], "%zu", n->n);
        if (n->n) {
            pm_fmt_number(num[1], sizeof num[1], n->s.mean);
            pm_fmt_number(num[3], sizeof num[3], n->s.min);
            pm_fmt_number(num[4], sizeof num[4], n->s.max);
        }
        if (n->n > 1)
            pm_fmt_number(num[2], sizeof num[2], n->s.sd);
        history_marks(mark, sizeof mark, h, k);
        fprintf(f, "<tr%s>", n->change >= 0 ? " class=\"outlier\"" : "");
        cell(f, n->id, false);
        cell(f, n->suite ? n->suite_name : "(a day outside suites)", false);
        for (int i = 0; i < 5; i++)
            cell(f, num[i], true);
        cell(f, n->kernels, false);
        cell(f, n->versions, false);
        cell(f, mark, false);
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table></div>\n", f);
}

static void changes(FILE *f, const struct history *h)
{
    char line[1600];
    fputs("<ul class=\"sentences\">\n", f);
    if (!h->detected) {
        fputs("<li>change points not looked for: ", f);
        quote_html(f, h->why_not);
        fputs("</li>\n", f);
    } else if (!h->nchanges) {
        fputs("<li>no change point</li>\n", f);
    }
    /* A change names the kernels either side of it, as compare --history
     * says it: a change at a new kernel is not the only kind. */
    for (size_t c = 0; c < h->nchanges; c++) {
        fputs("<li>", f);
        history_change_html(f, h, c);
        fputs("</li>\n", f);
    }
    for (size_t e = 0; e < h->nevents; e++) {
        history_event_sentence(line, sizeof line, h, e);
        fputs("<li>", f);
        quote_html(f, line);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* The chart's files are named by the history's place and a slug: two
 * labels a slug makes alike never share a file. */
static int chart(FILE *f, const struct history *h, size_t i, const char *charts_dir, struct pm_err *err)
{
    char name[400], slug[200], base[256], written[4096];
    snprintf(name, sizeof name, "%s.%s", h->workload, h->label);
    quote_slug(name, slug, sizeof slug);
    snprintf(base, sizeof base, "history-%zu-%s", i + 1, slug);
    int rc = 0;
    if (mkdir(charts_dir, 0755) < 0 && errno != EEXIST)
        rc = pm_errf(err, "%s: %s", charts_dir, strerror(errno));
    else
        rc = history_chart(h, charts_dir, base, true, written, err);
    if (rc < 0) {
        fputs("<p>the history's chart could not be drawn: ", f);
        quote_html(f, err->msg);
        fputs("</p>\n", f);
        return -1;
    }
    html_inline_svg(f, written);
    return 0;
}

int html_history_section(FILE *f, const struct html_histories *hs, const char *charts_dir, bool gnuplot,
                         struct pm_err *chart_err)
{
    if (!hs->n && !hs->nskipped)
        return 0;
    int rc = 0;
    char method[600];
    fputs("<section id=\"history\">\n<h2>History</h2>\n<p class=\"meta\">Each configuration the database holds from "
          "more than one suite run, its headline night by night: a night is one suite run (the runs outside any "
          "suite, one UTC day), ok runs only. ", f);
    if (hs->n) {
        history_method(method, sizeof method, &hs->v[0]);
        fputs("Change points: ", f);
        quote_html(f, method);
        fputc('.', f);
    }
    fputs("</p>\n", f);
    for (size_t i = 0; i < hs->n; i++) {
        const struct history *h = &hs->v[i];
        fputs("<h3>", f);
        quote_html(f, h->label);
        fputs(" (", f);
        quote_html(f, h->workload);
        fputs("): ", f);
        quote_html(f, h->title);
        fputs("</h3>\n", f);
        night_rows(f, h);
        changes(f, h);
        if (!gnuplot)
            fputs("<p>(no chart: gnuplot is not installed)</p>\n", f);
        else if (chart(f, h, i, charts_dir, chart_err) < 0)
            rc = -1;
    }
    for (size_t i = 0; i < hs->nskipped; i++) {
        fputs("<p class=\"unjudged\">", f);
        quote_html(f, hs->skipped[i]);
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
    return rc;
}
