#ifndef PM_HTML_REPORT_H
#define PM_HTML_REPORT_H
/* One self-contained HTML page: per workload the comparison tables, the
 * ratio sentences, the environment differences and the charts inlined as
 * SVG, then every run's details. Everything from the database is
 * HTML-escaped; the page loads nothing from anywhere. */
#include "store/db.h"

int html_report_write(struct pm_db *db, const char *out_dir, const char *db_label, char *page_path, size_t len,
                      struct pm_err *err);

#endif
