#ifndef PM_RUN_PROGRESS_H
#define PM_RUN_PROGRESS_H
/* run --runs N and record --runs N on a terminal: the progress table of a
 * suite with one cell (run k of N, elapsed, ETA, the live swap rates, the
 * mean so far), each finished run logged above it. Into a pipe nothing
 * changes: the harness's one line per run is the plain progress. */
#include <stdbool.h>
#include "cmd/progress.h"
#include "harness/run.h"

struct run_progress {
    bool on;
    struct progress prog;
    void (*prev_after)(void *arg, struct pm_db *db, int64_t run_id);
    void *prev_arg;
    const char *headline, *unit;
    bool own_headline;          /* each run names its headline (record's figures) */
    char unit_buf[16];
    double *values;
    size_t nvalues;
    double secs;                /* wall time of the finished runs */
};

/* Take over the plan's progress when stderr is a terminal and the plan has
 * more than one run and is not quiet. */
void progress_attach(struct run_progress *rp, struct run_plan *plan);
void progress_detach(struct run_progress *rp);

#endif
