#ifndef PM_DB_H
#define PM_DB_H
/* results.db: SQLite in WAL mode so reports read while a run writes. The
 * schema version lives in PRAGMA user_version and only moves forward. */
#include <limits.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/err.h"

#define PM_SCHEMA_VERSION 6

struct pm_db {
    sqlite3 *h;
    char path[PATH_MAX];
    char copy[PATH_MAX];      /* a private migrated copy, removed by pm_db_close; "" when none */
};

/* The path used when neither --db nor PRESSMARK_DB says otherwise:
 * results.db beside the pressmark binary, i.e. at the repository root. */
int pm_db_default_path(char *buf, size_t len);

/* Open (and with create, create and migrate) the database. Without create a
 * missing file is an error, so read-only commands never leave an empty db. */
int pm_db_open(struct pm_db *db, const char *path, bool create, struct pm_err *err);
void pm_db_close(struct pm_db *db);

int pm_db_exec(struct pm_db *db, const char *sql, struct pm_err *err);
int pm_db_prepare(struct pm_db *db, sqlite3_stmt **st, const char *sql, struct pm_err *err);
/* A text column, "" for NULL: every reader of a database takes text
 * through this, so a NULL where text belongs (a hostile or broken
 * database) is an empty string, never a NULL pointer. */
const char *pm_col_text(sqlite3_stmt *st, int col);
/* Did the last failure on db come from a full filesystem? */
bool pm_db_full(const struct pm_db *db);
/* Step a statement that returns no rows, then reset it for reuse. */
int pm_db_step_done(struct pm_db *db, sqlite3_stmt *st, struct pm_err *err);

#endif
