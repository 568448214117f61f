#ifndef PM_FOREIGN_DB_H
#define PM_FOREIGN_DB_H
/* A results database from elsewhere (last night's, another machine's, or
 * the user's own for a command that only reads): checked to be SQLite and
 * no newer than this pressmark, opened read-only and never changed. Its
 * shape is verified first (tables that are tables, the columns pressmark
 * reads, no NULL or oversized text in its runs), and it is opened with
 * SQLite's defensive mode and an untrusted schema. An older schema whose
 * newer versions only add tables gets them, empty, in the connection's
 * TEMP schema; one whose rows a migration rewrites is migrated in a copy
 * that has no name in any directory (a database of SQLite's own, in memory
 * or in a file unlinked at once): nothing is left behind, whatever ends
 * the command. */
#include <stddef.h>
#include "store/db.h"

struct foreign_db {
    struct pm_db db;
};

int foreign_db_open(const char *path, struct foreign_db *f, struct pm_err *err);
/* The same as one snapshot: what is checked is then what is read (merge
 * checks a file, then copies it in: the file may have changed by then, a
 * snapshot cannot). The current schema is read in one read transaction
 * held until foreign_db_close; an older one is migrated in a copy as above. */
int foreign_db_open_snapshot(const char *path, struct foreign_db *f, struct pm_err *err);
void foreign_db_close(struct foreign_db *f);

#endif
