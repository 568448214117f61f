#ifndef PM_HISTORY_H
#define PM_HISTORY_H
/* One metric of one configuration (a label of a workload: a suite's cell
 * keeps its label night after night) across time: its ok runs grouped by
 * night, a night being one suite run (the runs' suite.uuid) or, for runs
 * outside any suite, one UTC day; each night's n, mean, sd, min and max,
 * its kernel release(s) and pressmark version(s); where the kernel, the
 * cell's settings or pressmark changed; and the change points of the
 * nights' means (changepoint.h). One result, several formats
 * (history_fmt.h), a chart (history_chart.h), a gate (history_gate.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "stats/changepoint.h"
#include "stats/stats.h"
#include "store/db.h"
#include "store/history_runs.h"

/* Change points are looked for among the newest this many nights. */
#define HISTORY_CP_MAX 1000

struct hist_night {
    /* "2026-11-20T023000Z" (a suite run: its first run's start, to the
     * second, as the nightly names its nights) or "2026-11-20" (a day) */
    char id[32];
    bool suite;                  /* a suite run; else the runs outside any suite of one UTC day */
    const char *suite_uuid, *suite_name;  /* its first run's ("" for a day) */
    int64_t first_ns;            /* its first run's start */
    size_t runs;                 /* its ok runs */
    size_t first, n;             /* its values: history.values[first .. first + n), runs with the metric */
    struct summary s;            /* of those values */
    char kernels[256], versions[128];   /* distinct, ", " between */
    const char *settings;        /* its first run's (hist_run.settings) */
    bool mixed_settings;         /* its runs did not all run with the same settings */
    long point;                  /* its index among the change points' series, -1 when it has no value */
    long change;                 /* the change (index into changes) its level starts with, or -1 */
};

enum hist_event_kind { HIST_KERNEL, HIST_SETTINGS, HIST_VERSION };

/* The kernel, the settings or pressmark changed at a night. */
struct hist_event {
    enum hist_event_kind kind;
    size_t night;                /* the first night with after */
    char before[512], after[512];/* kernels, versions; settings: what differs, "key value; ..." */
};

struct history {
    char label[256], workload[64], metric[96], unit[16], direction[8], title[48];
    struct hist_runs runs;       /* every ok run, by start */
    double *values;              /* the metric's values, night by night (runs without it left out) */
    size_t *value_run;           /* the run (index into runs) of each value */
    size_t nvalues;
    size_t missing;              /* ok runs that store no such metric */
    struct hist_night *nights;   /* oldest first */
    size_t nnights, suite_nights;
    struct hist_event *events;   /* by night */
    size_t nevents;
    /* Change points of the nights' means, oldest first (nights without
     * a value left out of the series: point_night maps it back). */
    double *points;
    size_t *point_night;
    size_t npoints;
    struct cp_opts cp;
    bool looked;                 /* change points were asked for */
    bool detected;               /* cp_detect ran; else why_not says why */
    char why_not[160];
    struct cp_change *changes;
    size_t nchanges;
    size_t *change_night;        /* the night each change starts at */
    bool emulated;               /* some runs ran under TCG emulation (allowed by the request) */
    bool metric_absent;          /* absent_ok, and no run stores the metric: nothing else is set */
};

struct history_request {
    const char *label;
    const char *workload;        /* NULL: the label's only workload (an error when it has several) */
    const char *metric;          /* NULL: the workload's headline */
    bool allow_emulated;         /* else runs under TCG emulation are refused, as compare refuses them */
    bool absent_ok;              /* a metric the cell does not store is no error: metric_absent says so */
    bool detect;                 /* look for change points (else why_not says they were not asked for) */
    const struct cp_opts *cp;    /* NULL: cp_opts_default's */
};

/* Read and group the history, find its changes. -1 with err saying what
 * is wrong in one line (no such label, several workloads, a metric the
 * cell does not store, emulated runs): the caller's bad input. */
int history_build(struct pm_db *db, const struct history_request *rq, struct history *h, struct pm_err *err);
void history_free(struct history *h);

/* +1 when higher is better, -1 when lower is, 0 when neither. */
int history_direction(const struct history *h);
/* The kernels of the nights on either side of change c: the last night
 * before it and its first. */
const char *history_kernel_before(const struct history *h, size_t c);
const char *history_kernel_after(const struct history *h, size_t c);
/* Whether the kernel, the settings or pressmark changed between the last
 * night before change c and its first night: false when nothing recorded
 * did, and the level moved with the machine alone. */
bool history_change_has_event(const struct history *h, size_t c);

#endif
