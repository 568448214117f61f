#include "store/sql.h"
#include <errno.h>
#include <stddef.h>

/* Whether a failure came from a full filesystem is read at once: the
 * ROLLBACK that follows a failed write resets SQLite's error code.
 * SQLITE_FULL from a write; a WAL index that cannot grow is an I/O error
 * whose system errno says why (SQLite sets that errno only with I/O
 * errors, and keeps it afterwards). Each call of store_db_exec, prepare and
 * step_done says for itself. */
void store_db_note_failure(struct pm_db *db)
{
    int ec = sqlite3_extended_errcode(db->h) & 0xff;
    db->full = ec == SQLITE_FULL || (ec == SQLITE_IOERR && sqlite3_system_errno(db->h) == ENOSPC);
}

int store_db_exec(struct pm_db *db, const char *sql, struct pm_err *err)
{
    char *msg = NULL;
    db->full = false;
    if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        store_db_note_failure(db);
        pm_errf(err, "%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

void store_db_rollback(struct pm_db *db)
{
    if (db->h && !sqlite3_get_autocommit(db->h))
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

int store_db_prepare(struct pm_db *db, sqlite3_stmt **st, const char *sql, struct pm_err *err)
{
    db->full = false;
    if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK) {
        store_db_note_failure(db);
        return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    }
    return 0;
}

int store_db_step_done(struct pm_db *db, sqlite3_stmt *st, struct pm_err *err)
{
    db->full = false;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        store_db_note_failure(db);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}

const char *store_col_text(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : "";
}

int store_db_stmt_error(struct pm_db *db, sqlite3_stmt *st, struct pm_err *err)
{
    pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    sqlite3_finalize(st);
    return -1;
}

/* The reset's own result is the failed step's again (already told). */
int store_db_rows(struct pm_db *db, sqlite3_stmt *st, pm_db_row_fn row, void *arg, struct pm_err *err)
{
    int rc, said = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && (said = row(st, arg, err)) == 0)
        ;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        said = pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    sqlite3_reset(st);
    return said;
}
