#include "reports/plot.h"
#include "store/latency_hist.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "lib/fileio.h"
#include "lib/quote.h"
#include "reports/chart_files.h"
#include "store/timeseries.h"



bool plot_have_gnuplot(void)
{
    return pm_in_path("gnuplot");
}

static void dat_num(FILE *f, double v)
{
    if (isnan(v))
        fputs(" NaN", f);
    else
        fprintf(f, " %.6g", v);
}

struct line {
    char name[300];
    size_t label;                /* its label's index: the line's colour */
    struct timeseries ts;
};

const char *const plot_chart_titles[PLOT_CHARTS] = {
    "swap rate", "CPU utilisation", "free memory and free swap", "PSI memory stall and heartbeat lateness",
    "reclaim: pages scanned, stolen and refaulted", "headline per run",
    "reclaim and compaction stall latency (--trace-reclaim)",
    "the workload's own latency: distribution, and p99 against time",
};

/* Is every value of these columns zero or missing, in every line? */
static bool columns_zero(const struct line *lines, size_t n, const int *cols, int panels)
{
    for (size_t l = 0; l < n; l++)
        for (int p = 0; p < panels; p++)
            for (size_t i = 0; i < lines[l].ts.n; i++) {
                double v = lines[l].ts.v[cols[p]][i];
                if (!isnan(v) && v != 0)
                    return false;
            }
    return true;
}

/* A multi-panel chart of timeseries columns, one line per label or run. */
static int timeseries_chart(const char *dir, const char *base, const char *title, const struct line *lines, size_t n,
                            const int *cols, const char *const *ylabels, int panels, bool svg, char *written,
                            struct pm_err *err)
{
    struct chart_files cf;
    const char *dat = cf.dat;
    FILE *f = chart_open(&cf, dir, base, svg, err);
    if (!f)
        return -1;
    fprintf(f, "# t_s");
    for (int p = 0; p < panels; p++)
        fprintf(f, " \"%s\"", ts_col_names[cols[p]]);
    fputc('\n', f);
    for (size_t l = 0; l < n; l++) {
        fprintf(f, "# %s\n", lines[l].name);
        for (size_t i = 0; i < lines[l].ts.n; i++) {
            fprintf(f, "%.3f", lines[l].ts.t[i]);
            for (int p = 0; p < panels; p++)
                dat_num(f, lines[l].ts.v[cols[p]][i]);
            fputc('\n', f);
        }
        /* gnuplot needs a point at least; an empty series still gets a block. */
        if (lines[l].ts.n == 0) {
            fputs("0", f);
            for (int p = 0; p < panels; p++)
                fputs(" NaN", f);
            fputc('\n', f);
        }
        fputs("\n\n", f);
    }
    f = chart_script(&cf, f, dir, err);
    if (!f)
        return -1;
    gp_header(f, title, dat, cf.img, svg, panels);
    /* Runs without ticks (a database that kept only their metrics) give
     * gnuplot no point to scale an axis by, which it takes as an error. */
    size_t points = 0;
    for (size_t l = 0; l < n; l++)
        points += lines[l].ts.n;
    if (!points)
        fputs("set xrange [0:1]\nset yrange [0:1]\n", f);
    fprintf(f, "set multiplot layout %d,1 title ", panels);
    quote_gnuplot(f, title);
    fputs(" noenhanced\n", f);
    for (int p = 0; p < panels; p++) {
        fprintf(f, "set ylabel ");
        quote_gnuplot(f, ylabels[p]);
        fputs("\nplot ", f);
        for (size_t l = 0; l < n; l++) {
            fputs(l ? ", " : "", f);
            quote_gnuplot(f, dat);
            fprintf(f, " index %zu using 1:%d with lines lw 2 lc %zu title ", l, p + 2, lines[l].label + 1);
            quote_gnuplot(f, lines[l].name);
        }
        fputc('\n', f);
    }
    fputs("unset multiplot\n", f);
    return chart_draw(&cf, f, dir, written, err);
}

/* the 2004 objrmap report's point: runs drift. The headline of every run in the order it
 * ran, per label, and the label's mean with ±sd error bars at the right. */
