#ifndef PM_RECORD_FIGURES_H
#define PM_RECORD_FIGURES_H
/* record's figures: a benchmark tool's own numbers read from what the
 * recorded command wrote (record --figures PARSER, --figure SPEC), stored
 * as metrics of the run beside what the kernel did, with the run's
 * headline among them and the text they were read from kept with it.
 * docs/guide/figures.md is the user's side of it. */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "figures/figures.h"
#include "lib/opt.h"
#include "workloads/workload.h"

/* --figure options and --figures-log patterns a record takes at most. */
#define RECORD_MAX_FIGURES 16
#define RECORD_MAX_LOGS 8
/* The files those patterns may match together: each is kept with the run
 * (store/texts.h's RUN_TEXTS_MAX_ROWS has room for them, the output and a
 * --figures-from file), and a pattern matching thousands is a mistake. */
#define RECORD_MAX_LOG_FILES 64

struct record_figures {
    const struct figure_parser *parser;     /* --figures; NULL: none */
    char from[PATH_MAX];                    /* --figures-from; "": the command's output */
    char logs[RECORD_MAX_LOGS][PATH_MAX];   /* --figures-log patterns */
    size_t nlogs;
    struct figure_spec specs[RECORD_MAX_FIGURES];
    size_t nspecs;
    char headline[96];                      /* --headline; "": the rule's */
};

/* The options, for a state whose first member is a struct record_figures. */
extern const struct opt record_figures_options[];

/* Is any figure asked for (so the command's output is captured)? */
bool record_figures_on(const struct record_figures *f);
/* The options together, before anything runs: a --figures-from or
 * --figures-log with nothing to read, a log for a parser that takes none,
 * a --headline no figure asked for can be. -1 with err. */
int record_figures_check(const struct record_figures *f, struct pm_err *err);
/* The headline a configuration names before it runs: --headline, else
 * the parser's headline when its rule names one figure, else the first
 * --figure; "" when each run's output decides it (fio's read or write
 * IOPS, redis-benchmark's first test), NULL without figures. */
const char *record_figures_headline(const struct record_figures *f);
/* The i-th --figure's name (what the user declares), NULL past the last. */
const char *record_figures_user_name(const struct record_figures *f, size_t i);

/* After the command exited: keep what it wrote (data[0..len), cut: it
 * wrote more) and the files its figures come from (written since
 * started_ns, CLOCK_REALTIME), then, if the run is still ok, read every
 * figure and hand them to the run with its headline, or fail the run
 * naming what was missing and store none. -1 only on harness errors. */
int record_figures_collect(const struct record_figures *f, struct run_ctx *rc, const char *data, size_t len, bool cut,
                           int64_t started_ns, struct pm_err *err);

#endif
