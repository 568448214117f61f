#ifndef PM_HISTORY_FMT_H
#define PM_HISTORY_FMT_H
/* A history (history.h) as people and programs read it: a table with a
 * row per night and the changes listed under it, a JSON document
 * (docs/json/history.schema.json), CSV with a row per night. The same
 * numbers in each; every string from the database quoted for where it
 * goes. */
#include <stdio.h>
#include "lib/json.h"
#include "reports/history.h"

/* text, json, csv: for --format, in this order. */
extern const char *const history_format_names[];
enum { HISTORY_TEXT, HISTORY_JSON, HISTORY_CSV };

void history_print_text(FILE *f, const struct history *h);
/* The whole document, format_version first; -1 when it could not be written. */
int history_write_json(FILE *f, const struct history *h);
void history_print_csv(FILE *f, const struct history *h);

/* The sentences the table's notes and compare --history share, written
 * for the terminal (control characters as \xNN): "change at night
 * 2026-11-20T023000Z: mean 812.4 -> 751.9 msg/s (-7.4 %), p = 0.003",
 * "kernel 6.1.0-57 -> 6.12.117 at night ...", "settings changed at night
 * ...: ...". */
void history_change_sentence(char *buf, size_t len, const struct history *h, size_t c);
void history_event_sentence(char *buf, size_t len, const struct history *h, size_t e);
/* Change c's sentence with the kernels either side of it, quoted for
 * HTML (the report's list and compare --history's JUnit failures). */
void history_change_html(FILE *f, const struct history *h, size_t c);
/* One change as a JSON object (inside an array): history's and compare's. */
void history_change_json(struct jw *j, const struct history *h, size_t c);
/* What marks night k in a table: the change its level starts with
 * ("CHANGE -7.4 % (p=0.003)"), a new kernel, new settings or a new
 * pressmark, mixed settings. Not quoted: the caller quotes it. */
void history_marks(char *buf, size_t len, const struct history *h, size_t k);
/* What the change points are and how they were looked for, one line. */
void history_method(char *buf, size_t len, const struct history *h);

#endif
