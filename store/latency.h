#ifndef PM_STORE_LATENCY_H
#define PM_STORE_LATENCY_H
/* Latency histograms of a run (reclaim stalls, chat messages), stored as
 * their non-empty buckets so percentiles over many runs are computed from
 * the buckets added up, never from percentiles averaged. */
#include <stdint.h>
#include "lib/loghist.h"
#include "store/db.h"

int store_latency_hist(struct pm_db *db, int64_t run_id, const char *name, const struct loghist *h,
                       struct pm_err *err);
/* Add the buckets of histogram name of every run in ids[0..n) into h.
 * Returns how many of the runs had it, -1 on error. */
int load_latency_hist(struct pm_db *db, const int64_t *ids, size_t n, const char *name, struct loghist *h,
                      struct pm_err *err);

#endif
