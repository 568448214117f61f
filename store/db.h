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

#define PM_SCHEMA_VERSION 7

/* How long a connection waits for another's write lock (SQLite's busy
 * timeout) before giving up with "database is locked": 10 s for commands;
 * a run's results, measured at the cost of the run, wait two minutes
 * before they are kept beside the database instead (store/unstored.h).
 * Every writer holds the lock for one short transaction at a time. */
#define PM_DB_WAIT_MS 10000
#define PM_DB_RESULT_WAIT_MS 120000
/* PM_DB_RESULT_WAIT_MS, or PRESSMARK_TEST_RESULT_WAIT_MS where the tests
 * set it (so the lock held past the wait is tested in a second). */
int pm_db_result_wait_ms(void);

struct pm_db {
    sqlite3 *h;
    char path[PATH_MAX];
    char copy[PATH_MAX];      /* a private migrated copy, alone in its directory: both removed by pm_db_close */
    bool full;                /* the last failed statement failed for a full filesystem */
};

/* The path used when neither --db nor PRESSMARK_DB says otherwise:
 * results.db beside the pressmark binary, i.e. at the repository root. */
int pm_db_default_path(char *buf, size_t len);

/* Open (and with create, create and migrate) the database. Without create a
 * missing file is an error, so read-only commands never leave an empty db. */
int pm_db_open(struct pm_db *db, const char *path, bool create, struct pm_err *err);
void pm_db_close(struct pm_db *db);
/* Remove a migrated copy: the file, its -wal, -shm and -journal, and the
 * directory of its own it lives in. */
void pm_db_remove_copy(const char *copy);
/* Wait up to ms for another connection's write lock (default PM_DB_WAIT_MS). */
void pm_db_set_wait(struct pm_db *db, int ms);

int pm_db_exec(struct pm_db *db, const char *sql, struct pm_err *err);
/* Roll back the transaction, if one is open (a failed COMMIT has already
 * ended it), keeping what pm_db_full says of the failure before. */
void pm_db_rollback(struct pm_db *db);
int pm_db_prepare(struct pm_db *db, sqlite3_stmt **st, const char *sql, struct pm_err *err);
/* A text column, "" for NULL: every reader of a database takes text
 * through this, so a NULL where text belongs (a hostile or broken
 * database) is an empty string, never a NULL pointer. */
const char *pm_col_text(sqlite3_stmt *st, int col);
/* Is the file db writes into no longer the one at its path (removed,
 * renamed, replaced since it was opened)? */
bool pm_db_moved(const struct pm_db *db);
/* For a statement stepped by hand: note why it failed, for pm_db_full. */
void pm_db_note_failure(struct pm_db *db);
/* Did the last failure on db (of pm_db_exec or pm_db_step_done) come from
 * a full filesystem? */
bool pm_db_full(const struct pm_db *db);
/* Step a statement that returns no rows, then reset it for reuse. */
int pm_db_step_done(struct pm_db *db, sqlite3_stmt *st, struct pm_err *err);

#endif
