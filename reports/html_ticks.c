#include "reports/html_ticks.h"
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include "lib/quote.h"
#include "lib/units.h"
#include "store/timeseries.h"

/* The charts' series that have a value somewhere in the run; swap-in+out
 * is left out, its two parts are beside it. */
static size_t shown_columns(const struct timeseries *ts, int *cols)
{
    size_t k = 0;
    for (int c = 0; c < TS_NCOLS; c++) {
        if (c == TS_SWAPIO)
            continue;
        bool any = false;
        for (size_t i = 0; i < ts->n && !any; i++)
            any = !isnan(ts->v[c][i]);
        if (any)
            cols[k++] = c;
    }
    return k;
}

static void tick_row(FILE *f, const struct timeseries *ts, size_t i, const int *cols, size_t ncols)
{
    char v[64];
    pm_fmt_fixed(v, sizeof v, ts->t[i], 2);
    /* Plain cells: the table's class aligns them (200 rows of 15 add up). */
    fprintf(f, "<tr><td>%s</td>", v);
    for (size_t c = 0; c < ncols; c++) {
        pm_fmt_number(v, sizeof v, ts->v[cols[c]][i]);
        fprintf(f, "<td>%s</td>", v);
    }
    fputs("</tr>\n", f);
}

void html_tick_table(FILE *f, struct pm_db *db, int64_t run_id)
{
    struct timeseries ts;
    struct pm_err err;
    if (timeseries_load(db, run_id, &ts, &err) < 0) {
        fputs("<p>its ticks could not be read: ", f);
        quote_html(f, err.msg);
        fputs("</p>\n", f);
        return;
    }
    int cols[TS_NCOLS];
    size_t ncols = shown_columns(&ts, cols);
    if (ts.n == 0 || ncols == 0) {
        fputs("<p>no ticks to show: none were stored, or one (a rate needs two)</p>\n", f);
        timeseries_free(&ts);
        return;
    }
    size_t rows = ts.n < HTML_TICKS_MAX ? ts.n : HTML_TICKS_MAX;
    if (rows < ts.n)
        fprintf(f, "<p class=\"legend\">%zu of its %zu ticks, evenly spaced (the first and the last among them); "
                   "each a rate or level over the interval before it</p>\n", rows, ts.n);
    else
        fprintf(f, "<p class=\"legend\">all %zu ticks; each a rate or level over the interval before it</p>\n", ts.n);
    fputs("<div class=\"scroll\"><table class=\"ticks\">\n<thead><tr><th>time (s)</th>", f);
    for (size_t c = 0; c < ncols; c++) {
        fputs("<th>", f);
        quote_html(f, ts_col_names[cols[c]]);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t r = 0; r < rows; r++) {
        /* Row r of rows stands for tick r (n - 1) / (rows - 1), rounded. */
        size_t i = rows == 1 ? 0 : (size_t)llround((double)r * (double)(ts.n - 1) / (double)(rows - 1));
        tick_row(f, &ts, i, cols, ncols);
    }
    fputs("</tbody>\n</table></div>\n", f);
    timeseries_free(&ts);
}
