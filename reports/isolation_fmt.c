#include "reports/isolation_fmt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/quote.h"
#include "lib/units.h"
#include "reports/table.h"

/* A share with its interval: "80.0 % [75.1, 84.9]"; one run a side has
 * its ratio but no interval; an end the test does not bound is "-". */
static void fmt_share(char *buf, size_t len, const struct ratio_ci *ci)
{
    if (isnan(ci->ratio))
        snprintf(buf, len, "-");
    else if (!ci->valid)
        snprintf(buf, len, "%.1f %% (no interval: < 2 runs a side)", 100 * ci->ratio);
    else if (ci->shape == RATIO_CI_ALL)
        snprintf(buf, len, "%.1f %% [unbounded]", 100 * ci->ratio);
    else if (ci->shape == RATIO_CI_OUTSIDE)
        snprintf(buf, len, "%.1f %% [all but %.1f to %.1f]", 100 * ci->ratio, 100 * ci->low, 100 * ci->high);
    else
        snprintf(buf, len, "%.1f %% [%.1f, %.1f]", 100 * ci->ratio, 100 * ci->low, 100 * ci->high);
}

static void fmt_mean(char *buf, size_t len, double v, const char *unit)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        pm_fmt_quantity(buf, len, v, unit);
}

/* Rows from..to (exclusive) are one comparison's: they share its figures. */
static size_t block_end(const struct isolation *iso, size_t from)
{
    size_t to = from + 1;
    while (to < iso->n && strcmp(iso->rows[to].workload, iso->rows[from].workload) == 0 &&
           strcmp(iso->rows[to].group, iso->rows[from].group) == 0)
        to++;
    return to;
}

/* The block's share columns: its first paired row's figures. */
static const struct iso_row *paired_in(const struct isolation *iso, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (iso->rows[i].paired)
            return &iso->rows[i];
    return NULL;
}

static void headers_of(const struct iso_row *p, const char *hog, char (*titles)[64], const char **headers, bool *right,
                       size_t *nc)
{
    size_t k = 0;
    headers[k] = "cell"; right[k++] = false;
    headers[k] = "sibling"; right[k++] = false;
    headers[k] = "without the hog"; right[k++] = false;
    for (size_t s = 0; p && s < p->nshares; s++) {
        snprintf(titles[s], 64, "%s kept", p->shares[s].title);
        headers[k] = titles[s]; right[k++] = true;
    }
    headers[k] = "n hog/alone"; right[k++] = true;
    headers[k] = "hog passes/s"; right[k++] = true;
    headers[k] = hog; right[k++] = true;
    headers[k] = "hog vs unprotected"; right[k++] = true;
    *nc = k;
}

static void row_cells(const struct iso_row *r, size_t nshares, char (*cells)[128], const char **row)
{
    size_t k = 0;
    snprintf(cells[k], 128, "%s", r->cell_shown); k++;
    snprintf(cells[k], 128, "%s", r->spec); k++;
    snprintf(cells[k], 128, "%s", r->paired ? r->base_shown : "(none: see below)"); k++;
    for (size_t s = 0; s < nshares; s++, k++) {
        if (s < r->nshares && r->shares[s].oriented)
            fmt_share(cells[k], 128, &r->shares[s].ci);
        else
            snprintf(cells[k], 128, "-");
    }
    if (r->paired && r->nshares)
        snprintf(cells[k], 128, "%zu/%zu", r->shares[0].n_with, r->shares[0].n_without);
    else
        snprintf(cells[k], 128, "-");
    k++;
    fmt_mean(cells[k], 128, r->hog_passes_per_s, ""); k++;
    fmt_mean(cells[k], 128, r->hog_headline, r->hog_unit); k++;
    if (r->has_unprotected)
        fmt_share(cells[k], 128, &r->hog_kept);
    else
        snprintf(cells[k], 128, "%s", r->protected_cell ? "(no unprotected cell)" : "-");
    k++;
    for (size_t i = 0; i < k; i++)
        row[i] = cells[i];
}

/* A line of data under a table: quoted for its markup. */
static void put_line(FILE *f, enum markup mk, const char *cls, const char *line)
{
    if (mk == MARKUP_HTML) {
        fprintf(f, "<p class=\"%s\">", cls);
        quote_html(f, line);
        fputs("</p>\n", f);
        return;
    }
    if (mk == MARKUP_MARKDOWN) {
        quote_markdown(f, line);
    } else {
        size_t len = 4 * strlen(line) + 8;
        char *q = malloc(len);
        if (q)
            quote_terminal(line, q, len);
        fputs(q ? q : "(out of memory)", f);
        free(q);
    }
    fputs("\n", f);
}

