#ifndef PM_STORE_HEADLINE_H
#define PM_STORE_HEADLINE_H
/* The headline runs name themselves (a record's figures store theirs as
 * run_meta "headline"): reports show it where the runs agree on it. */
#include <stdbool.h>
#include <stddef.h>
#include "store/db.h"

/* A headline as a run's metadata may name one: a metric name of
 * [a-z0-9_.], at most 95 characters (a database is data). */
bool headline_name_ok(const char *name);
/* Is a unit from a database plain enough to show: printable ASCII, no
 * blank ("" is)? A report shows another as a word of its own. */
bool headline_unit_plain(const char *unit);

/* What the runs of workload under label name as their headline: into
 * *seen (its unit in unit) when none names another; *differ when two
 * do. Call once per label with the same seen and differ, both first ""
 * and false. -1 with err. */
int store_label_headline(struct pm_db *db, const char *workload, const char *label, char *seen, size_t len,
                         char *unit, size_t ulen, bool *differ, struct pm_err *err);

#endif
