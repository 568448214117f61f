#ifndef PM_PROGRESS_H
#define PM_PROGRESS_H
/* What a suite (or run --runs N) is doing, for the person waiting: on a
 * terminal a small table redrawn in place (one line per cell, then the
 * run in progress with its live swap rates, elapsed time and ETA); into a
 * pipe or a file, one plain line per finished run. Labels from the suite
 * file are shown with control characters escaped. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "experiment/events.h"
#include "harness/run.h"
#include "lib/series.h"


struct progress {
    FILE *out;
    bool tty;
    pthread_mutex_t mu;
    char title[256];
    struct exp_cell *cells;
    size_t ncells;
    int run_no, runs_planned;    /* the run in progress, of those planned so far */
    int finished_total;          /* runs ended so far */
    int round, rounds;           /* rounds: the most there can be; 0: not in rounds (run --runs) */
    uint64_t started_ns;
    double eta_s;                /* < 0: not known yet */
    int current;                 /* the cell running, -1: none */
    uint64_t run_started_ns;
    double swapin_kbs, swapout_kbs;
    double beat_ms;              /* the heartbeat's worst lateness in the last tick */
    double live_rate;            /* the workload's count per second over the last tick */
    char live_unit[16];
    uint64_t last_count, last_count_ns;   /* the count when it last changed, and when */
    uint64_t last_tick_ns, last_draw_ns;
    double last_in, last_out;
    bool have_prev;
    int drawn;                   /* lines of the last drawing, to go back over */
};

void progress_init(struct progress *p, FILE *out, bool tty, const char *title, size_t ncells);
void progress_free(struct progress *p);
/* A suite's figures (experiment/events.h), copied in. */
void progress_set(struct progress *p, const struct exp_progress *pr);
/* A run of cell i starts. */
void progress_run_start(struct progress *p, int cell);
/* The sampler's tick (its thread): live rates (swap, the workload's own
 * count when it keeps one), redrawn at most twice a second. */
void progress_tick(struct progress *p, const struct series_table *t, uint64_t t_ns, const struct run_live *live);
/* A run ended: status and headline for the plain line; the cells' figures
 * are in p->cells, updated by the caller first. */
void progress_run_end(struct progress *p, int cell, const char *status, bool has_value, double value,
                      const char *unit);
/* End the drawing: the final table stays on screen. */
void progress_done(struct progress *p);

#endif
