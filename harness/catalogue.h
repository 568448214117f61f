#ifndef PM_HARNESS_CATALOGUE_H
#define PM_HARNESS_CATALOGUE_H
/* Every metric a run can store, gathered from where each is declared: the
 * time group (workloads/run_api.c), each source's (collectors/), the stall
 * tracer's and the observer's (harness/), each workload's (its ops table).
 * 'pressmark help metrics' prints it, pressmark-metrics(7) is written from
 * that, and with PRESSMARK_TEST_STRICT_METRICS=1 (the tests) a run that
 * stores a metric nothing declares, or with another unit or direction,
 * fails. */
#include <stddef.h>
#include <stdio.h>
#include "lib/err.h"
#include "lib/metrics.h"
#include "workloads/workload.h"

/* The groups in the order help metrics shows them; *n their number. */
const struct metric_group *const *catalogue_groups(size_t *n);
/* The def name stands for (*unit, *dir: its member's), or NULL. */
const struct metric_def *catalogue_find(const char *name, const char **unit, enum metric_dir *dir);
/* NULL when name is declared with this unit and direction; otherwise
 * what is wrong, in words (a static buffer). */
const char *catalogue_check(const char *name, const char *unit, enum metric_dir dir);
/* The names a configuration declares itself (workload_ops.declared: record
 * --figure) are none the catalogue has: one would read as the other's in
 * every report. -1 with err naming it. */
int catalogue_check_declared(const struct workload_ops *wl, void *state, struct pm_err *err);
void catalogue_print(FILE *f);

#endif
