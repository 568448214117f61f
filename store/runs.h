#ifndef PM_STORE_H
#define PM_STORE_H
/* Writing a run: its row when it starts (status running, so a crash leaves a
 * trace), and everything else in one transaction when it ends. */
#include <stdbool.h>
#include <stdint.h>
#include "store/db.h"
#include "store/latency_hist.h"
#include "store/texts.h"
#include "lib/kv.h"
#include "lib/metrics.h"

/* Where a run's samples came from: one row per source, with how many ticks
 * it delivered and why it is absent or failing (NULL note: no remark). */
struct run_source {
    const char *source, *path, *note;
    uint64_t ticks;
};

/* One of a run's top kernel symbols (--profile), ranked from 1. */
struct run_symbol {
    char symbol[256];
    long long samples;
    double pct_kernel, pct_all;
};

/* A label: 1 to RUN_LABEL_MAX bytes, not starting with '-' (so no label
 * is ever taken for an option). The one rule for --label, suite files and
 * runs read from files. */
#define RUN_LABEL_MAX 255
bool store_run_label_ok(const char *label);
/* A run's UUID as pressmark makes them: 36 characters, lowercase hex with
 * dashes at 8, 13, 18 and 23. */
bool store_run_uuid_ok(const char *uuid);

/* A run's row: what the caller says, and what store_run_begin sets. */
struct run_row {
    const char *label, *workload, *params;
    uint64_t interval_ns;
    int64_t id, started_ns;       /* set by store_run_begin */
    char uuid[40];                /* set by store_run_begin */
};

/* Everything a run's end stores. Pointers may be NULL (nothing of that). */
struct run_record {
    const char *status, *reason;
    int64_t ended_ns;
    const struct metric_set *metrics;
    const struct kv_list *meta;
    const struct run_source *sources;
    size_t nsources;
    const struct run_hists *hists;
    const struct run_symbol *symbols;
    size_t nsymbols;
    const struct run_texts *texts;   /* what a recorded command wrote (record --figures) */
};

int store_run_begin(struct pm_db *db, int64_t machine_id, struct run_row *row, struct pm_err *err);
/* The row of a run whose start was stored elsewhere (a run's record kept
 * beside the database): row->uuid and row->started_ns as given. */
int store_run_insert(struct pm_db *db, int64_t machine_id, struct run_row *row, struct pm_err *err);
/* The end of run_id in one transaction of its own. */
int store_run_end(struct pm_db *db, int64_t run_id, const struct run_record *rec, struct pm_err *err);
/* The same inside a transaction the caller holds. */
int store_run_record(struct pm_db *db, int64_t run_id, const struct run_record *rec, struct pm_err *err);
/* Add (or replace) metadata of a run now, not only at its end: what must
 * be known of a run also when its pressmark is killed (a suite's cell). */
int store_run_meta(struct pm_db *db, int64_t run_id, const struct kv_list *meta, struct pm_err *err);
/* Mark runs left 'running' by a killed pressmark. */
int store_run_abandoned(struct pm_db *db, const char *reason, struct pm_err *err);

#endif
