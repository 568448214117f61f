#ifndef PM_HTML_TICKS_H
#define PM_HTML_TICKS_H
/* A run's ticks as a compact HTML table, for the report's outlier rows: a
 * reader who sees a run far from its configuration's others can see at
 * once what its machine did, tick by tick, in the series the charts draw
 * (swap rate, CPU, free memory, PSI and heartbeat, reclaim). */
#include <stdint.h>
#include <stdio.h>
#include "store/db.h"

/* At most this many rows, evenly spaced over the run, the first and the
 * last tick among them: a long run's page stays small. */
#define HTML_TICKS_MAX 200

/* The table, or a line saying why there is none (no ticks; ticks that
 * could not be read). */
void html_tick_table(FILE *f, struct pm_db *db, int64_t run_id);

#endif
