#include "reports/html_report.h"
#include "reports/judge.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/units.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "reports/compare.h"
#include "reports/compare_fmt.h"
#include "reports/html_history.h"
#include "reports/html_svg.h"
#include "reports/html_ticks.h"
#include "reports/isolation_fmt.h"
#include "stats/outlier.h"
#include "reports/plot.h"
#include "stats/stats.h"
#include "store/runinfo.h"
#include "reports/summary.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

static const char css[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:1em auto;padding:0 1em;color:#222;max-width:1200px;"
    "line-height:1.4}"
    "h1{font-size:1.5em;margin:.3em 0}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}"
    ".meta{color:#555;font-size:.9em;margin:.2em 0 1em}.question{font-size:1.15em;font-weight:bold}"
    ".caveat{border-left:4px solid #c60;padding:.3em .6em;background:#fff4e5}"
    "#summary{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.2em 1em 1em}"
    ".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.9em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}"
    "th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    /* A comparison's numbers wrap between their pieces (mean, ±sd), never
     * inside one; a short name stays on one line. */
    "table.cmp td.num{white-space:normal}table.cmp td.num span,td.name{white-space:nowrap}"
    ".legend{color:#555;font-size:.9em}"
    ".sentences li{margin:.3em 0}.chart{margin:1em 0}.chart svg{max-width:100%;height:auto}"
    ".zero{color:#555;font-style:italic}nav ul{columns:2;max-width:40em}"
    "pre{background:#f7f7f7;padding:.6em;overflow-x:auto}details{margin:.4em 0}"
    ".swatch{display:inline-block;width:.8em;height:.8em;margin-right:.4em;vertical-align:middle}"
    /* An outlier's row stands out, and more so when a link has led to it. */
    "tr.outlier td{background:#fff4e5}tr:target td{background:#ffe0b2}"
    ".badge{background:#c60;color:#fff;border-radius:3px;padding:0 .35em;font-size:.85em;white-space:nowrap}"
    "table.ticks{font-size:.8em;margin:.3em 0}table.ticks td,table.ticks th{padding:.1em .4em}"
    "table.ticks td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    ".status-ok{color:#176b17}.status-failed,.status-oom,.status-aborted{color:#a31515;font-weight:bold}"
    "@media (max-width:600px){body{margin:.5em auto;font-size:15px}table{font-size:.8em}nav ul{columns:1}}";

/* gnuplot's default line colours for line types 1 to 8, so a label's
 * swatch in the tables is its line's colour in every chart. */
static const char *const line_colours[] = { "#9400d3", "#009e73", "#56b4e9", "#e69f00",
                                            "#f0e442", "#0072b2", "#e51e10", "#000000" };

static void swatch(FILE *f, size_t label)
{
    fprintf(f, "<span class=\"swatch\" style=\"background:%s\"></span>", line_colours[label % 8]);
}

static void section_id(char *buf, size_t len, const struct comparison *c)
{
    char slug[96];
    compare_slug(c, slug, sizeof slug);
    snprintf(buf, len, "w-%s", slug);
}

/* A run's label as the comparisons' tables show it (short, when it is
 * long), or NULL when it is shown as it is. */
static const char *short_label(const struct comparison *cs, size_t n, const char *workload, const char *label)
{
    for (size_t w = 0; w < n; w++)
        for (size_t l = 0; strcmp(cs[w].workload, workload) == 0 && l < cs[w].nlabels; l++)
            if (strcmp(cs[w].labels[l].name, label) == 0 && strcmp(cmp_label_shown(&cs[w].labels[l]), label) != 0)
                return cmp_label_shown(&cs[w].labels[l]);
    return NULL;
}

/* The comparisons' outlier that is run id, or NULL. */
static const struct cmp_outlier *outlier_of(const struct comparison *cs, size_t n, int64_t id)
{
    for (size_t w = 0; w < n; w++)
        for (size_t l = 0; l < cs[w].nlabels; l++)
            for (size_t i = 0; i < cs[w].labels[l].noutliers; i++)
                if (cs[w].labels[l].outliers[i].run_id == id)
                    return &cs[w].labels[l].outliers[i];
    return NULL;
}

/* A run row's details: its parameters, GNU time line and the settings it
 * ran with; for an outlier, its ticks too, a click away. */
static void run_details(FILE *f, struct pm_db *db, const struct run_info *ri, bool outlier)
{
    fputs("<details><summary>more</summary><pre>", f);
    quote_html(f, ri->params);
    fputc('\n', f);
    char *line = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&line, &len);
    if (mem) {
        summary_gnu_time(mem, ri);
        summary_workload_figures(mem, ri);
        if (fclose(mem) == 0)
            quote_html(f, line);
        free(line);
    }
    for (size_t i = 0; i < ri->meta.n; i++) {
        const char *k = ri->meta.v[i].key;
        if (strncmp(k, "cap.", 4) && strncmp(k, "set.", 4) && strncmp(k, "swap.", 5) && strncmp(k, "thp.", 4) &&
            strcmp(k, "zswap.enabled"))
            continue;
        quote_html(f, k);
        fputs(" = ", f);
        quote_html(f, ri->meta.v[i].value);
        fputc('\n', f);
    }
    fputs("</pre></details>", f);
    if (outlier) {
        fputs("<details class=\"ticks\"><summary>ticks of this outlier</summary>\n", f);
        html_tick_table(f, db, ri->id);
        fputs("</details>", f);
    }
}

/* One run's row, its anchor run-N the summary's outlier notes link to. */
static void run_row(FILE *f, struct pm_db *db, const struct run_info *ri, const struct comparison *cs, size_t ncs)
{
    const char *title;
    const char *hname = summary_runs_headline(ri, 1, &title);
    const struct metric *h = metric_set_find(&ri->metrics, hname);
    const struct metric *so = metric_set_find(&ri->metrics, MN_swap_out_kb);
    const struct cmp_outlier *o = outlier_of(cs, ncs, ri->id);
    char head[96] = "-", swapout[64] = "-", started[64];
    if (h)
        pm_fmt_quantity(head, sizeof head, h->value, h->unit);
    if (so)
        pm_fmt_quantity(swapout, sizeof swapout, so->value, "KB");
    summary_fmt_time(started, sizeof started, ri->started_ns);
    const char *cap = pm_kv_get(&ri->meta, "cap.method");
    fprintf(f, "<tr id=\"run-%lld\"%s><td class=\"num\">%lld</td><td", (long long)ri->id,
            o ? " class=\"outlier\"" : "", (long long)ri->id);
    const char *shown = short_label(cs, ncs, ri->workload, ri->label);
    if (shown) {
        fputs(" title=\"", f);
        quote_html(f, ri->label);
        fputc('"', f);
    }
    fputc('>', f);
    quote_html(f, shown ? shown : ri->label);
    fputs("</td><td>", f);
    quote_html(f, ri->workload);
    /* The class is one of ours, whatever the database says the status is. */
    static const char *const known[] = { "ok", "failed", "oom", "aborted", "running" };
    const char *cls = "other";
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strcmp(ri->status, known[k]) == 0)
            cls = known[k];
    fprintf(f, "</td><td class=\"status-%s\">", cls);
    quote_html(f, ri->status);
    if (ri->reason[0]) {
        fputs(": ", f);
        quote_html(f, ri->reason);
    }
    fputs("</td><td class=\"num\">", f);
    quote_html(f, head);
    if (o) {
        char z[32];
        stats_fmt_z(z, sizeof z, o->z);
        fprintf(f, " <span class=\"badge\" title=\"modified z-score of the headline among its configuration's ok "
                   "runs, above the critical value for their number\">outlier, %s</span>", z);
    }
    fprintf(f, "</td><td class=\"num\">%s</td><td>", swapout);
    quote_html(f, cap ? cap : "none");
    fprintf(f, "</td><td>%s</td><td>", started);
    run_details(f, db, ri, o != NULL);
    fputs("</td></tr>\n", f);
}

