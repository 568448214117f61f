#ifndef PM_SUITE_RUNNER_H
#define PM_SUITE_RUNNER_H
/* The suite runner's state, shared by its parts: suite_run.c runs cells
 * here, suite_kernel.c runs them under other kernels (in a VM, or after a
 * reboot). Not for other commands. */
#include <stdbool.h>
#include "cmd/progress.h"
#include "cmd/suite_run.h"
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
    struct progress prog;
    int64_t linking_seq;        /* the slot whose run is starting */
    int runs_done_here;
    struct group_kernel *kernels;   /* per group, when the suite names kernels */
    struct kv_list *kernel_meta;    /* per group: kernel.* and kconfig.* for its runs */
    int only_group;                 /* a guest runs one group's cells; -1: all */
};

int runner_reload(struct runner *r, struct pm_err *err);
void runner_update_progress(struct runner *r);
/* Is every cell of the group done (no slot pending, none wanting runs)? */
bool runner_group_done(const struct runner *r, int group);
/* suite.*, axis.* and kernel.* metadata of a run of cell. */
void runner_cell_meta(const struct runner *r, int cell, struct kv_list *meta);
int runner_run_group(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst);

/* suite_kernel.c: find every group's kernel (-1 after saying why). */
int suite_kernels_check(struct runner *r, const struct suite_run_opts *o);
void suite_kernels_free(struct runner *r);
/* Boot the group's kernel in a VM, run its cells there, bring the runs
 * in. 0, or 2 for a harness error. */
int suite_vm_group(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst);
/* The host backend: say which kernel is next (and with --reboot, boot it). */
int suite_host_next(struct runner *r, const char *path, const struct suite_run_opts *o);
/* The host backend's suite is complete: remove the resume unit. */
int suite_host_finish(struct runner *r, const char *path, const struct suite_run_opts *o);

#endif
