#ifndef PM_TABLE_H
#define PM_TABLE_H
/* A text table laid out like the reports': a header, a dashed rule, columns
 * padded to their widest cell, numbers right-aligned. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TABLE_MAX_COLS 24

struct table {
    size_t ncols, nrows, cap;
    const char *headers[TABLE_MAX_COLS];
    bool right[TABLE_MAX_COLS];
    char **cells;                /* nrows * ncols, owned */
};

void table_init(struct table *t, size_t ncols, const char *const *headers, const bool *right);
/* Add a row of ncols printf-formatted cells: pass already formatted strings. */
int table_add_row(struct table *t, const char *const *cells);
void table_print(const struct table *t, FILE *f);
/* The same as a markdown table, every cell and header quoted as data. */
void table_print_markdown(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif
