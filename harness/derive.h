#ifndef PM_DERIVE_H
#define PM_DERIVE_H
/* Run-end metrics computed from the first and last value of each raw series.
 * Pure: no /proc, no database, so every formula is unit-tested against
 * fixtures from several kernel generations. */
#include "lib/series.h"
#include "lib/metrics.h"

struct derive_notes {
    const char *swap_source;    /* which counters the swap totals came from */
    const char *steal_source;   /* pgsteal split: node counters or 2.6's kswapd_steal */
};

/* page_size in bytes converts page counters to KB. Adds only what the
 * kernel's counters allow: a 2.4 kernel has no PSI, so no PSI metrics.
 * When out already holds time.elapsed_s, reclaim's scan velocity is
 * derived from it too. */
int derive_metrics(const struct series_table *t, long page_size, struct metric_set *out,
                   struct derive_notes *notes);

#endif
