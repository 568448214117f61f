#ifndef PM_EXPERIMENT_BACKEND_LAVA_STORE_H
#define PM_EXPERIMENT_BACKEND_LAVA_STORE_H
/* backend = lava's artifact store token (lava-artifacts-token-file): the
 * token pressmark's PUTs to lava-artifacts carry (a lab's store refuses a
 * PUT without it). */
#include "experiment/plan.h"
#include "lib/err.h"

/* The plan's store token read (a file only its owner reads, one line of
 * 16 to 512 of [A-Za-z0-9._~+/-]) and given to labs/artifacts.h for PUTs
 * under lava-artifacts; a store over plain http to another host only
 * with lava-allow-plain-http = yes. Without the key: no token. -1 with err
 * naming the suite file, the key and what is accepted; no token then. */
int exp_lava_store_token(const struct suite_plan *p, struct pm_err *err);

#endif
