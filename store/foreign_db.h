#ifndef PM_FOREIGN_DB_H
#define PM_FOREIGN_DB_H
/* A results database from elsewhere (last night's, another machine's):
 * checked to be SQLite and no newer than this pressmark, opened read-only,
 * and when older, migrated in a private copy so the original is never
 * changed. Its shape is verified first (tables that are tables, the
 * columns pressmark reads, no NULL or oversized text in its runs), and it is
 * opened with SQLite's defensive mode and an untrusted schema. */
#include <stddef.h>
#include "store/db.h"

struct foreign_db {
    struct pm_db db;
    char copy[4096];             /* while opening: the migrated copy (then db.copy owns it) */
};

int foreign_db_open(const char *path, struct foreign_db *f, struct pm_err *err);
/* The same, always in a private copy, of any version: what is checked is
 * then what is read (merge checks a file, then attaches it: the file at
 * the path may be another by then, the copy cannot). */
int foreign_db_open_copy(const char *path, struct foreign_db *f, struct pm_err *err);
void foreign_db_close(struct foreign_db *f);

#endif