/* What run_rows' rows go into, as store_run_list_each hands it each run. */
struct rows_out {
    FILE *f;
    struct pm_db *db;
    const struct comparison *cs;
    size_t ncs;
};

/* One run's row, read in the list's own read. A run that cannot be read
 * (its machine row gone) has no row, as the table always did. */
static int run_row_of(void *ctx, int64_t id, struct pm_err *err)
{
    (void)err;
    const struct rows_out *o = ctx;
    struct run_info ri;
    if (store_run_info_load(o->db, id, &ri, NULL) < 0)
        return 0;
    run_row(o->f, o->db, &ri, o->cs, o->ncs);
    store_run_info_free(&ri);
    return 0;
}

/* The Runs section: 0, or -1 with err when the runs could not be listed
 * (the page is then no page: a table cut short would pass for all runs). */
static int run_rows(FILE *f, struct pm_db *db, const char *suite_uuid, const struct comparison *cs, size_t ncs,
                    struct pm_err *err)
{
    fputs("<section id=\"runs\">\n<h2>Runs</h2>\n<div class=\"scroll\"><table>\n<thead><tr><th>run</th><th>label</th><th>workload</th><th>status</th>"
          "<th>headline</th><th>Total swpout</th><th>cap</th><th>started</th><th>details</th></tr></thead>\n<tbody>\n", f);
    struct rows_out o = { f, db, cs, ncs };
    if (store_run_list_each(db, &(struct run_filter){ .suite_uuid = suite_uuid }, run_row_of, &o, err) < 0)
        return -1;
    fputs("</tbody>\n</table></div>\n</section>\n", f);
    return 0;
}

