#ifndef PM_PLOT_H
#define PM_PLOT_H
/* The charts of a comparison, drawn by gnuplot: swap rate (the 2002 VolanoMark report's
 * chart a), CPU utilisation (chart b), free memory and swap (the 2002 VolanoMark report's
 * HighFree/LowFree/SwapFree timeline), PSI and heartbeat lateness, reclaim
 * (pages scanned, stolen, refaulted per second), the headline per run
 * (the 2004 objrmap report's drift), the stall latency CDFs of traced runs, and the
 * latency the workload measured itself (its distribution, and its p99
 * against time). Each chart is written with its
 * gnuplot script (.gp) and data (.dat) beside it, to redraw or restyle. */
#include <stdbool.h>
#include "store/db.h"
#include "reports/compare.h"

#define PLOT_CHARTS 8

struct plot_request {
    const char *out_dir;
    bool svg;
    bool per_run;                /* a line per run instead of per label */
    bool *all_zero;              /* when set: [k] true for a chart whose every value is zero or missing */
};

/* What each chart shows, in plot_comparison's order. */
extern const char *const plot_chart_titles[PLOT_CHARTS];

/* Is gnuplot on PATH? */
bool plot_have_gnuplot(void);

/* Write the charts for c. written[k] receives each image's path. Each
 * label has the same colour (gnuplot's line type label + 1) in every
 * chart. */
int plot_comparison(struct pm_db *db, const struct comparison *c, const struct plot_request *rq,
                    char written[PLOT_CHARTS][4096], struct pm_err *err);

#endif
