#ifndef PM_ISOLATION_FMT_H
#define PM_ISOLATION_FMT_H
/* The isolation figures (isolation.h) in the formats compare and the
 * report write: a table per workload with its footnote (text, markdown,
 * html), an object in compare's JSON, and CSV rows of their own. */
#include <stdio.h>
#include "lib/json.h"
#include "reports/compare_fmt.h"
#include "reports/isolation.h"

/* Nothing when iso has no rows. */
void isolation_render(FILE *f, const struct isolation *iso, enum markup mk);
/* The "isolation" member of an enclosing JSON object (always written). */
void isolation_json(struct jw *j, const struct isolation *iso);
/* The header, then a row per cell and figure. */
void isolation_csv(FILE *f, const struct isolation *iso);

#endif
