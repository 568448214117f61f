#ifndef PM_STORE_SCHEMA_H
#define PM_STORE_SCHEMA_H
/* results.db's schema: its version lives in PRAGMA user_version and only
 * moves forward, one migration a version, each in its own transaction. */
#include "store/sql.h"

#define PM_SCHEMA_VERSION 11

/* The database's schema version (0: empty). The first real read of a
 * file: one that is not a database fails here, err saying so. */
int store_schema_version(struct pm_db *db, int *v, struct pm_err *err);
/* Bring db's schema to PM_SCHEMA_VERSION. -1 with err when it is newer
 * than this pressmark's or a migration fails (that one is rolled back). */
int store_schema_migrate(struct pm_db *db, struct pm_err *err);
/* Show a read-only connection to a database of schema v the current schema
 * without changing the file: where every step from v on only adds tables
 * (and their indexes), those tables are made empty in the connection's
 * TEMP schema, which SQLite searches first. 1 done; 0 where a step changes
 * what is there (re-encoded ticks, a replaced view): that needs a migrated
 * copy; -1 with err when a statement fails (the TEMP schema may then hold
 * some of the tables: a copy of the main schema is not affected). */
int store_schema_overlay(struct pm_db *db, int v, struct pm_err *err);

#endif
