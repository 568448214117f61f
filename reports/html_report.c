#include "reports/html_report.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "reports/compare.h"
#include "reports/compare_fmt.h"
#include "reports/plot.h"
#include "store/runinfo.h"
#include "reports/summary.h"

static const char css[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:2em;color:#222;max-width:1200px}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.9em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}"
    "th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".sentences li{margin:.3em 0}.chart{margin:1em 0}.chart svg{max-width:100%;height:auto}"
    "pre{background:#f7f7f7;padding:.6em;overflow-x:auto}details{margin:.4em 0}"
    ".status-ok{color:#176b17}.status-failed,.status-oom,.status-aborted{color:#a31515;font-weight:bold}";

/* An SVG file inlined: from its <svg element on, without the XML prologue. */
static void inline_svg(FILE *out, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fputs("<p>(chart missing)</p>\n", out);
        return;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        const char *svg = strstr(buf, "<svg");
        fputs("<div class=\"chart\">\n", out);
        fputs(svg ? svg : "", out);
        fputs("\n</div>\n", out);
    }
    free(buf);
    fclose(f);
}

static void run_rows(FILE *f, struct pm_db *db)
{
    sqlite3_stmt *st;
    if (pm_db_prepare(db, &st, "SELECT id FROM run ORDER BY id", NULL) < 0)
        return;
    fputs("<h2>Runs</h2>\n<table>\n<thead><tr><th>run</th><th>label</th><th>workload</th><th>status</th>"
          "<th>headline</th><th>Total swpout</th><th>cap</th><th>started</th><th>details</th></tr></thead>\n<tbody>\n", f);
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct run_info ri;
        if (run_info_load(db, sqlite3_column_int64(st, 0), &ri, NULL) < 0)
            continue;
        const char *title;
        const char *hname = summary_headline(ri.workload, &title);
        const struct metric *h = metric_set_find(&ri.metrics, hname);
        const struct metric *so = metric_set_find(&ri.metrics, "swap.out_kb");
        char head[96] = "-", swapout[64] = "-", started[64];
        if (h)
            snprintf(head, sizeof head, "%.6g %s", h->value, h->unit);
        if (so)
            snprintf(swapout, sizeof swapout, "%.0f KB", so->value);
        summary_fmt_time(started, sizeof started, ri.started_ns);
        const char *cap = kv_get(&ri.meta, "cap.method");
        fprintf(f, "<tr><td class=\"num\">%lld</td><td>", (long long)ri.id);
        quote_html(f, ri.label);
        fputs("</td><td>", f);
        quote_html(f, ri.workload);
        /* The class is one of ours, whatever the database says the status is. */
        static const char *const known[] = { "ok", "failed", "oom", "aborted", "running" };
        const char *cls = "other";
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (strcmp(ri.status, known[k]) == 0)
                cls = known[k];
        fprintf(f, "</td><td class=\"status-%s\">", cls);
        quote_html(f, ri.status);
        if (ri.reason[0]) {
            fputs(": ", f);
            quote_html(f, ri.reason);
        }
        fputs("</td><td class=\"num\">", f);
        quote_html(f, head);
        fprintf(f, "</td><td class=\"num\">%s</td><td>", swapout);
        quote_html(f, cap ? cap : "none");
        fprintf(f, "</td><td>%s</td><td><details><summary>more</summary><pre>", started);
        /* The run's parameters, GNU time line and the settings it ran with. */
        quote_html(f, ri.params);
        fputc('\n', f);
        char *line = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&line, &len);
        if (mem) {
            summary_gnu_time(mem, &ri);
            fclose(mem);
            quote_html(f, line);
            free(line);
        }
        for (size_t i = 0; i < ri.meta.n; i++) {
            const char *k = ri.meta.v[i].key;
            if (strncmp(k, "cap.", 4) && strncmp(k, "set.", 4) && strncmp(k, "swap.", 5) && strncmp(k, "thp.", 4) &&
                strcmp(k, "zswap.enabled"))
                continue;
            quote_html(f, k);
            fputs(" = ", f);
            quote_html(f, ri.meta.v[i].value);
            fputc('\n', f);
        }
        fputs("</pre></details></td></tr>\n", f);
        run_info_free(&ri);
    }
    fputs("</tbody>\n</table>\n", f);
    sqlite3_finalize(st);
}

int html_report_write(struct pm_db *db, const char *out_dir, const char *db_label, char *page_path, size_t len,
                      struct pm_err *err)
{
    if (mkdir(out_dir, 0755) < 0 && errno != EEXIST)
        return pm_errf(err, "%s: %s", out_dir, strerror(errno));
    char charts_dir[4096];
    snprintf(charts_dir, sizeof charts_dir, "%s/charts", out_dir);
    snprintf(page_path, len, "%s/report.html", out_dir);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.new", page_path);
    FILE *f = pm_create_file(tmp);
    if (!f)
        return pm_errf(err, "%s: %s", tmp, strerror(errno));
    char now[64];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>pressmark report</title>\n"
               "<style>%s</style>\n</head>\n<body>\n<h1>pressmark report</h1>\n<p>generated %s from ", css, now);
    quote_html(f, db_label);
    fputs("</p>\n", f);
    char **workloads = NULL;
    size_t nw = 0;
    int rc = compare_workloads(db, NULL, 0, &workloads, &nw, err);
    bool gnuplot = plot_have_gnuplot();
    for (size_t w = 0; rc == 0 && w < nw; w++) {
        struct comparison c;
        struct compare_request rq = { .workload = workloads[w], .alpha = 0.05 };
        if ((rc = compare_build(db, &rq, &c, err)) < 0) {
            compare_free(&c);
            break;
        }
        fputs("<h2>", f);
        quote_html(f, workloads[w]);
        fputs("</h2>\n", f);
        compare_render_html(f, &c, false);
        struct comparison lc;
        rq.long_view = true;
        if (compare_build(db, &rq, &lc, err) == 0) {
            fputs("<details><summary>every statistic (n, mean, stddev, CV%, min, median, max, change, p, 95% CI)</summary>\n", f);
            compare_render_html(f, &lc, true);
            fputs("</details>\n", f);
        }
        compare_free(&lc);
        if (gnuplot) {
            char written[PLOT_CHARTS][4096];
            struct plot_request prq = { .out_dir = charts_dir, .svg = true };
            if (plot_comparison(db, &c, &prq, written, err) == 0)
                for (int i = 0; i < PLOT_CHARTS; i++)
                    inline_svg(f, written[i]);
            else
                fprintf(f, "<p>charts could not be drawn: %s</p>\n", err->msg);
        } else {
            fputs("<p>(no charts: gnuplot is not installed)</p>\n", f);
        }
        compare_free(&c);
    }
    for (size_t w = 0; w < nw; w++)
        free(workloads[w]);
    free(workloads);
    if (rc == 0)
        run_rows(f, db);
    fputs("</body>\n</html>\n", f);
    if (fclose(f) != 0 && rc == 0)
        rc = pm_errf(err, "%s: %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, page_path) < 0)
        rc = pm_errf(err, "%s: %s", page_path, strerror(errno));
    if (rc < 0)
        unlink(tmp);
    return rc;
}
