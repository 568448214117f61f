#ifndef PM_ACROSS_H
#define PM_ACROSS_H
/* One figure per configuration across a suite's workloads, as SPEC and
 * mmtests summarise: the geometric mean of each workload's headline
 * ratio to its own baseline, oriented so that above 100 % is better
 * (rates: cell / baseline; times: baseline / cell), with a 95% interval
 * from the runs' spread (geomean.h). A configuration is a label's name,
 * or a suite cell's axis values, so that "cap 256M" of usemem and of
 * stutter are one configuration. */
#include <stdbool.h>
#include <stddef.h>
#include "reports/compare.h"
#include "stats/geomean.h"

struct across {
    char config[256];
    char shown[256];             /* a label of it, as the first comparison shows it */
    struct geomean g;
    size_t workloads;            /* comparisons it has a judged headline in */
};

/* Configurations that are no comparison's baseline and have a headline
 * in at least two comparisons. *out is malloc'd; -1 out of memory. */
int compare_across(struct comparison *const *cs, size_t n, struct across **out, size_t *nout);

#endif
