#ifndef PM_STORE_HISTORY_H
#define PM_STORE_HISTORY_H
/* A configuration's history as the database holds it: every ok run of one
 * label and workload, oldest first, with one metric's value and what says
 * which night the run belongs to and what it ran on (its suite run, kernel
 * release, pressmark version, settings). One prepared query, whatever
 * the number of runs: the nightly's history database grows by a suite's
 * runs every night. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/db.h"

/* One ok run. Strings are the database's (data: quote them for where they
 * go), owned by the run, never NULL. */
struct hist_run {
    int64_t id, started_ns;
    double value;                /* NaN: this run stores no such metric */
    char *kernel;                /* its machine's release */
    char *version;               /* pressmark.version, "" when absent */
    char *suite_uuid, *suite_name;  /* "" outside a suite */
    /* The cell's settings, one "key=value" a line, sorted: its options
     * (run.params), its cap and swap (cap.*, swap.added) and the knobs it
     * set (set.*, without what they were before). Swap files and cgroups
     * named after their run read run-N, so the same set-up reads the same. */
    char *settings;
    bool emulated;               /* ran under QEMU's TCG emulation (emulated = yes) */
};

struct hist_runs {
    struct hist_run *v;
    size_t n, alloc;
    char unit[16], direction[8]; /* the metric's, as its runs store it ("" when none does) */
};

/* Every ok run of label and workload, by started_ns (then id), with
 * metric's value. */
int store_history_load(struct pm_db *db, const char *label, const char *workload, const char *metric,
                       struct hist_runs *out, struct pm_err *err);
void store_history_free(struct hist_runs *r);

/* The workloads label has ok runs of, first run first: *n of them, the
 * first two names in w0 and w1 ("" when fewer). */
int store_history_workloads(struct pm_db *db, const char *label, size_t *n, char w0[64], char w1[64],
                            struct pm_err *err);
/* The cells (label and workload) with ok runs, first run first: of label
 * (NULL: any) and workload (NULL: any). *labels and *workloads are
 * malloc'd arrays of malloc'd strings, *n of each. */
int store_history_cells(struct pm_db *db, const char *label, const char *workload, char ***labels, char ***workloads,
                        size_t *n, struct pm_err *err);
void store_history_cells_free(char **labels, char **workloads, size_t n);
/* The metrics label's ok runs of workload store, ", "-joined, cut to len
 * (what an error says is accepted). */
int store_history_metric_names(struct pm_db *db, const char *label, const char *workload, char *buf, size_t len,
                               struct pm_err *err);

/* "run-12" in a value (a swap file, a cgroup) made "run-N": the same
 * set-up on two runs must not read as a difference. In place. */
void store_normalise_run_names(char *v);

#endif
