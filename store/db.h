#ifndef PM_DB_H
#define PM_DB_H
/* results.db: SQLite in WAL mode so reports read while a run writes;
 * opened private, migrated to the schema (store/schema.h), closed. */
#include <limits.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/err.h"
#include "store/schema.h"
#include "store/sql.h"

/* How long a connection waits for another's write lock (SQLite's busy
 * timeout) before giving up with "database is locked": 10 s for commands;
 * a run's results, measured at the cost of the run, wait two minutes
 * before they are kept beside the database instead (store/unstored.h).
 * Every writer holds the lock for one short transaction at a time. */
#define PM_DB_WAIT_MS 10000
#define PM_DB_RESULT_WAIT_MS 120000
/* PM_DB_RESULT_WAIT_MS, or PRESSMARK_TEST_RESULT_WAIT_MS where the tests
 * set it (so the lock held past the wait is tested in a second). */
int store_db_result_wait_ms(void);

/* The database path chosen by --db (global or per command), PRESSMARK_DB,
 * or the default beside the binary. */
void store_set_db_path(const char *path);
const char *store_db_path(void);

/* Open (and with create, create and migrate) the database. Without create a
 * missing file is an error, so read-only commands never leave an empty db. */
int store_db_open(struct pm_db *db, const char *path, bool create, struct pm_err *err);
void store_db_close(struct pm_db *db);

/* What a command or a run may ask of its connection outside store/, whose
 * statement helpers (store/sql.h) are store/'s alone (make layering). */

/* Wait up to ms for another connection's write lock (default PM_DB_WAIT_MS). */
void store_db_set_wait(struct pm_db *db, int ms);
/* Is the file db writes into no longer the one at its path (removed,
 * renamed, replaced since it was opened)? */
bool store_db_moved(const struct pm_db *db);
/* Did the last failure on db (of store_db_exec or store_db_step_done) come from
 * a full filesystem? */
bool store_db_full(const struct pm_db *db);

#endif
