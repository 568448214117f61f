#ifndef PM_SUITE_PLAN_H
#define PM_SUITE_PLAN_H
/* A suite file turned into its cells: every part (section) of it crossed
 * with its axes (the keys given a list of values), each cell a workload,
 * a label and the settings of one run. Every setting of every cell is
 * applied once here to the option tables, so a suite that loads is a
 * suite whose every run can start. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cmd/cli.h"
#include "cmd/suite_file.h"
#include "lib/kv.h"
#include "workloads/workload.h"

enum suite_order { ORDER_INTERLEAVED, ORDER_SEQUENTIAL };

/* Cells in one suite at the most (the product of its axes, over its parts). */
#define SUITE_MAX_CELLS 1024

struct suite_setting {
    const char *key, *value;    /* into the suite file */
    int line;
};

struct suite_cell {
    char label[256];
    char part[64];
    const struct workload_ops *wl;
    struct kv_list axes;        /* axis key -> this cell's value */
    struct suite_setting *settings;
    size_t nsettings;
    const char *command;        /* record's command line, or NULL */
    int command_line;
    char headline[64];          /* the metric target-ci and the report follow */
    char params[2048];          /* what workload_describe says, for estimates */
};

struct suite_plan {
    struct suite_file file;
    char name[128];
    struct suite_cell *cells;
    size_t ncells;
    unsigned runs_min, runs_max;    /* equal: a fixed count */
    double target_ci;               /* the CI's half-width as a fraction of the mean; 0: none */
    enum suite_order order;
    bool has_seed;
    uint64_t seed;
    char question[512];
    char baseline[256];             /* a cell's label; "": the first cell */
    char axis_names[16][64];        /* every axis, in the order first seen */
    size_t naxes;
};

/* Read FILE (or text, a suite as stored, named path) and build its cells.
 * -1 with err "FILE:LINE: ..." naming the key, the value and what is
 * accepted. */
int suite_plan_load(const char *path, const char *text, struct suite_plan *p, struct pm_err *err);
/* Only the file and its suite-wide keys (runs, target-ci, order, seed,
 * question, baseline, name), checked: no cells, nothing applied, so it
 * needs neither root nor the machine the suite ran on (status, reports). */
int suite_plan_read(const char *path, const char *text, struct suite_plan *p, struct pm_err *err);
void suite_plan_free(struct suite_plan *p);

/* One cell's run options and workload state, ready for a run plan. */
struct cell_run {
    struct run_opts ro;
    void *wl_state;
    char **argv;                /* record's command, kept while it runs */
};
int suite_cell_prepare(const struct suite_plan *p, const struct suite_cell *c, struct cell_run *cr,
                       struct pm_err *err);
void suite_cell_release(struct cell_run *cr);

/* Split a command line on blanks, "..." and '...' keeping blanks (no
 * shell). Returns argc, argv NULL-terminated in *argv (free *argv and
 * (*argv)[0]); -1 for an unclosed quote. */
int suite_split_command(const char *s, char ***argv);

#endif
