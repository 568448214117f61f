#ifndef PM_HTML_HISTORY_H
#define PM_HTML_HISTORY_H
/* The HTML report's history section: for each label of the page whose
 * configuration the database holds from more than one suite run (the
 * nightly's history database), its headline night by night (the table
 * history prints), its chart and its change points, kernel and settings
 * changes. Everything from the database HTML-escaped. */
#include <stdbool.h>
#include <stdio.h>
#include "reports/compare.h"
#include "reports/history.h"

struct html_histories {
    struct history *v;
    size_t n;
    char (*skipped)[512];        /* a line per label whose history could not be read */
    size_t nskipped;
};

/* The histories worth a section: the page's labels (each comparison's,
 * of its workload) with two or more suite runs' nights. */
int html_histories_build(struct pm_db *db, const struct comparison *cs, size_t n, bool allow_emulated,
                         struct html_histories *out, struct pm_err *err);
void html_histories_free(struct html_histories *hs);
/* The section, its charts drawn as SVG into charts_dir (without gnuplot,
 * a line says so). -1 (chart_err saying why) when a chart could not be
 * drawn: the page says so where it would stand. */
int html_history_section(FILE *f, const struct html_histories *hs, const char *charts_dir, bool gnuplot,
                         struct pm_err *chart_err);

#endif