static int headline_chart(const char *dir, const char *base, const struct comparison *c, bool svg, char *written,
                          struct pm_err *err)
{
    struct chart_files cf;
    const char *dat = cf.dat;
    FILE *f = chart_open(&cf, dir, base, svg, err);
    if (!f)
        return -1;
    size_t maxn = 0;
    for (size_t l = 0; l < c->nlabels; l++)
        if (cmp_cell_at(c, l, 0)->n > maxn)
            maxn = cmp_cell_at(c, l, 0)->n;
    fprintf(f, "# run_index \"%s (%s)\" | mean blocks: x mean sd\n", c->metrics[0].name, c->metrics[0].unit);
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct cmp_cell *cell = cmp_cell_at(c, l, 0);
        fprintf(f, "# %s: runs\n", c->labels[l].name);
        for (size_t i = 0; i < cell->n; i++)
            fprintf(f, "%zu %.6g\n", i + 1, cell->values[i]);
        if (cell->n == 0)
            fputs("1 NaN\n", f);
        fprintf(f, "\n\n# %s: mean and sd\n", c->labels[l].name);
        double x = (double)maxn + 1 + (double)l * 0.15;
        if (cell->n)
            fprintf(f, "%.3f %.6g %.6g\n\n\n", x, cell->s.mean, cell->s.n > 1 ? cell->s.sd : 0.0);
        else
            fprintf(f, "%.3f NaN NaN\n\n\n", x);
    }
    f = chart_script(&cf, f, dir, err);
    if (!f)
        return -1;
    char title[400], name[256];
    compare_title(c, name, sizeof name);
    snprintf(title, sizeof title, "%s: %s per run, and each label's mean ±sd (right)", name, c->metrics[0].title);
    gp_header(f, title, dat, cf.img, svg, 1);
    fputs("set xlabel 'run, in the order the label ran'\nset ylabel ", f);
    char yl[160];
    if (strcmp(c->metrics[0].title, c->metrics[0].unit) == 0)
        snprintf(yl, sizeof yl, "%s", c->metrics[0].title);
    else
        snprintf(yl, sizeof yl, "%s (%s)", c->metrics[0].title, c->metrics[0].unit);
    quote_gnuplot(f, yl);
    fprintf(f, "\nset title ");
    quote_gnuplot(f, title);
    fprintf(f, " noenhanced\nset xrange [0.5:%.2f]\nset xtics 1, 1, %zu\nset xtics add ('mean ±sd' %zu)\nplot ",
            (double)maxn + 1.5 + 0.15 * (double)c->nlabels, maxn ? maxn : 1, maxn + 1);
    for (size_t l = 0; l < c->nlabels; l++) {
        fputs(l ? ", " : "", f);
        quote_gnuplot(f, dat);
        fprintf(f, " index %zu using 1:2 with linespoints lw 2 pt 7 lc %zu title ", 2 * l, l + 1);
        quote_gnuplot(f, c->labels[l].name);
        fputs(", ", f);
        quote_gnuplot(f, dat);
        fprintf(f, " index %zu using 1:2:3 with yerrorbars lw 2 pt 5 lc %zu notitle", 2 * l + 1, l + 1);
    }
    fputc('\n', f);
    return chart_draw(&cf, f, dir, written, err);
}

/* One label's latency histogram called name, its runs' buckets added up,
 * as a data block of "latency_us share_at_most_pct" lines (a NaN point when
 * it has none); *has says whether it had any. */
static int cdf_block(struct pm_db *db, FILE *f, const struct cmp_label *lb, const char *name, bool *has,
                     struct pm_err *err)
{
    struct loghist h = { 0 };
    if (load_latency_hist(db, lb->run_ids, lb->ok, name, &h, err) < 0)
        return -1;
    uint64_t seen = 0;
    for (size_t i = 0; h.count && i < LOGHIST_BUCKETS; i++) {
        if (!h.b[i])
            continue;
        uint64_t lo, hi;
        loghist_bounds(i, &lo, &hi);
        seen += h.b[i];
        fprintf(f, "%.3f %.4f\n", (double)hi / 1e3, 100.0 * (double)seen / (double)h.count);
    }
    if (!h.count)
        fputs("1 NaN\n", f);
    *has = h.count > 0;
    loghist_free(&h);
    fputs("\n\n", f);
    return 0;
}

/* --trace-reclaim's stalls: per kind, the share of stalls (%) that took at
 * most x us, x on a log scale, one line per label from the buckets of all
 * its runs added up (their own histograms, never averaged percentiles). */
