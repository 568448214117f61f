#ifndef PM_EXPERIMENT_EVENTS_H
#define PM_EXPERIMENT_EVENTS_H
/* What the experiment layer tells the person waiting, as events: the layer
 * never prints; a command turns its events into output (cmd/cmd_suite.c
 * draws them with cmd/progress.c). Any handler may be NULL. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "harness/run.h"
#include "lib/series.h"

/* Where a line belongs: the log of what the suite does, or what a dry run
 * would do (the answer to the command, so its standard output). */
enum exp_stream { EXP_LOG, EXP_DRY_RUN };

/* One cell's figures so far. */
struct exp_cell {
    char label[256];
    int finished, planned, failed;
    bool has_mean;
    double mean, ci_pct;         /* the headline's mean and CI half-width in % of it */
    const char *state;           /* "", "converged", "at maximum", "running" */
};

/* The suite's figures so far, sent whenever they may have changed. */
struct exp_progress {
    const struct exp_cell *cells;
    size_t ncells;
    int runs_planned, finished_total, run_no;
    int round, rounds;           /* rounds: the most there can be */
    double eta_s;                /* < 0: not known yet */
};

struct exp_events {
    void *arg;
    /* Whole lines, each ending in a newline. */
    void (*say)(void *arg, enum exp_stream stream, const char *text);
    /* The suite's runs begin: its title and cells. */
    void (*begin)(void *arg, const char *title, size_t ncells);
    void (*progress)(void *arg, const struct exp_progress *pr);
    void (*run_start)(void *arg, int cell);
    /* The sampler's tick (its thread: must be quick). */
    void (*tick)(void *arg, const struct series_table *t, uint64_t t_ns, const struct run_live *live);
    /* A run ended: its status, its headline value when it has one, the headline's unit. */
    void (*run_end)(void *arg, int cell, const char *status, bool has_value, double value, const char *unit);
    /* The suite's runs here are over (the last figures stay shown). */
    void (*end)(void *arg);
};

/* Format a line (or several) and hand it to ev->say. */
void exp_say(const struct exp_events *ev, enum exp_stream stream, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A stream whose lines go to ev->say (EXP_LOG), for the layers below that
 * take a FILE *say (kernels/: the image's steps, the VM's boot); NULL when
 * nothing listens or it cannot be made. The caller closes it. */
FILE *exp_say_file(const struct exp_events *ev);

#endif
