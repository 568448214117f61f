#ifndef PM_EXPERIMENT_BACKEND_LAVA_STORED_H
#define PM_EXPERIMENT_BACKEND_LAVA_STORED_H
/* A LAVA job as the database stores it (store/lava_jobs.h), held to what
 * the suite file makes. A database is data: a stored lab, results URL or
 * definition is never sent, fetched or written as it stands. pressmark
 * makes the job's definition again from the suite file and sends the one
 * it made, which the stored one must equal; the lab must be the suite's
 * lava-url and the results URL the one pressmark names under the suite's
 * lava-artifacts. Anything else is refused before a request is made. */
#include <stddef.h>
#include <stdint.h>
#include "experiment/plan.h"
#include "lib/err.h"
#include "store/lava_jobs.h"

/* The random hex digits of a results name: 96 bits, so nobody guesses
 * where a job's guest puts its results. */
#define LAVA_RESULTS_RANDOM 24

/* A new results name of the suite's group, relative to the store:
 * pressmark/results-UUID-kernelG-RANDOM.tar. */
int exp_lava_results_name(const char *uuid, int group, char *name, size_t len, struct pm_err *err);
/* name under store, with one '/' between them. */
void exp_lava_store_url(const char *store, const char *name, char *url, size_t len);

/* rec, the stored job of group in suite (suite_id, uuid) of plan p, held
 * to what p gives: made without a job id or submitted with one (a job
 * that waits: callers pass no ended one), its lab equal to lava-url, its
 * results_url exactly
 * lava-artifacts/pressmark/results-UUID-kernelG-<24 lowercase hex>.tar;
 * name gets the part after the store (pressmark/...). -1 with err naming
 * the database's row, the field, its value and what was expected. */
int exp_lava_stored_check(const struct suite_plan *p, int64_t suite_id, const char *uuid, const struct lava_job_rec *rec,
                      char *name, size_t len, struct pm_err *err);
/* rec's stored definition held to made, the one the suite file makes now:
 * 0 when they are equal, else -1 with err naming the row and the first
 * line where they differ. */
int exp_lava_stored_same(const struct suite_plan *p, int64_t suite_id, const struct lava_job_rec *rec, const char *made,
                     struct pm_err *err);

#endif
