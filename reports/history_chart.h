#ifndef PM_HISTORY_CHART_H
#define PM_HISTORY_CHART_H
/* A history's chart, drawn by gnuplot: each run a point over its night,
 * a line through the nights' means, each change point a vertical line
 * between the nights it separates with its change in percent, new
 * settings a dotted line, and the kernel release on the top axis at the
 * first night and wherever it changed. Written as base.dat, base.gp and
 * base.png (or .svg) in dir, every string from the database quoted for
 * gnuplot. */
#include <stdbool.h>
#include "reports/history.h"

int history_chart(const struct history *h, const char *dir, const char *base, bool svg, char written[4096],
                  struct pm_err *err);

#endif
