#ifndef PM_EXPERIMENT_BACKEND_LAVA_H
#define PM_EXPERIMENT_BACKEND_LAVA_H
/* backend = lava (experiment/backend_lava.c): its keys, the steps
 * pressmark lava takes a suite's jobs through, and the suite's LAVA lab,
 * checked before anything is written (experiment/backend_lava_open.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "experiment/plan.h"
#include "labs/lava_api.h"
#include "lib/err.h"

/* Its keys, in [global] (its option table fills them; p->backend_state). */
struct exp_lava_keys {
    char url[512];              /* lava-url: the LAVA server */
    char token_file[1024];      /* lava-token-file: the API token's file ("": none) */
    char device_type[64];       /* device-type: the devices its jobs run on */
    char artifacts[512];        /* lava-artifacts: the store images are put to and results fetched from */
    char artifacts_guest[512];  /* lava-artifacts-guest: that store as the device reaches it ("": the same) */
    char artifacts_token_file[1024]; /* lava-artifacts-token-file: the store's PUT token's file ("": none) */
    bool allow_plain_http;      /* lava-allow-plain-http = yes: the token may go to another host unencrypted */
};

/* The keys of p, a suite with backend = lava. */
static inline const struct exp_lava_keys *exp_lava_keys(const struct suite_plan *p)
{
    return p->backend_state;
}

/* What pressmark lava job, submit and collect ask of suite_run
 * (suite_run_opts.backend_opts, with backend_cmd "lava"): how far the
 * kernels' jobs are taken (suite run, without it: all the way), where
 * job writes their definitions, the jobs collect waits for (none named:
 * every submitted one). */
struct exp_lava_step {
    enum exp_lava_step_kind { LAVA_RUN, LAVA_MAKE, LAVA_SUBMIT, LAVA_COLLECT } step;
    const char *out;
    const int64_t *jobs;
    size_t njobs;
};

/* The plan's lab keys present, its token file (when need_token) of the
 * user's own and private, no URL with a user or password anywhere in the
 * suite file (each job publishes it), the server answering as LAVA, the
 * device type known to it. -1 with err naming the suite file, the key and
 * the value. */
int exp_lava_open(const struct suite_plan *p, bool need_token, struct lava_lab *lab, struct pm_err *err);

#endif
