#include "reports/table.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "lib/quote.h"

void table_init(struct table *t, size_t ncols, const char *const *headers, const bool *right)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols < TABLE_MAX_COLS ? ncols : TABLE_MAX_COLS;
    for (size_t i = 0; i < t->ncols; i++) {
        t->headers[i] = headers[i];
        t->right[i] = right ? right[i] : false;
    }
}

/* A cell as a table can show it: a line break or a tab in it (a label or
 * spec from a database) would start a row of its own or shift the columns,
 * so any control character is written out as \xNN. */
static char *cell_copy(const char *s)
{
    bool ctl = false;
    for (const char *p = s; *p && !ctl; p++)
        ctl = (unsigned char)*p < 0x20 || *p == 0x7f;
    if (!ctl)
        return strdup(s);
    size_t len = 4 * strlen(s) + 1;
    char *q = malloc(len);
    if (q)
        quote_terminal(s, q, len);
    return q;
}

int table_add_row(struct table *t, const char *const *cells)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **c = realloc(t->cells, cap * t->ncols * sizeof *c);
        if (!c)
            return -1;
        t->cells = c;
        t->cap = cap;
    }
    for (size_t i = 0; i < t->ncols; i++) {
        t->cells[t->nrows * t->ncols + i] = cell_copy(cells[i] ? cells[i] : "");
        if (!t->cells[t->nrows * t->ncols + i]) {
            for (size_t k = 0; k < i; k++)
                free(t->cells[t->nrows * t->ncols + k]);
            return -1;
        }
    }
    t->nrows++;
    return 0;
}

void table_print(const struct table *t, FILE *f)
{
    size_t w[TABLE_MAX_COLS];
    for (size_t c = 0; c < t->ncols; c++) {
        w[c] = strlen(t->headers[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t n = strlen(t->cells[r * t->ncols + c]);
            if (n > w[c])
                w[c] = n;
        }
    }
    for (size_t c = 0; c < t->ncols; c++)
        fprintf(f, "%s%-*s", c ? "  " : "", c + 1 < t->ncols ? (int)w[c] : 0, t->headers[c]);
    fputc('\n', f);
    for (size_t c = 0; c < t->ncols; c++) {
        fprintf(f, "%s", c ? "  " : "");
        for (size_t i = 0; i < w[c]; i++)
            fputc('-', f);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            if (t->right[c])
                fprintf(f, "%s%*s", c ? "  " : "", (int)w[c], cell);
            else
                fprintf(f, "%s%-*s", c ? "  " : "", c + 1 < t->ncols ? (int)w[c] : 0, cell);
        }
        fputc('\n', f);
    }
}

void table_print_markdown(const struct table *t, FILE *f)
{
    for (size_t c = 0; c < t->ncols; c++) {
        fputs("| ", f);
        quote_markdown(f, t->headers[c]);
        fputc(' ', f);
    }
    fputs("|\n", f);
    for (size_t c = 0; c < t->ncols; c++)
        fputs(t->right[c] ? "| ---: " : "| --- ", f);
    fputs("|\n", f);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            fputs("| ", f);
            quote_markdown(f, t->cells[r * t->ncols + c]);
            fputc(' ', f);
        }
        fputs("|\n", f);
    }
}

void table_free(struct table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
