#ifndef PM_STORE_PUSHED_H
#define PM_STORE_PUSHED_H
/* Which runs reached which time-series database (push): a run without a
 * row for a URL is still queued for it. */
#include <stddef.h>
#include <stdint.h>
#include "store/db.h"
#include "store/runinfo.h"

/* The finished runs not yet delivered to url (with only_run, that run
 * alone if it is one of them), by id, as heads: *heads malloc'd, *n of
 * them. 0, or -1 with err. */
int pushed_pending(struct pm_db *db, const char *url, int64_t only_run, struct run_head **heads, size_t *n,
                   struct pm_err *err);
/* Runs ids delivered to url now, in one transaction: all of them or none.
 * 0, or -1 with err. */
int pushed_mark(struct pm_db *db, const char *url, const int64_t *ids, size_t n, struct pm_err *err);

#endif
