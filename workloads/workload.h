#ifndef PM_WORKLOAD_H
#define PM_WORKLOAD_H
/* A workload is a table of operations plus an option table, as fio's I/O
 * engines are: adding one means adding one file and one line in registry.c.
 * Workloads never write the database; they hand metrics to the run. */
#include <stdbool.h>
#include <stddef.h>
#include "harness/err.h"

struct run_ctx;

struct wl_option {
    const char *name;       /* long option, without the dashes */
    const char *arg;        /* metavar such as "SIZE"; NULL for a flag */
    const char *def;        /* default, shown by --help and applied first */
    const char *help;
};

struct workload_ops {
    const char *name;
    const char *summary;
    const char *headline;               /* metric shown first by show and compare */
    const char *headline_title;         /* its column title: "elapsed", "msg/s", "MB/s" */
    bool show_cpu_split;                /* show adds seed 003's user, system, idle columns */
    const struct wl_option *options;    /* terminated by a zeroed entry */
    size_t state_size;
    /* Validate and store one option; -1 with err naming what is accepted. */
    int (*set_option)(void *state, const char *name, const char *value, struct pm_err *err);
    /* Words after "--" (a command), or none. */
    int (*set_args)(void *state, int argc, char **argv, struct pm_err *err);
    /* Once before the runs: check what is needed, build what is shared. */
    int (*prepare)(void *state, struct run_ctx *rc, struct pm_err *err);
    /* One measured run, inside the cap. Returns -1 only on harness errors;
     * a workload that fails reports it through run_set_status. */
    int (*run)(void *state, struct run_ctx *rc, struct pm_err *err);
    void (*cleanup)(void *state);
    /* The parameters that define this configuration, for the run's record. */
    void (*describe)(void *state, char *buf, size_t len);
    /* Optional: a list-valued option makes phases, each with its own runs
     * (kernbench's -j half, 4x, max). Returns how many (1 without). */
    int (*phases)(void *state);
    /* Select phase i; suffix names it for the label ("j8"). */
    void (*set_phase)(void *state, int i, char *suffix, size_t len);
};

const struct workload_ops *workload_find(const char *name);
/* NULL-terminated list of all workloads, for help and doctor. */
extern const struct workload_ops *const pm_workloads[];

#endif