/* The comparison of one part, built as the page shows it. */
/* --allow-emulated, for the page being written. */
static bool allow_emulated;

static int build_part(struct pm_db *db, const struct report_scope *scope, const struct report_part *part, bool long_view,
                      struct comparison *c, struct pm_err *err)
{
    struct compare_request rq = { .workload = part->workload, .labels = part->labels, .nlabels = part->n,
                                  .alpha = 0.05, .long_view = long_view,
                                  .suite_uuid = scope ? scope->suite_uuid : NULL, .allow_emulated = allow_emulated,
                                  .group = part->group, .unjudged = part->unjudged };
    if (compare_build(db, &rq, c, err) < 0)
        return -1;
    if (part->axes && compare_grid(c, part->axes, err) < 0)
        return -1;
    if (scope && scope->title)
        snprintf(c->suite, sizeof c->suite, "%s", scope->title);
    return 0;
}

/* A label in a table cell: its short name after its swatch, the full
 * label in the tooltip when the two differ. */
static void label_cell(FILE *f, const struct comparison *c, size_t l)
{
    const struct cmp_label *lb = &c->labels[l];
    const char *shown = cmp_label_shown(lb);
    fputs("<td", f);
    if (strcmp(shown, lb->name) != 0) {
        fputs(" title=\"", f);
        quote_html(f, lb->name);
        fputc('"', f);
    }
    fputc('>', f);
    swatch(f, l);
    quote_html(f, shown);
    fputs("</td>", f);
}

/* One configuration's row of the summary: its headline's mean and 95%
 * CI in the metric's unit (at conf: a target-ci suite's looks are wider,
 * so that the one a cell stopped with is a 95% one), runs, failures, the
 * change against the baseline and, for a suite, how its run count ended. */
static void summary_row(FILE *f, const struct comparison *c, size_t l, const char *note, double conf)
{
    const struct cmp_cell *cell = cmp_cell_at(c, l, 0);
    const struct cmp_label *lb = &c->labels[l];
    fputs("<tr>", f);
    label_cell(f, c, l);
    char mean[96] = "-", ci[128] = "-", change[256] = "baseline";
    if (!cmp_judged(c))
        snprintf(change, sizeof change, "not judged");
    if (cell->s.n) {
        pm_fmt_quantity(mean, sizeof mean, cell->s.mean, c->metrics[0].unit);
        double half = stats_ci_half(&cell->s, conf);
        char h[64];
        pm_fmt_quantity(h, sizeof h, half, c->metrics[0].unit);
        if (!isnan(half) && cell->s.mean != 0)
            snprintf(ci, sizeof ci, "±%s (±%.1f%%)", h, 100 * half / fabs(cell->s.mean));
    }
    if (cmp_judged(c) && l != c->base) {
        char p[160];
        struct judged_p jp = judge_cell_p(c, 0, cell, false);
        stats_fmt_judged_p(p, sizeof p, &jp);
        if (isnan(cell->change_pct))
            snprintf(change, sizeof change, "-");
        else if (isnan(cell->p))
            snprintf(change, sizeof change, "%+.1f%% (too few runs to test)", cell->change_pct);
        else
            snprintf(change, sizeof change, "%+.1f%% (%s)%s", cell->change_pct, p, cell->significant ? " significant" : "");
    }
    fputs("<td class=\"num\">", f);
    quote_html(f, mean);
    fputs("</td><td class=\"num\">", f);
    quote_html(f, ci);
    fprintf(f, "</td><td class=\"num\">%zu</td><td class=\"num\">%zu:%zu</td><td>", lb->ok,
            lb->failed + lb->oom + lb->aborted, lb->runs);
    quote_html(f, change);
    fputs("</td>", f);
    if (note) {
        fputs("<td>", f);
        quote_html(f, note);
        fputs("</td>", f);
    }
    fputs("</tr>\n", f);
}

