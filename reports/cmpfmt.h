#ifndef PM_CMPFMT_H
#define PM_CMPFMT_H
/* What a format of compare is made of (compare_fmt.h says what a format
 * is; cmpfmt_skeleton.c is one to copy): the cells and tables of
 * cmpfmt.c, and the readable renderer of compare_readable.c that the
 * text, markdown and html formats are. A format includes this header
 * only. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "reports/compare_fmt.h"
#include "reports/table.h"

/* A cell's text (cmpfmt.c): a number as the reports' tables write it
 * (grouped, never in e-notation; KB whole and with its unit), a cell's
 * "mean ±sd" ("-" without runs), and the change of label l's metric m
 * against the baseline with its test ("+4.2% p=0.003 *", "base",
 * "constant", "n too small"). */
void cmp_fmt_value(char *buf, size_t len, double v, const char *unit);
void cmp_fmt_mean_sd(char *buf, size_t len, const struct cmp_cell *cell, const char *unit);
void cmp_fmt_change(char *buf, size_t len, const struct comparison *c, size_t l, size_t m);
/* The reports' table (a row per label: each metric's mean ±sd, the
 * headline's change with with_change, n, fail:runs), and mmtests' long
 * one (per metric, a row per statistic, a column per label). The caller
 * frees t (table_free). */
void cmp_build_report_table(struct table *t, const struct comparison *c, bool with_change);
void cmp_build_long_table(struct table *t, const struct comparison *c);
/* Text from data (a label, a setting) for a terminal: control characters
 * as \xNN, so none starts a line that reads as pressmark's. */
void cmp_put_text(FILE *f, const char *s);

/* The readable renderer (compare_readable.c): one comparison in a markup,
 * and the three operations of the formats made of it. */
void cmp_render_readable(FILE *f, const struct comparison *c, enum markup mk, bool long_view);
void cmp_readable_begin(struct cmp_writer *w);
void cmp_readable_comparison(struct cmp_writer *w, const struct comparison *c, bool long_view);
void cmp_readable_end(struct cmp_writer *w, const struct cmp_verdict *v);

#endif