static int stall_cdf_chart(struct pm_db *db, const char *dir, const char *base, const struct comparison *c, bool svg,
                           char *written, bool *all_zero, struct pm_err *err)
{
    static const char *const kinds[] = { "direct", "memcg", "compaction" };
    enum { NK = sizeof kinds / sizeof kinds[0] };
    struct chart_files cf;
    const char *dat = cf.dat;
    FILE *f = chart_open(&cf, dir, base, svg, err);
    if (!f)
        return -1;
    fputs("# latency_us share_at_most_pct (one block per kind, then label)\n", f);
    bool any = false, any_k[NK] = { false };
    bool *has[NK];
    for (size_t k = 0; k < NK; k++)
        has[k] = NULL;
    for (size_t k = 0; k < NK; k++)
        if (!(has[k] = calloc(c->nlabels ? c->nlabels : 1, sizeof *has[k]))) {
            for (size_t j = 0; j < k; j++)
                free(has[j]);
            fclose(f);
            return pm_errf(err, "out of memory");
        }
    int rc = 0;
    for (size_t k = 0; k < NK && rc == 0; k++)
        for (size_t l = 0; l < c->nlabels && rc == 0; l++) {
            char name[64];
            snprintf(name, sizeof name, "stall.%s", kinds[k]);
            fprintf(f, "# %s: %s\n", kinds[k], c->labels[l].name);
            if ((rc = cdf_block(db, f, &c->labels[l], name, &has[k][l], err)) < 0)
                break;
            any |= has[k][l];
            any_k[k] |= has[k][l];
        }
    if (rc < 0) {
        fclose(f);
        goto out;
    }
    if (all_zero)
        *all_zero = !any;
    rc = -1;
    f = chart_script(&cf, f, dir, err);
    if (!f)
        goto out;
    char title[400], name[256];
    compare_title(c, name, sizeof name);
    snprintf(title, sizeof title, "%s: reclaim and compaction stall latency (--trace-reclaim), share of stalls at most x",
             name);
    gp_header(f, title, dat, cf.img, svg, NK);
    /* A second's stall is 1000000 us on the axis, not 1x10^6. */
    fprintf(f, "set xlabel 'stall latency (us)'\nset logscale x\nset format x '%%.10g'\nset yrange [0:100]\n"
               "set multiplot layout %d,1 title ",
            (int)NK);
    quote_gnuplot(f, title);
    fputs(" noenhanced\n", f);
    for (size_t k = 0; k < NK; k++) {
        char yl[96];
        snprintf(yl, sizeof yl, "%s stalls at most x (%%)", kinds[k]);
        fputs("set ylabel ", f);
        quote_gnuplot(f, yl);
        if (!any_k[k]) {
            /* Nothing to scale the axis by, nothing to draw: say so. */
            fprintf(f, "\nset xrange [1:1000000]\nset label 1 'no %s stalls traced' at graph 0.5,0.5 center\n"
                       "plot 1/0 notitle\nunset label 1\n", kinds[k]);
            continue;
        }
        fputs("\nset autoscale x\nplot ", f);
        bool first = true;
        for (size_t l = 0; l < c->nlabels; l++) {
            if (!has[k][l])
                continue;       /* a label without such stalls keeps its colour, draws no line */
            fputs(first ? "" : ", ", f);
            first = false;
            quote_gnuplot(f, dat);
            fprintf(f, " index %zu using 1:2 with steps lw 2 lc %zu title ", k * c->nlabels + l, l + 1);
            quote_gnuplot(f, c->labels[l].name);
        }
        fputc('\n', f);
    }
    fputs("unset multiplot\n", f);
    rc = chart_draw(&cf, f, dir, written, err);
out:
    for (size_t k = 0; k < NK; k++)
        free(has[k]);
    return rc;
}

/* The latency the workload measured itself (the chat's delivery times):
 * top, the share of samples at most x per label, from the buckets of all
 * its runs added up; below, its p99 over each of the workload's windows
 * against time, a line per label or run. */
static int latency_chart(struct pm_db *db, const char *dir, const char *base, const struct comparison *c,
                         const struct line *lines, size_t n, bool svg, char *written, bool *all_zero,
                         struct pm_err *err)
{
    struct chart_files cf;
    const char *dat = cf.dat;
    FILE *f = chart_open(&cf, dir, base, svg, err);
    if (!f)
        return -1;
    char hname[160];
    snprintf(hname, sizeof hname, "%s.latency", c->workload);
    fputs("# latency_us share_at_most_pct (a block per label), then t_s p99_us (a block per line)\n", f);
    bool any_cdf = false, any_p99 = false;
    bool *has = calloc(c->nlabels ? c->nlabels : 1, sizeof *has);
    if (!has) {
        fclose(f);
        return pm_errf(err, "out of memory");
    }
    int rc = 0;
    for (size_t l = 0; l < c->nlabels; l++) {
        fprintf(f, "# %s\n", c->labels[l].name);
        if ((rc = cdf_block(db, f, &c->labels[l], hname, &has[l], err)) < 0)
            break;
        any_cdf |= has[l];
    }
    for (size_t l = 0; rc == 0 && l < n; l++) {
        fprintf(f, "# %s\n", lines[l].name);
        for (size_t i = 0; i < lines[l].ts.n; i++) {
            fprintf(f, "%.3f", lines[l].ts.t[i]);
            dat_num(f, lines[l].ts.v[TS_WL_P99_US][i]);
            fputc('\n', f);
            any_p99 |= !isnan(lines[l].ts.v[TS_WL_P99_US][i]);
        }
        if (lines[l].ts.n == 0)
            fputs("0 NaN\n", f);
        fputs("\n\n", f);
    }
    if (rc < 0) {
        fclose(f);
        free(has);
        return -1;
    }
    if (all_zero)
        *all_zero = !any_cdf && !any_p99;
    f = chart_script(&cf, f, dir, err);
    if (!f) {
        free(has);
        return -1;
    }
    char title[400], name[256];
    compare_title(c, name, sizeof name);
    snprintf(title, sizeof title, "%s: the workload's own latency, share of samples at most x, and p99 against time",
             name);
    gp_header(f, title, dat, cf.img, svg, 2);
    fputs("set multiplot layout 2,1 title ", f);
    quote_gnuplot(f, title);
    fputs(" noenhanced\nset xlabel 'latency (us)'\nset ylabel 'samples at most x (%)'\nset yrange [0:100]\n", f);
    if (!any_cdf) {
        fputs("set xrange [1:1000000]\nset logscale x\nset format x '%.10g'\nset label 1 'no latency recorded' at graph "
              "0.5,0.5 center\n"
              "plot 1/0 notitle\nunset label 1\n", f);
    } else {
        /* %g would write a second's latency as 1e+06 us. */
        fputs("set logscale x\nset format x '%.10g'\nplot ", f);
        bool first = true;
        for (size_t l = 0; l < c->nlabels; l++) {
            if (!has[l])
                continue;
            fputs(first ? "" : ", ", f);
            first = false;
            quote_gnuplot(f, dat);
            fprintf(f, " index %zu using 1:2 with steps lw 2 lc %zu title ", l, l + 1);
            quote_gnuplot(f, c->labels[l].name);
        }
        fputc('\n', f);
    }
    fputs("unset logscale x\nset format x '%.10g'\nset autoscale\nset xlabel 'time since the run''s first tick (s)'\n"
          "set ylabel 'p99 latency over the workload''s last window (us)'\n", f);
    if (!any_p99) {
        fputs("set xrange [0:1]\nset yrange [0:1]\nset label 1 'no latency recorded while running' at graph 0.5,0.5 "
              "center\nplot 1/0 notitle\n", f);
    } else {
        fputs("plot ", f);
        for (size_t l = 0; l < n; l++) {
            fputs(l ? ", " : "", f);
            quote_gnuplot(f, dat);
            fprintf(f, " index %zu using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc %zu title ", c->nlabels + l,
                    lines[l].label + 1);
            quote_gnuplot(f, lines[l].name);
        }
        fputc('\n', f);
    }
    fputs("unset multiplot\n", f);
    free(has);
    return chart_draw(&cf, f, dir, written, err);
}

