#ifndef PM_RUNINFO_H
#define PM_RUNINFO_H
/* A stored run read back for reports: reports read only the database. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/db.h"
#include "lib/kv.h"
#include "lib/metrics.h"

struct run_source_info {
    char source[32];
    char path[512];
    int64_t ticks;
    char note[256];
};

struct run_info {
    int64_t id;
    char uuid[40];
    char label[256];
    char workload[64];
    char params[2048];
    int64_t started_ns, ended_ns, interval_ns;
    char status[16];
    char reason[1024];
    char hostname[256], kernel[256];
    int64_t mem_total_kb, page_size;
    int64_t ticks;
    struct metric_set metrics;
    struct kv_list meta;
    struct run_source_info *sources;
    size_t nsources;
    struct { char symbol[256]; int64_t samples; double pct_kernel; } profile[10];
    size_t nprofile;
};

int store_run_info_load(struct pm_db *db, int64_t id, struct run_info *ri, struct pm_err *err);
void store_run_info_free(struct run_info *ri);

/* Run ids for a selector, oldest first: a run id, a UUID, or a label.
 * Returns the count (0 when nothing matches) or -1. */
int store_run_select(struct pm_db *db, const char *selector, int64_t **ids, struct pm_err *err);
/* The most recent run's id, or 0 when there is none. */
int64_t store_run_latest(struct pm_db *db, struct pm_err *err);
/* How many runs label has, of any status, into *n (0: none, or the
 * count could not be read). 0, or -1 with err when the query cannot be
 * prepared. */
int store_run_label_count(struct pm_db *db, const char *label, size_t *n, struct pm_err *err);

/* Which runs store_run_list_each lists: each field NULL for any. */
struct run_filter {
    const char *label, *workload;
    const char *suite_uuid;      /* the runs of this suite run (run_meta suite.uuid) */
};
/* 0 for the next run; 1 to stop (it has what it wanted); -1 with err. */
typedef int (*run_id_fn)(void *ctx, int64_t id, struct pm_err *err);
/* Each run f lets through, by id, handed to fn with ctx. The list stays
 * one read until the last: what fn reads of db (store_run_info_load) is the
 * database as the list saw it, whatever another connection writes
 * meanwhile (a run removed, one added). 0 at the end or when fn returned
 * 1; -1 with err when a read failed or fn returned -1 (with its err). */
int store_run_list_each(struct pm_db *db, const struct run_filter *f, run_id_fn fn, void *ctx, struct pm_err *err);

/* What names a run wherever it goes (export's rows, push's tags): no
 * metrics, no ticks, so it costs the same for a run of any length. */
struct run_head {
    int64_t id, started_ns;
    char uuid[40], label[256], workload[64], status[16], host[256], kernel[256];
};
int store_run_head_load(struct pm_db *db, int64_t id, struct run_head *h, struct pm_err *err);
/* Each of a run's metrics (by name) or metadata entries (by key) handed to
 * fn in turn, whole (run_info's fixed fields would cut a long name); fn
 * returning -1 stops there. Returns 0, or -1 with err from the database
 * or from fn. */
typedef int (*run_metric_fn)(void *ctx, const char *name, double value, const char *unit, const char *direction,
                             struct pm_err *err);
typedef int (*run_meta_fn)(void *ctx, const char *key, const char *value, struct pm_err *err);
int store_run_metrics_each(struct pm_db *db, int64_t id, run_metric_fn fn, void *ctx, struct pm_err *err);
int store_run_meta_each(struct pm_db *db, int64_t id, run_meta_fn fn, void *ctx, struct pm_err *err);

/* One key of each run in ids, in their order: each run that has it hands
 * its value to fn (the key as key). The same for one metric by name and
 * store_run_metric_key_each. fn returning 1 stops there with 0 (it has what it
 * wanted); -1 stops with its err. One prepared statement for them all. */
int store_run_meta_key_each(struct pm_db *db, const int64_t *ids, size_t n, const char *key, run_meta_fn fn, void *ctx,
                      struct pm_err *err);
int store_run_metric_key_each(struct pm_db *db, const int64_t *ids, size_t n, const char *name, run_metric_fn fn,
                        void *ctx, struct pm_err *err);
/* Does any run of ids have key with exactly value? Into *any; 0, or -1
 * with err. */
int store_run_meta_any(struct pm_db *db, const int64_t *ids, size_t n, const char *key, const char *value, bool *any,
                 struct pm_err *err);

double store_run_metric_or(const struct run_info *ri, const char *name, double fallback);

#endif
