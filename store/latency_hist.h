#ifndef PM_STORE_LATENCY_H
#define PM_STORE_LATENCY_H
/* Latency histograms of a run (reclaim stalls, chat messages), stored as
 * their non-empty buckets so percentiles over many runs are computed from
 * the buckets added up, never from percentiles averaged. */
#include <stdint.h>
#include "lib/loghist.h"
#include "store/db.h"

/* A run's histograms, kept until its end is stored. */
struct run_hist {
    char name[64];
    struct loghist h;
};
struct run_hists {
    struct run_hist *v;
    size_t n, cap;
};

/* Keep a copy of h as name (replacing one of that name). -1 only when out
 * of memory. */
int store_run_hists_put(struct run_hists *l, const char *name, const struct loghist *h);
void store_run_hists_free(struct run_hists *l);

int store_latency_hist(struct pm_db *db, int64_t run_id, const char *name, const struct loghist *h,
                       struct pm_err *err);
/* Add the buckets of histogram name of every run in ids[0..n) into h.
 * Returns how many of the runs had it, -1 on error. */
int load_latency_hist(struct pm_db *db, const int64_t *ids, size_t n, const char *name, struct loghist *h,
                      struct pm_err *err);

#endif
