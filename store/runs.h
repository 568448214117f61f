#ifndef PM_STORE_H
#define PM_STORE_H
/* Writing a run: its row when it starts (status running, so a crash leaves a
 * trace), and everything else in one transaction when it ends. */
#include <stdint.h>
#include "store/db.h"
#include "lib/kv.h"
#include "lib/metrics.h"

/* Where a run's samples came from: one row per source, with how many ticks
 * it delivered and why it is absent or failing (NULL note: no remark). */
struct run_source {
    const char *source, *path, *note;
    uint64_t ticks;
};

int store_run_begin(struct pm_db *db, int64_t machine_id, const char *label, const char *workload,
                    const char *params, uint64_t interval_ns, int64_t *run_id, struct pm_err *err);
int store_run_end(struct pm_db *db, int64_t run_id, const char *status, const char *reason,
                  const struct metric_set *metrics, const struct kv_list *meta,
                  const struct run_source *sources, size_t nsources, struct pm_err *err);
/* Mark a run that was left 'running' by a killed pressmark. */
/* Add (or replace) metadata of a run now, not only at its end: what must
 * be known of a run also when its pressmark is killed (a suite's cell). */
int store_run_meta(struct pm_db *db, int64_t run_id, const struct kv_list *meta, struct pm_err *err);
int store_run_abandoned(struct pm_db *db, const char *reason, struct pm_err *err);

#endif
