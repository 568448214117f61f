#ifndef PM_STORE_SQL_H
#define PM_STORE_SQL_H
/* A connection to a results database and the statement helpers every
 * store file uses, and only store files (make layering: SQL is store/'s
 * alone): errors name the database, and a failure says whether the
 * filesystem was full. */
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include "lib/err.h"

struct pm_db {
    sqlite3 *h;
    char path[PATH_MAX];
    bool full;                /* the last failed statement failed for a full filesystem */
};

int store_db_exec(struct pm_db *db, const char *sql, struct pm_err *err);
/* Roll back the transaction, if one is open (a failed COMMIT has already
 * ended it), keeping what store_db_full says of the failure before. */
void store_db_rollback(struct pm_db *db);
int store_db_prepare(struct pm_db *db, sqlite3_stmt **st, const char *sql, struct pm_err *err);
/* A text column, "" for NULL: every reader of a database takes text
 * through this, so a NULL where text belongs (a hostile or broken
 * database) is an empty string, never a NULL pointer. */
const char *store_col_text(sqlite3_stmt *st, int col);
/* For a statement stepped by hand: note why it failed, for store_db_full. */
void store_db_note_failure(struct pm_db *db);
/* Step a statement that returns no rows, then reset it for reuse. */
int store_db_step_done(struct pm_db *db, sqlite3_stmt *st, struct pm_err *err);
/* Step st to its end, handing each row to row(), then reset it for reuse
 * (the caller finalizes it). A step that fails (a corrupt page, a lock)
 * is the database's error, never a short list. 0 at the end; 1 when row()
 * returned 1 (it has what it wanted); -1 with err when row() returned -1
 * (its own error) or a step failed. */
typedef int (*pm_db_row_fn)(sqlite3_stmt *st, void *arg, struct pm_err *err);
int store_db_rows(struct pm_db *db, sqlite3_stmt *st, pm_db_row_fn row, void *arg, struct pm_err *err);
/* A bind or step of st that failed: -1 with err naming the database and
 * SQLite's message, st finalized. */
int store_db_stmt_error(struct pm_db *db, sqlite3_stmt *st, struct pm_err *err);

#endif
