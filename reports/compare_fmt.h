#ifndef PM_COMPARE_FMT_H
#define PM_COMPARE_FMT_H
/* A comparison rendered as text (the seeds' table or mmtests' long layout),
 * markdown, csv, json or an html fragment: the same numbers in each. */
#include <stdbool.h>
#include <stdio.h>
#include "reports/compare.h"
#include "lib/json.h"

enum cmp_format { FMT_TEXT, FMT_MARKDOWN, FMT_CSV, FMT_JSON, FMT_HTML };

int cmp_format_parse(const char *s, enum cmp_format *out);
void compare_render(FILE *f, const struct comparison *c, enum cmp_format fmt, bool long_view);
/* For json: one comparison as an object inside an enclosing writer. */
void compare_json(struct json *j, const struct comparison *c);
/* For csv: the header line, printed once. */
void compare_csv_header(FILE *f);
/* HTML-escape s into f. */
void html_escape(FILE *f, const char *s);

#endif
