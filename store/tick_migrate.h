#ifndef PM_STORE_TICK_MIGRATE_H
#define PM_STORE_TICK_MIGRATE_H
/* Schema 4 -> 5: ticks stored as JSON arrays of every value become the
 * changes-only encoding of store/tickcodec.h. Runs inside the migration's
 * transaction; a failure leaves the database at version 4. */
#include "store/sql.h"

int tick_migrate_v5(struct pm_db *db, struct pm_err *err);

/* DROP and CREATE of schema 7's sample view (store/schema.c's 6 -> 7). */
extern const char tick_sample_view_v7_sql[];

/* Schema 7 -> 8: ticks in blocks of per-series pieces (store/tickblock.h),
 * read by a sample view that costs what the run and series asked for.
 * Inside the migration's transaction. */
int tick_migrate_v8(struct pm_db *db, struct pm_err *err);

#endif