/* Under a workload's summary table: each configuration's runs far from
 * its others, each a link to its row in the Runs table (where its ticks
 * are a click away). The mean above keeps them. */
static void outlier_note(FILE *f, const struct comparison *c)
{
    size_t total = 0, k = 0;
    for (size_t l = 0; l < c->nlabels; l++)
        total += c->labels[l].noutliers;
    for (size_t l = 0; l < c->nlabels; l++)
        for (size_t i = 0; i < c->labels[l].noutliers; i++) {
            const struct cmp_outlier *o = &c->labels[l].outliers[i];
            if (k++ == 0)
                fprintf(f, "<p class=\"outliers\">outlier%s (a run whose headline has a modified z-score above "
                           "the critical value for its configuration's ok runs, at which a clean sample is "
                           "flagged 5 %% of the time; kept in the mean, its ticks in its row of the Runs "
                           "table): ", total == 1 ? "" : "s");
            char v[96];
            pm_fmt_quantity(v, sizeof v, o->value, c->metrics[0].unit);
            fprintf(f, "%s<a href=\"#run-%lld\">run %lld</a> of ", k > 1 ? ", " : "", (long long)o->run_id,
                    (long long)o->run_id);
            quote_html(f, c->labels[l].name);
            fputs(" (", f);
            quote_html(f, v);
            char z[32];
            stats_fmt_z(z, sizeof z, o->z);
            fprintf(f, ", %s)", z);
        }
    if (total)
        fputs("</p>\n", f);
}

/* The page's comparisons as judge.h and across.h take them; NULL out of
 * memory. */
static struct comparison **pointers_to(struct comparison *cs, size_t n)
{
    struct comparison **p = calloc(n ? n : 1, sizeof *p);
    for (size_t i = 0; p && i < n; i++)
        p[i] = &cs[i];
    return p;
}

/* Each configuration's geometric mean over the page's workloads. */
static void across_note(FILE *f, struct comparison *cs, size_t n)
{
    struct comparison **cptrs = pointers_to(cs, n);
    struct across *a = NULL;
    size_t na = 0;
    if (cptrs && compare_across(cptrs, n, &a, &na) == 0 && na) {
        fputs("<h3>Across workloads</h3>\n", f);
        compare_across_render(f, a, na, MARKUP_HTML);
    }
    free(a);
    free(cptrs);
}

/* The summary: per workload each configuration's headline, its 95% CI,
 * runs and failures, change against the baseline; then the sentences. */
