#ifndef PM_STORE_COMPARE_RUNS_H
#define PM_STORE_COMPARE_RUNS_H
/* What a comparison (reports/compare.c) reads of a database: the
 * workloads labels ran and the labels a workload ran under, a label's runs
 * of a workload with their status and its ok runs' metric values (of one
 * suite run, or of all), and what a run says of its environment. Each
 * row is handed to a callback in the order given; a callback returning
 * -1 stops there with its err. Strings are the database's (data: quote
 * them for where they go), valid during the call only. */
#include <stddef.h>
#include <stdint.h>
#include "store/db.h"
#include "store/runinfo.h"

typedef int (*store_compare_name_fn)(void *ctx, const char *name, struct pm_err *err);

/* The workloads of each of labels (of any label when nlabels is 0), each
 * label's first run first, a workload once per label. */
int store_compare_workloads(struct pm_db *db, const char *const *labels, size_t nlabels, store_compare_name_fn fn,
                            void *ctx, struct pm_err *err);
/* The labels workload ran under, first run first. */
int store_compare_labels(struct pm_db *db, const char *workload, store_compare_name_fn fn, void *ctx,
                         struct pm_err *err);

/* Every run of workload under label (NULL: any label), by id, with its
 * status; with suite (a suite run's UUID), its runs only and no aborted
 * one (an aborted cell of a suite is run again). */
typedef int (*store_compare_run_fn)(void *ctx, int64_t id, const char *status, struct pm_err *err);
int store_compare_runs(struct pm_db *db, const char *workload, const char *label, const char *suite,
                       store_compare_run_fn fn, void *ctx, struct pm_err *err);
/* Every metric of the ok runs of workload under label (NULL: any), of
 * suite's runs when not NULL, by run id. */
typedef int (*store_compare_value_fn)(void *ctx, int64_t run_id, const char *name, double value, const char *unit,
                                      const char *direction, struct pm_err *err);
int store_compare_values(struct pm_db *db, const char *workload, const char *label, const char *suite,
                         store_compare_value_fn fn, void *ctx, struct pm_err *err);

/* A run's metadata, then its machine's kernel release and command line
 * as the keys "kernel" and "cmdline". */
int store_compare_env(struct pm_db *db, int64_t run_id, run_meta_fn fn, void *ctx, struct pm_err *err);

#endif
