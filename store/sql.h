#ifndef PM_STORE_SQL_H
#define PM_STORE_SQL_H
/* A connection to a results database and the statement helpers every
 * store file uses: errors name the database, and a failure says whether
 * the filesystem was full. */
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include "lib/err.h"

struct pm_db {
    sqlite3 *h;
    char path[PATH_MAX];
    bool full;                /* the last failed statement failed for a full filesystem */
};

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
