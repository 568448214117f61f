#ifndef PM_HTML_REPORT_H
#define PM_HTML_REPORT_H
/* One self-contained HTML page about an experiment: a summary first (the
 * question, each configuration's headline with its 95% confidence
 * interval, the ratio sentences), a table of contents, then per workload
 * the tables and the charts (a chart whose every series is zero is one
 * line saying so), then every run's details. Everything from the
 * database is HTML-escaped; the page loads nothing from anywhere and
 * reads on a phone. */
#include <stddef.h>
#include "store/db.h"

/* One comparison of the experiment: a workload, or one group of a
 * suite's cells of it (see suite_view_groups); its labels (the baseline
 * first) and,
 * for a suite's cells, each one's axis values (JSON) and how its run
 * count ended ("converged after 4 runs"). */
struct report_part {
    const char *workload;
    const char *const *labels;
    const char *const *axes;     /* NULL when not a suite */
    const char *const *notes;    /* NULL, or one per label ("" for none) */
    size_t n;
    const char *group;           /* NULL, or the suite's part(s) of these cells when their workload has more groups */
    const char *unjudged;        /* NULL, or why none is a baseline (compare_request.unjudged) */
};

/* What the page is about: a suite (its own runs only), or NULL for every
 * label of every workload in the database. */
struct report_scope {
    const char *title;           /* "suite 3 (swap-kinds)" */
    const char *question;        /* "" when the suite asks none */
    const char *suite_uuid;
    const struct report_part *parts;
    size_t nparts;
    /* The confidence of each cell's CI in the summary: 0 is 0.95; a suite
     * with target-ci gives its rule's (suite_ci_confidence), the interval
     * its cells stopped by. */
    double ci_conf;
};

/* with_emulated: runs under QEMU's TCG emulation are compared, with a
 * caveat; without, a page with such runs is refused (err says why).
 * Returns 0; -1 when no page was written (err says why); 1 when the page
 * was written but its charts could not be drawn (err says why). */
int html_report_write(struct pm_db *db, const struct report_scope *scope, bool with_emulated, const char *out_dir,
                      const char *db_label,
                      char *page_path, size_t len, struct pm_err *err);

#endif
