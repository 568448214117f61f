#ifndef PM_EXPERIMENT_KERNELS_H
#define PM_EXPERIMENT_KERNELS_H
#include "experiment/runner.h"

/* Find every group's kernel (r->kernels) and what its runs carry
 * (r->kernel_meta). -1 after saying why. */
int suite_kernels_check(struct runner *r, const struct suite_run_opts *o);
void suite_kernels_free(struct runner *r);

#endif
