#ifndef PM_EXPERIMENT_RUNNER_H
#define PM_EXPERIMENT_RUNNER_H
/* The suite runner's state, shared by its parts: runner.c runs cells here,
 * the backends (backend.h) run them under other kernels, suite.c
 * schedules. Not for commands. */
#include <stdbool.h>
#include "experiment/events.h"
#include "experiment/suite.h"
#include "harness/run.h"
#include "kernels/spec.h"

/* Each group's kernel, found before anything runs. */
struct group_kernel {
    struct kernel_spec spec;
    struct kernel_info info;
    bool running;               /* the kernel booted now: its cells run here */
};

struct runner {
    const struct suite_plan *p;
    struct run_session rs;
    struct suite_rec suite;
    struct suite_slot *slots;
    size_t nslots;
    struct cell_state *cs;
    const struct exp_events *ev;    /* where it tells what it does */
    struct exp_cell *view;          /* per cell: the figures the last progress event gave */
    int64_t linking_seq;        /* the slot whose run is starting */
    int runs_done_here;
    struct group_kernel *kernels;   /* per group, when the suite names kernels */
    struct kv_list *kernel_meta;    /* per group: kernel.* and kconfig.* for its runs */
    int only_group;                 /* a guest runs one group's cells; -1: all */
    bool incomplete;                /* a group waits for its kernel to be booted or its job to end */
    bool backend_started;           /* the backend has had a group (it may start every group's then) */
};

int runner_reload(struct runner *r, struct pm_err *err);
void runner_update_progress(struct runner *r);
/* Is every cell of the group done (no slot pending, none wanting runs)? */
bool runner_group_done(const struct runner *r, int group);
/* suite.*, axis.* and kernel.* metadata of a run of cell. */
void runner_cell_meta(const struct runner *r, int cell, struct kv_list *meta);

#endif
