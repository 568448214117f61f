#include "reports/history_chart.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "lib/quote.h"
#include "reports/chart_files.h"

/* The data: block 0 every run (x spread a little about its night's
 * position, so a night's runs do not hide each other), block 1 the
 * nights' means. Nothing from the database but numbers goes in. */
static void write_data(FILE *f, const struct history *h)
{
    fputs("# block 0: x value run_id (each run, about its night's x)\n", f);
    for (size_t k = 0; k < h->nnights; k++) {
        const struct hist_night *n = &h->nights[k];
        double step = n->n > 1 ? fmin(0.5 / (double)n->n, 0.08) : 0;
        for (size_t i = 0; i < n->n; i++)
            fprintf(f, "%.4f %.17g %lld\n", (double)(k + 1) + ((double)i - (double)(n->n - 1) / 2) * step,
                    h->values[n->first + i], (long long)h->runs.v[h->value_run[n->first + i]].id);
    }
    if (!h->nvalues)
        fputs("1 NaN 0\n", f);
    fputs("\n\n# block 1: x mean n (each night with a value)\n", f);
    size_t written = 0;
    for (size_t k = 0; k < h->nnights; k++)
        if (h->nights[k].n) {
            fprintf(f, "%zu %.17g %zu\n", k + 1, h->nights[k].s.mean, h->nights[k].n);
            written++;
        }
    if (!written)
        fputs("1 NaN 0\n", f);
}

/* A tic's label: gnuplot reads '%' in one as a format (a kernel release
 * "6.12%d" would stop the chart), so each is doubled. */
static void quote_tic(FILE *f, const char *s)
{
    char buf[600];
    size_t n = 0;
    for (; *s && n + 2 < sizeof buf; s++) {
        if (*s == '%')
            buf[n++] = '%';
        buf[n++] = *s;
    }
    buf[n] = '\0';
    quote_gnuplot(f, buf);
}

/* The bottom axis: the nights' ids, at most about 24 of them shown. */
static void night_tics(FILE *f, const struct history *h)
{
    size_t step = h->nnights > 24 ? (h->nnights + 23) / 24 : 1;
    fputs("set xtics nomirror rotate by 45 right (", f);
    for (size_t k = 0; k < h->nnights; k += step) {
        fputs(k ? ", " : "", f);
        quote_tic(f, h->nights[k].id);
        fprintf(f, " %zu", k + 1);
    }
    fputs(")\n", f);
}

/* The top axis: the kernel release at the first night and at each night
 * it changed, a tic each. */
static void kernel_tics(FILE *f, const struct history *h)
{
    fprintf(f, "set x2range [0.5:%.1f]\nset x2tics nomirror rotate by 25 left (", (double)h->nnights + 0.5);
    quote_tic(f, h->nnights ? h->nights[0].kernels : "");
    fputs(" 1", f);
    for (size_t e = 0; e < h->nevents; e++) {
        if (h->events[e].kind != HIST_KERNEL)
            continue;
        fputs(", ", f);
        quote_tic(f, h->events[e].after);
        fprintf(f, " %zu", h->events[e].night + 1);
    }
    fputs(")\n", f);
}

/* A vertical line between night k - 1 and night k (0-based), with words on it. */
static void boundary(FILE *f, size_t k, const char *colour, int dash, const char *words, int tag)
{
    double x = (double)k + 0.5;
    fprintf(f, "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt %d lw 2 lc rgb '%s'\n", x, x, dash, colour);
    fprintf(f, "set label %d ", tag);
    quote_gnuplot(f, words);
    fprintf(f, " at %.1f, graph %.2f rotate by 90 right offset -0.8,0 tc rgb '%s'\n", x, dash == 1 ? 0.98 : 0.5,
            colour);
}

static void marks(FILE *f, const struct history *h)
{
    int tag = 2;                 /* (1 is the title) */
    for (size_t c = 0; c < h->nchanges; c++) {
        char words[64];
        if (isnan(h->changes[c].change_pct))
            snprintf(words, sizeof words, "change");
        else
            snprintf(words, sizeof words, "change %+.1f %%", h->changes[c].change_pct);
        boundary(f, h->change_night[c], "#c00000", 1, words, tag++);
    }
    for (size_t e = 0; e < h->nevents; e++)
        if (h->events[e].kind == HIST_SETTINGS)
            boundary(f, h->events[e].night, "#707070", 3, "new settings", tag++);
}

static void script(FILE *f, const struct history *h, const struct chart_files *cf, bool svg)
{
    char title[900], what[900], yl[200];
    snprintf(title, sizeof title, "%s (%s): %s per run and each night's mean", h->label, h->workload, h->title);
    snprintf(what, sizeof what, "history of %s", title);
    gp_header(f, what, cf->dat, cf->img, svg, 2);
    /* Labels, kernels and units are the database's: no markup of theirs is
     * taken as gnuplot's enhanced text. */
    fputs("set termoption noenhanced\nset xlabel 'night (its first run, UTC), oldest first'\nset ylabel ", f);
    if (h->unit[0] && strcmp(h->unit, h->title) != 0)
        snprintf(yl, sizeof yl, "%s (%s)", h->title, h->unit);
    else
        snprintf(yl, sizeof yl, "%s", h->title);
    quote_gnuplot(f, yl);
    /* The title stands at the canvas's top as a label: gnuplot puts a
     * title above the top axis's tics, off the canvas when a long
     * kernel release is one. */
    fputs("\nset label 1 ", f);
    quote_gnuplot(f, title);
    /* The first night's id (18 characters, a suite night's), rotated
     * under the first tic, reaches further left than the y axis's tics
     * that gnuplot's own left margin makes room for. */
    fprintf(f, " at screen 0.5, screen 0.97 center\nset xrange [0.5:%.1f]\nset bmargin 9\nset tmargin 7\n"
            "set lmargin 14\n", (double)h->nnights + 0.5);
    night_tics(f, h);
    kernel_tics(f, h);
    marks(f, h);
    fputs("plot ", f);
    quote_gnuplot(f, cf->dat);
    fputs(" index 0 using 1:2 with points pt 7 ps 0.7 lc rgb '#4a7ab8' title 'a run', ", f);
    quote_gnuplot(f, cf->dat);
    fputs(" index 1 using 1:2 with linespoints lw 2 pt 5 ps 0.9 lc rgb '#000000' title 'the night''s mean'\n", f);
}

int history_chart(const struct history *h, const char *dir, const char *base, bool svg, char written[4096],
                  struct pm_err *err)
{
    struct chart_files cf;
    FILE *f = chart_open(&cf, dir, base, svg, err);
    if (!f)
        return -1;
    write_data(f, h);
    f = chart_script(&cf, f, dir, err);
    if (!f)
        return -1;
    script(f, h, &cf, svg);
    return chart_draw(&cf, f, dir, written, err);
}
