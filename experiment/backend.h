#ifndef PM_EXPERIMENT_BACKEND_H
#define PM_EXPERIMENT_BACKEND_H
/* Where a suite's cells run, as one table of operations per backend (as
 * fio's I/O engines are): here (local), in a VM per kernel (vm), on this
 * machine across reboots into each kernel (host), or as a job per kernel
 * on a LAVA lab's devices (lava). The scheduler
 * (experiment/suite.c) runs the running kernel's groups here and hands
 * every other group to the suite's backend. */
#include "experiment/runner.h"

struct exp_backend {
    const char *name;
    /* Run the group's cells (or defer them: r->incomplete). 0, or 2 for a
     * harness error; *abort_sig and *worst as they came. */
    int (*run_group)(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst);
    /* Optional: the suite is not complete here; say or do what comes next. -1 on error. */
    int (*next)(struct runner *r, const char *path, const struct suite_run_opts *o);
    /* Optional: every cell is done. -1 on error. */
    int (*finish)(struct runner *r, const char *path, const struct suite_run_opts *o);
};

extern const struct exp_backend exp_backend_local, exp_backend_vm, exp_backend_host, exp_backend_lava;

#endif