int plot_comparison(struct pm_db *db, const struct comparison *c, const struct plot_request *rq,
                    char written[PLOT_CHARTS][4096], struct pm_err *err)
{
    if (mkdir(rq->out_dir, 0755) < 0 && errno != EEXIST)
        return pm_errf(err, "%s: %s", rq->out_dir, strerror(errno));
    size_t nlines = 0;
    for (size_t l = 0; l < c->nlabels; l++)
        nlines += rq->per_run ? c->labels[l].ok : 1;
    struct line *lines = calloc(nlines ? nlines : 1, sizeof *lines);
    if (!lines)
        return pm_errf(err, "out of memory");
    int rc = 0;
    size_t k = 0;
    for (size_t l = 0; l < c->nlabels && rc == 0; l++) {
        const struct cmp_label *lb = &c->labels[l];
        struct timeseries *runs = calloc(lb->ok ? lb->ok : 1, sizeof *runs);
        if (!runs) {
            rc = pm_errf(err, "out of memory");
            break;
        }
        size_t loaded = 0;
        for (; loaded < lb->ok; loaded++)
            if ((rc = timeseries_load(db, lb->run_ids[loaded], &runs[loaded], err)) < 0)
                break;
        if (rc == 0 && rq->per_run) {
            for (size_t r = 0; r < lb->ok; r++) {
                snprintf(lines[k].name, sizeof lines[k].name, "%s #%lld", lb->name, (long long)lb->run_ids[r]);
                lines[k].label = l;
                lines[k++].ts = runs[r];
                memset(&runs[r], 0, sizeof runs[r]);
            }
        } else if (rc == 0) {
            snprintf(lines[k].name, sizeof lines[k].name, "%s (mean of %zu run%s)", lb->name, lb->ok, lb->ok == 1 ? "" : "s");
            lines[k].label = l;
            if (timeseries_mean(runs, lb->ok, &lines[k++].ts) < 0)
                rc = pm_errf(err, "out of memory");
        }
        for (size_t r = 0; r < loaded; r++)
            timeseries_free(&runs[r]);
        free(runs);
    }
    /* File names come from the workload's name: a slug, so a name from a
     * hostile database cannot leave --out ("../../x") or break the script. */
    char base[200], title[400], slug[96], name[256];
    compare_slug(c, slug, sizeof slug);
    compare_title(c, name, sizeof name);
    static const int swap_cols[] = { TS_SWAPIO, TS_SWAPIN, TS_SWAPOUT };
    static const char *const swap_y[] = { "swap-in + swap-out (KB/s)", "swap-in (KB/s)", "swap-out (KB/s)" };
    static const int cpu_cols[] = { TS_USER, TS_SYSTEM, TS_IOWAIT };
    static const char *const cpu_y[] = { "user (% of all CPUs)", "system (% of all CPUs)", "iowait (% of all CPUs)" };
    static const int mem_cols[] = { TS_MEMFREE, TS_MEMAVAIL, TS_SWAPFREE };
    static const char *const mem_y[] = { "MemFree (MiB)", "MemAvailable (MiB)", "SwapFree (MiB)" };
    static const int psi_cols[] = { TS_PSI_SOME, TS_PSI_FULL, TS_BEAT_MS };
    static const char *const psi_y[] = { "PSI memory some (% of time)", "PSI memory full (% of time)",
                                         "heartbeat lateness, worst per tick (ms)" };
    static const int reclaim_cols[] = { TS_SCAN, TS_STEAL, TS_REFAULT };
    static const char *const reclaim_y[] = { "pages scanned (/s, all reclaim)", "pages stolen (/s, all reclaim)",
                                             "refaults (/s, anon + file)" };
    struct { const char *name, *what; const int *cols; const char *const *y; } charts[] = {
        { "swap", "swap rate (chart a of the 2002 VolanoMark report)", swap_cols, swap_y },
        { "cpu", "CPU utilisation (chart b of the 2002 VolanoMark report)", cpu_cols, cpu_y },
        { "memory", "free memory and free swap", mem_cols, mem_y },
        { "pressure", "PSI memory stall and heartbeat lateness", psi_cols, psi_y },
        { "reclaim", "reclaim: pages scanned, stolen and refaulted", reclaim_cols, reclaim_y },
    };
    enum { NTS = sizeof charts / sizeof charts[0] };
    for (int ch = 0; ch < NTS && rc == 0; ch++) {
        snprintf(base, sizeof base, "%s-%s", slug, charts[ch].name);
        snprintf(title, sizeof title, "%s: %s, by %s", name, charts[ch].what, rq->per_run ? "run" : "label");
        if (rq->all_zero)
            rq->all_zero[ch] = columns_zero(lines, k, charts[ch].cols, 3);
        rc = timeseries_chart(rq->out_dir, base, title, lines, k, charts[ch].cols, charts[ch].y, 3, rq->svg,
                              written[ch], err);
    }
    if (rc == 0) {
        snprintf(base, sizeof base, "%s-headline", slug);
        rc = headline_chart(rq->out_dir, base, c, rq->svg, written[NTS], err);
        if (rq->all_zero) {
            rq->all_zero[NTS] = true;
            for (size_t l = 0; l < c->nlabels; l++)
                for (size_t i = 0; i < cmp_cell_at(c, l, 0)->n; i++)
                    if (cmp_cell_at(c, l, 0)->values[i] != 0)
                        rq->all_zero[NTS] = false;
        }
    }
    if (rc == 0) {
        snprintf(base, sizeof base, "%s-stalls", slug);
        rc = stall_cdf_chart(db, rq->out_dir, base, c, rq->svg, written[NTS + 1],
                             rq->all_zero ? &rq->all_zero[NTS + 1] : NULL, err);
    }
    if (rc == 0) {
        snprintf(base, sizeof base, "%s-latency", slug);
        rc = latency_chart(db, rq->out_dir, base, c, lines, k, rq->svg, written[NTS + 2],
                           rq->all_zero ? &rq->all_zero[NTS + 2] : NULL, err);
    }
    for (size_t i = 0; i < k; i++)
        timeseries_free(&lines[i].ts);
    free(lines);
    return rc;
}
