#ifndef PM_MERGE_H
#define PM_MERGE_H
#include "store/db.h"

/* Import the runs of the database at path that db does not have yet (by
 * UUID), with everything hanging off them. added and present count them.
 * With only (n UUIDs), no other run of it is imported. */
int merge_database(struct pm_db *db, const char *path, const char *const *only, size_t n, int *added, int *present,
                   struct pm_err *err);

#endif
