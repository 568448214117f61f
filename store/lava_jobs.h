#ifndef PM_STORE_LAVA_JOBS_H
#define PM_STORE_LAVA_JOBS_H
/* A suite's LAVA jobs (table lava_job): one per kernel group and attempt,
 * made, submitted, then collected or failed. The newest attempt of a
 * group is the one that counts. What is read is data: a lab, results URL
 * or state longer than its buffer is refused, never cut, and the rest is
 * held to the suite file before use (experiment/backend_lava_stored.h). */
#include <stdint.h>
#include "store/db.h"

struct lava_job_rec {
    int group, attempt;
    char lab[512];
    char *definition;           /* owned */
    char results_url[1024];
    int64_t job_id;             /* 0: not submitted */
    char state[16];             /* made, submitted, collected, failed */
    char reason[1024];
};

/* The newest attempt of the group's job; *found 0 when it has none. */
int store_lava_jobs_get(struct pm_db *db, int64_t suite_id, int group, struct lava_job_rec *out, int *found,
                  struct pm_err *err);
/* A new attempt (state made): rec->attempt is set. */
int store_lava_jobs_add(struct pm_db *db, int64_t suite_id, struct lava_job_rec *rec, struct pm_err *err);
int store_lava_jobs_set_submitted(struct pm_db *db, int64_t suite_id, int group, int attempt, int64_t job_id,
                            struct pm_err *err);
int store_lava_jobs_set_ended(struct pm_db *db, int64_t suite_id, int group, int attempt, const char *state,
                        const char *reason, struct pm_err *err);
void store_lava_job_rec_free(struct lava_job_rec *r);

#endif
