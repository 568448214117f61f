#ifndef PM_EXPERIMENT_BACKEND_LAVA_H
#define PM_EXPERIMENT_BACKEND_LAVA_H
/* backend = lava (experiment/backend_lava.c): the suite's LAVA lab, checked
 * before anything is written (experiment/backend_lava_open.c). */
#include <stdbool.h>
#include "experiment/plan.h"
#include "labs/lava.h"
#include "lib/err.h"

/* The plan's lab keys present, its token file (when need_token) of the
 * user's own and private, no URL with a user or password anywhere in the
 * suite file (each job publishes it), the server answering as LAVA, the
 * device type known to it. -1 with err naming the suite file, the key and
 * the value. */
int exp_lava_open(const struct suite_plan *p, bool need_token, struct lava_lab *lab, struct pm_err *err);

#endif
