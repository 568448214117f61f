#ifndef PM_WORKLOADS_DATASET_H
#define PM_WORKLOADS_DATASET_H
/* A workload's data set sized against the run's memory cap (--dataset
 * SIZE|PCT): the servers' keys (run redis, run memcached) and fio's file
 * (run fio) are as large as the operator says, or a share of the cap, by
 * default half again the cap, so a third of it cannot be resident.
 * Declared once here so that every workload reads "150%" the same way. */
#include <stdint.h>
#include "lib/err.h"

/* The default share of the cap, and the most a share may be: past ten
 * times the cap a run is a load phase of swap (or of disk) alone. */
#define WL_DATASET_PCT_DEFAULT 150
#define WL_DATASET_PCT_MAX 1000
/* Without a cap, a size this machine holds with room to spare. */
#define WL_DATASET_UNCAPPED "256M"

/* --dataset's value, its syntax only (a share's bytes need the cap): an
 * OPT_STRING's check. -1 with err saying what is accepted. */
int wl_dataset_set(void *state, const char *value, struct pm_err *err);
/* given ("" for the default) in bytes against cap (0: none): a size, or a
 * share of the cap. -1 with err ("--dataset: ...") for a share without a
 * cap and for what comes to no bytes. */
int wl_dataset_resolve(const char *given, uint64_t cap, uint64_t *bytes, struct pm_err *err);

#endif