static void summary_section(FILE *f, const struct report_scope *scope, struct comparison *cs, const struct report_part *parts,
                            size_t n, const struct isolation *iso)
{
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n", f);
    if (scope && scope->question && scope->question[0]) {
        fputs("<p class=\"question\">", f);
        quote_html(f, scope->question);
        fputs("</p>\n", f);
    }
    /* Emulated kernels' timings say so before any number is read. */
    size_t emulated = 0;
    for (size_t w = 0; w < n; w++)
        emulated += cs[w].nemulated;
    if (emulated)
        fputs("<p class=\"caveat\">caveat: some of these runs ran in virtual machines under QEMU's TCG emulation "
              "(no KVM), so their rates, %CPU and times measure the emulator as much as the kernel; counts (messages, "
              "swap-ins and -outs, faults) are the kernel's. Each workload's section names them.</p>\n", f);
    for (size_t w = 0; w < n; w++) {
        const struct comparison *c = &cs[w];
        char name[256];
        compare_title(c, name, sizeof name);
        fputs("<h3>", f);
        quote_html(f, name);
        fputs(": ", f);
        quote_html(f, c->metrics[0].title[0] ? c->metrics[0].title : c->metrics[0].name);
        fputs("</h3>\n<div class=\"scroll\"><table>\n<thead><tr><th>", f);
        fputs(scope && scope->suite_uuid ? "cell" : "label", f);
        fputs("</th><th>mean</th><th>95% CI</th><th>ok runs</th><th>fail:runs</th><th>change</th>", f);
        bool notes = parts[w].notes != NULL;
        if (notes)
            fputs("<th>runs until</th>", f);
        fputs("</tr></thead>\n<tbody>\n", f);
        for (size_t l = 0; l < c->nlabels; l++)
            summary_row(f, c, l, !notes ? NULL : l < parts[w].n ? parts[w].notes[l] : "",
                        scope && scope->ci_conf > 0 ? scope->ci_conf : 0.95);
        fputs("</tbody>\n</table></div>\n", f);
        compare_legend(f, c, MARKUP_HTML);
        outlier_note(f, c);
        if (!cmp_judged(c)) {
            fputs("<p class=\"unjudged\">not judged: ", f);
            quote_html(f, c->unjudged);
            fputs("</p>\n", f);
            continue;
        }
        fputs("<ul class=\"sentences\">\n", f);
        for (size_t l = 0; l < c->nlabels; l++) {
            if (l == c->base)
                continue;
            fputs("<li>", f);
            quote_html(f, c->labels[l].sentence);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    across_note(f, cs, n);
    isolation_render(f, iso, MARKUP_HTML);
    fputs("</section>\n", f);
}

static void toc(FILE *f, const struct comparison *cs, size_t n, bool history)
{
    fputs("<nav id=\"toc\">\n<h2>Contents</h2>\n<ul>\n<li><a href=\"#summary\">Summary</a></li>\n", f);
    for (size_t w = 0; w < n; w++) {
        char id[128], name[256];
        section_id(id, sizeof id, &cs[w]);
        compare_title(&cs[w], name, sizeof name);
        fprintf(f, "<li><a href=\"#%s\">", id);
        quote_html(f, name);
        fputs(": tables and charts</a></li>\n", f);
    }
    if (history)
        fputs("<li><a href=\"#history\">History: each configuration night by night</a></li>\n", f);
    fputs("<li><a href=\"#runs\">Runs</a></li>\n</ul>\n</nav>\n", f);
}

/* Returns -1 (chart_err saying why) when the charts could not be drawn:
 * the page says so where they would stand, and the report is a failure. */
static int workload_section(FILE *f, struct pm_db *db, const struct report_scope *scope, const struct report_part *part,
                            const struct comparison *c, const char *charts_dir, bool gnuplot, struct pm_err *chart_err)
{
    char id[128], name[256];
    section_id(id, sizeof id, c);
    compare_title(c, name, sizeof name);
    fprintf(f, "<section id=\"%s\">\n<h2>", id);
    quote_html(f, name);
    fputs("</h2>\n<div class=\"scroll\">\n", f);
    compare_render_html(f, c, false);
    fputs("</div>\n", f);
    struct comparison lc;
    struct pm_err lerr;
    if (build_part(db, scope, part, true, &lc, &lerr) == 0) {
        fputs("<details><summary>every statistic (n, mean, stddev, CV%, min, median, max, change, p, 95% CI)</summary>\n"
              "<div class=\"scroll\">\n", f);
        compare_render_html(f, &lc, true);
        fputs("</div></details>\n", f);
    }
    compare_free(&lc);
    if (!gnuplot) {
        fputs("<p>(no charts: gnuplot is not installed)</p>\n", f);
    } else {
        char written[PLOT_CHARTS][4096];
        bool zero[PLOT_CHARTS];
        struct pm_err err;
        struct plot_request prq = { .out_dir = charts_dir, .svg = true, .all_zero = zero };
        if (plot_comparison(db, c, &prq, written, &err) == 0) {
            for (int i = 0; i < PLOT_CHARTS; i++) {
                if (zero[i]) {
                    fprintf(f, "<p class=\"zero\">%s: every series is zero in every run, so there is nothing to draw"
                               "</p>\n", plot_chart_titles[i]);
                    continue;
                }
                html_inline_svg(f, written[i]);
            }
        } else {
            fputs("<p>charts could not be drawn: ", f);
            quote_html(f, err.msg);
            fputs("</p>\n", f);
            *chart_err = err;
            fputs("</section>\n", f);
            return -1;
        }
    }
    fputs("</section>\n", f);
    return 0;
}

/* The page's tables are one family, as compare judges what it shows. */
static int judge_parts(struct comparison *cs, size_t n, struct pm_err *err)
{
    struct comparison **cptrs = pointers_to(cs, n);
    int rc = cptrs && compare_judge(cptrs, n, 0.05) == 0 ? 0 : pm_errf(err, "out of memory");
    free(cptrs);
    return rc;
}

/* The page's head and title: what it is about, when and from where. */
static void page_head(FILE *f, const struct report_scope *scope, const char *db_label)
{
    char now[64];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>pressmark report", f);
    if (scope && scope->title) {
        fputs(": ", f);
        quote_html(f, scope->title);
    }
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>pressmark report", css);
    if (scope && scope->title) {
        fputs(": ", f);
        quote_html(f, scope->title);
    }
    fprintf(f, "</h1>\n<p class=\"meta\">generated %s from ", now);
    quote_html(f, db_label);
    fputs("</p>\n", f);
}

int html_report_write(struct pm_db *db, const struct report_scope *scope, bool with_emulated, const char *out_dir,
                      const char *db_label,
                      char *page_path, size_t len, struct pm_err *err)
{
    allow_emulated = with_emulated;
    char charts_dir[4096];
    snprintf(charts_dir, sizeof charts_dir, "%s/charts", out_dir);
    snprintf(page_path, len, "%s/report.html", out_dir);
    /* Without a scope: every label of every workload. */
    struct report_part *all = NULL;
    char **workloads = NULL;
    size_t nw = 0;
    const struct report_part *parts = scope ? scope->parts : NULL;
    size_t nparts = scope ? scope->nparts : 0;
    if (!scope) {
        if (compare_workloads(db, NULL, 0, &workloads, &nw, err) < 0)
            return -1;
        all = calloc(nw ? nw : 1, sizeof *all);
        if (!all) {
            for (size_t w = 0; w < nw; w++)
                free(workloads[w]);
            free(workloads);
            return pm_errf(err, "out of memory");
        }
        for (size_t w = 0; w < nw; w++)
            all[w].workload = workloads[w];
        parts = all;
        nparts = nw;
    }
    struct comparison *cs = calloc(nparts ? nparts : 1, sizeof *cs);
    int rc = cs ? 0 : pm_errf(err, "out of memory");
    bool charts_failed = false;
    struct pm_err chart_err = { "" };
    size_t built = 0;
    for (; rc == 0 && built < nparts; built++)
        if (build_part(db, scope, &parts[built], false, &cs[built], err) < 0) {
            compare_free(&cs[built]);
            rc = -1;
        }
    if (rc == 0)
        rc = judge_parts(cs, nparts, err);
    /* What cells beside a sibling hog keep, with compare's default intervals. */
    struct isolation iso = { 0 };
    struct comparison **cptrs = rc == 0 ? pointers_to(cs, nparts) : NULL;
    if (rc == 0)
        rc = !cptrs ? pm_errf(err, "out of memory") : isolation_build(db, cptrs, nparts, &iso, err);
    free(cptrs);
    /* The nightly's history database holds each cell's nights: they get a section. */
    struct html_histories hs = { 0 };
    if (rc == 0)
        rc = html_histories_build(db, cs, nparts, with_emulated, &hs, err);
    /* Made once every comparison stands: a refused page leaves nothing. */
    if (rc == 0 && mkdir(out_dir, 0755) < 0 && errno != EEXIST)
        rc = pm_errf(err, "%s: %s", out_dir, strerror(errno));
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.new", page_path);
    FILE *f = rc == 0 ? pm_create_file(tmp) : NULL;
    if (rc == 0 && !f)
        rc = pm_errf(err, "%s: %s", tmp, strerror(errno));
    if (rc == 0) {
        page_head(f, scope, db_label);
        summary_section(f, scope, cs, parts, nparts, &iso);
        toc(f, cs, nparts, hs.n || hs.nskipped);
        bool gnuplot = plot_have_gnuplot();
        for (size_t w = 0; w < nparts; w++)
            if (workload_section(f, db, scope, &parts[w], &cs[w], charts_dir, gnuplot, &chart_err) < 0)
                charts_failed = true;
        if (html_history_section(f, &hs, charts_dir, gnuplot, &chart_err) < 0)
            charts_failed = true;
        rc = run_rows(f, db, scope ? scope->suite_uuid : NULL, cs, nparts, err);
        fputs("</body>\n</html>\n", f);
        if (fclose(f) != 0 && rc == 0)
            rc = pm_errf(err, "%s: %s", tmp, strerror(errno));
        if (rc == 0 && rename(tmp, page_path) < 0)
            rc = pm_errf(err, "%s: %s", page_path, strerror(errno));
        if (rc < 0)
            unlink(tmp);
    }
    /* The page stands, but without charts it is not the report asked for. */
    if (rc == 0 && charts_failed) {
        *err = chart_err;
        rc = 1;
    }
    html_histories_free(&hs);
    isolation_free(&iso);
    for (size_t w = 0; w < built; w++)
        compare_free(&cs[w]);
    free(cs);
    for (size_t w = 0; w < nw; w++)
        free(workloads[w]);
    free(workloads);
    free(all);
    return rc;
}
