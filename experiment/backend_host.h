#ifndef PM_EXPERIMENT_BACKEND_HOST_H
#define PM_EXPERIMENT_BACKEND_HOST_H
#include <stdbool.h>
#include "experiment/plan.h"
#include "experiment/suite.h"

/* The group whose kernel is to be booted next: the first in the file's
 * order with cells still wanting runs that is not the running kernel
 * (else the running one's, else -1: every kernel is done). */
int suite_next_group(const struct suite_plan *p, const struct cell_state *cs, const bool *running);

#endif