static void print_html_table(FILE *f, const struct table *t)
{
    fputs("<table class=\"cmp iso\">\n<thead><tr>", f);
    for (size_t c = 0; c < t->ncols; c++) {
        fputs("<th>", f);
        quote_html(f, t->headers[c]);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs("<tr>", f);
        for (size_t c = 0; c < t->ncols; c++) {
            fputs(t->right[c] ? "<td class=\"num\">" : "<td>", f);
            quote_html(f, t->cells[r * t->ncols + c]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

static void print_table(FILE *f, enum markup mk, const char *title, const struct table *t)
{
    if (mk == MARKUP_HTML) {
        fputs("<h3>", f);
        quote_html(f, title);
        fputs("</h3>\n<div class=\"scroll\">", f);
        print_html_table(f, t);
        fputs("</div>\n", f);
    } else if (mk == MARKUP_MARKDOWN) {
        fputs("### ", f);
        quote_markdown(f, title);
        fputs("\n\n", f);
        table_print_markdown(t, f);
        fputc('\n', f);
    } else {
        put_line(f, mk, "", title);
        fputc('\n', f);
        table_print(t, f);
        fputc('\n', f);
    }
}

/* One comparison's rows as a table, then why any cell has no pair. */
static void render_block(FILE *f, const struct isolation *iso, size_t from, size_t to, enum markup mk)
{
    const struct iso_row *p = paired_in(iso, from, to);
    size_t nshares = p ? p->nshares : 0;
    char titles[ISO_MAX_SHARES][64];
    const char *headers[TABLE_MAX_COLS];
    bool right[TABLE_MAX_COLS];
    size_t nc;
    /* The hog's headline is named when every hog of the table has the same one. */
    char hog[64] = "";
    for (size_t i = from; i < to; i++) {
        const char *t = iso->rows[i].hog_title;
        if (t[0] && (hog[0] ? strcmp(hog + 4, t) != 0 : (snprintf(hog, sizeof hog, "hog %s", t), false)))
            snprintf(hog, sizeof hog, "hog headline");
    }
    headers_of(p, hog[0] ? hog : "hog headline", titles, headers, right, &nc);
    struct table t;
    table_init(&t, nc, headers, right);
    for (size_t i = from; i < to; i++) {
        char cells[TABLE_MAX_COLS][128];
        const char *row[TABLE_MAX_COLS];
        row_cells(&iso->rows[i], nshares, cells, row);
        table_add_row(&t, row);
    }
    const struct iso_row *r0 = &iso->rows[from];
    char title[512];
    snprintf(title, sizeof title, "Isolation: what %s%s%s%s keeps beside a sibling hog, as a share of the same cell "
             "without it", r0->workload, r0->group[0] ? " (" : "", r0->group, r0->group[0] ? ")" : "");
    print_table(f, mk, title, &t);
    table_free(&t);
    for (size_t i = from; i < to; i++) {
        const struct iso_row *r = &iso->rows[i];
        char line[1024];
        if (!r->paired) {
            snprintf(line, sizeof line, "%s: not paired: %s", r->cell, r->why);
            put_line(f, mk, "unjudged", line);
        }
        if (r->has_unprotected) {
            snprintf(line, sizeof line, "%s: hog vs unprotected against %s", r->cell_shown, r->unprotected);
            put_line(f, mk, "note", line);
        }
    }
    if (mk != MARKUP_HTML)
        fputc('\n', f);
}

void isolation_render(FILE *f, const struct isolation *iso, enum markup mk)
{
    if (!iso || !iso->n)
        return;
    for (size_t from = 0; from < iso->n;) {
        size_t to = block_end(iso, from);
        render_block(f, iso, from, to, mk);
        from = to;
    }
    char note[1024];
    snprintf(note, sizeof note,
             "kept: the cell's mean beside the hog as a share of the same cell's mean without it, oriented so that "
             "100 %% kept everything (higher-is-better figures with/without, lower-is-better ones without/with); "
             "[low, high]: its 95 %% interval, Welch's test inverted (unbounded, or all but an interval, where the "
             "mean without the hog cannot be told from 0); n: ok runs beside the hog / "
             "without it; hog: the sibling's passes per second and its own headline, the mean over the passes it "
             "finished during the measured runs; hog vs unprotected: the hog's passes/s as a share of the same cell "
             "without memory protection (mem-low, mem-min), low when the protection starves the hog");
    put_line(f, mk, "note", note);
}

static void json_ci(struct jw *j, const char *key, const struct ratio_ci *ci)
{
    /* low and high bound the share's set as its shape says: an interval,
     * or for "outside" the one interval it leaves out */
    char shape_key[64];
    snprintf(shape_key, sizeof shape_key, "%s_shape", key);
    bool set = ci->valid && ci->shape != RATIO_CI_ALL;
    jw_number(j, key, ci->ratio);
    jw_string(j, shape_key, ci->valid ? ratio_ci_shape_name(ci->shape) : NULL);
    jw_number(j, "low", set ? ci->low : NAN);
    jw_number(j, "high", set ? ci->high : NAN);
}

static void json_row(struct jw *j, const struct iso_row *r)
{
    jw_object_begin(j, NULL);
    jw_string(j, "workload", r->workload);
    if (r->group[0])
        jw_string(j, "group", r->group);
    jw_string(j, "cell", r->cell);
    jw_string(j, "sibling", r->spec);
    jw_string(j, "without_hog", r->paired ? r->base : NULL);
    if (!r->paired)
        jw_string(j, "not_paired", r->why);
    jw_array_begin(j, "shares");
    for (size_t s = 0; s < r->nshares; s++) {
        const struct iso_share *sh = &r->shares[s];
        jw_object_begin(j, NULL);
        jw_string(j, "metric", sh->metric);
        jw_string(j, "unit", sh->unit);
        jw_string(j, "direction", sh->direction);
        jw_int(j, "n_with", (int64_t)sh->n_with);
        jw_int(j, "n_without", (int64_t)sh->n_without);
        jw_number(j, "mean_with", sh->mean_with);
        jw_number(j, "mean_without", sh->mean_without);
        json_ci(j, "share", &sh->ci);
        jw_object_end(j);
    }
    jw_array_end(j);
    jw_object_begin(j, "hog");
    jw_int(j, "n", (int64_t)r->hog_n);
    jw_number(j, "passes_per_s", r->hog_passes_per_s);
    jw_string(j, "metric", r->hog_metric[0] ? r->hog_metric : NULL);
    jw_number(j, "headline", r->hog_headline);
    jw_string(j, "unit", r->hog_unit);
    jw_bool(j, "protected", r->protected_cell);
    jw_string(j, "unprotected_cell", r->has_unprotected ? r->unprotected : NULL);
    json_ci(j, "share_of_unprotected", &r->hog_kept);
    jw_object_end(j);
    jw_object_end(j);
}

void isolation_json(struct jw *j, const struct isolation *iso)
{
    jw_object_begin(j, "isolation");
    jw_string(j, "interval", "welch-inverted");
    jw_number(j, "level", 0.95);
    jw_array_begin(j, "cells");
    for (size_t i = 0; iso && i < iso->n; i++)
        json_row(j, &iso->rows[i]);
    jw_array_end(j);
    jw_object_end(j);
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputs(",", f);
}

static void csv_ci(FILE *f, const struct ratio_ci *ci)
{
    csv_num(f, ci->ratio);
    bool interval = ci->valid && ci->shape == RATIO_CI_INTERVAL;
    csv_num(f, interval ? ci->low : NAN);
    csv_num(f, interval ? ci->high : NAN);
}

/* One line: a cell and one of its figures (sh NULL: a cell not paired). */
static void csv_line(FILE *f, const struct iso_row *r, const struct iso_share *sh)
{
    const char *text[] = { r->workload, r->group, r->cell, r->spec, r->paired ? r->base : "", r->paired ? "" : r->why,
                           sh ? sh->metric : "", sh ? sh->unit : "", sh ? sh->direction : "" };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        fputs(i ? "," : "", f);
        quote_csv(f, text[i]);
    }
    if (sh) {
        fprintf(f, ",%zu,%zu", sh->n_with, sh->n_without);
        csv_num(f, sh->mean_with);
        csv_num(f, sh->mean_without);
        csv_ci(f, &sh->ci);
    } else {
        fputs(",,,,,,,", f);
    }
    fprintf(f, ",%zu", r->hog_n);
    csv_num(f, r->hog_passes_per_s);
    fputc(',', f);
    quote_csv(f, r->hog_metric);
    csv_num(f, r->hog_headline);
    fputc(',', f);
    quote_csv(f, r->hog_unit);
    fprintf(f, ",%s,", r->protected_cell ? "true" : "false");
    quote_csv(f, r->has_unprotected ? r->unprotected : "");
    csv_ci(f, &r->hog_kept);
    fputc('\n', f);
}

void isolation_csv(FILE *f, const struct isolation *iso)
{
    fputs("workload,group,cell,sibling,without_hog,not_paired,metric,unit,direction,n_with,n_without,mean_with,"
          "mean_without,share,share_low,share_high,hog_n,hog_passes_per_s,hog_metric,hog_headline,hog_unit,"
          "protected,unprotected_cell,hog_share,hog_share_low,hog_share_high\n", f);
    for (size_t i = 0; iso && i < iso->n; i++) {
        const struct iso_row *r = &iso->rows[i];
        if (!r->nshares)
            csv_line(f, r, NULL);
        for (size_t s = 0; s < r->nshares; s++)
            csv_line(f, r, &r->shares[s]);
    }
}
