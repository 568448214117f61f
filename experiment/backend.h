#ifndef PM_EXPERIMENT_BACKEND_H
#define PM_EXPERIMENT_BACKEND_H
/* Where a suite's cells run when their kernel is not the one booted now:
 * one table per backend, as fio's I/O engines are, each in a file of its
 * own (backend_NAME.c) and found by the suite's backend = NAME in the
 * registry (backends.c). A backend brings its own [global] keys (an
 * option table and the state they fill, as fio's .options and
 * .option_struct_size), says where it runs cells (suite plan, suite
 * status) and runs them. The core (the planner, the scheduler, the
 * kernels' checks, the bisection, the commands) asks the table and never
 * names a backend. The running kernel's groups run here
 * (exp_backend_local, runner.c) whatever the backend. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "experiment/plan.h"
#include "lib/err.h"
#include "lib/opt.h"

struct runner;
struct suite_run_opts;

enum {
    /* A group whose kernel is not running waits for this machine to boot
     * that kernel: suite run ends before it and continues after the boot
     * (a bisection waits for that boot instead of measuring on). */
    EXP_BACKEND_REBOOTS = 1 << 0,
};

struct exp_backend {
    const char *name;           /* backend = NAME */
    const char *summary;        /* after its name where a bad name is refused: "a virtual machine per kernel" */
    unsigned flags;             /* EXP_BACKEND_* */
    /* Its own [global] keys and the state they fill: allocated zeroed,
     * the table's defaults applied, each key set as the file gives it,
     * held and freed by the plan (p->backend_state). NULL: no keys. */
    const struct opt *options;
    size_t state_size;
    /* Optional: the keys held together once all are read. The file alone
     * (status reads a stored suite with it): no network, no root. 0, or
     * -1 with err "FILE: ...". */
    int (*check)(const struct suite_plan *p, struct pm_err *err);
    /* Where a group whose kernel is not running runs, for suite plan:
     * "boots in a VM (1.0 GiB, 2 CPUs)". */
    void (*where)(const struct suite_plan *p, const struct suite_group *g, char *buf, size_t len);
    /* Where the cells of every kernel but the running one run, for suite
     * status: "in a VM per kernel". */
    void (*describe)(const struct suite_plan *p, char *buf, size_t len);
    /* Optional: may a bisection's batches run here (each a boot of one
     * kernel, its runs back when suite_run returns or after a reboot)?
     * 0, or -1 with err "FILE: ..." naming what this suite lacks. NULL:
     * never (the bisection says which backends may). */
    int (*bisects)(const struct suite_plan *p, struct pm_err *err);
    /* Optional, suite run of a suite with kernels, before anything is
     * written: what the backend needs ready (a lab that answers, a token
     * read). 0, or -1 with err. */
    int (*open)(const struct suite_plan *p, const struct suite_run_opts *o, struct pm_err *err);
    /* Optional, for each group whose kernel (found) is not running, before
     * anything runs: can it run here (root, tools)? 0, or -1 with err. */
    int (*check_kernel)(const struct suite_plan *p, int group, const struct suite_run_opts *o, struct pm_err *err);
    /* Run the group's cells (or defer them: r->incomplete). 0, or 2 for a
     * harness error; *abort_sig and *worst as they came. */
    int (*run_group)(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst);
    /* Optional: the suite is not complete here; say or do what comes next. -1 on error. */
    int (*next)(struct runner *r, const char *path, const struct suite_run_opts *o);
    /* Optional: every cell is done. -1 on error. */
    int (*finish)(struct runner *r, const char *path, const struct suite_run_opts *o);
};

/* The running kernel's groups, and every group of a suite without
 * kernels or of a guest: run here, one cell after another (runner.c). */
extern const struct exp_backend exp_backend_local;

/* The registry (backends.c): every backend a suite may name, the default
 * (a suite without backend =) first; NULL-terminated. */
extern const struct exp_backend *const exp_backends[];
/* backend = name's table, or NULL. */
const struct exp_backend *exp_backend_find(const char *name);
/* The registered backends as a refusal lists them: "vm, a virtual
 * machine per kernel; host, ...". */
void exp_backend_list(char *buf, size_t len);
/* May a bisection run its batches with p's backend? 0, or -1 with err
 * naming the suite file and, when it may not, the backends that can. */
int exp_backend_bisects(const struct suite_plan *p, struct pm_err *err);
/* p's backend keys as suite-file lines ("vm-accel = auto\n", each key
 * with a value, in its table's order), for a suite pressmark makes (a
 * bisection's batch). -1 for a value a suite file cannot hold. */
int exp_backend_keys_text(const struct suite_plan *p, FILE *f);

#endif
