/* The batches a cell's kernel was measured in (store/bisects.h): one
 * suite each, so a batch interrupted anywhere continues as a suite does,
 * and what they gave is read from the suites' runs. */
#include "store/bisects.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"

int bisects_batch_count(struct pm_db *db, const char *kernel_key, int *n, struct pm_err *err)
{
    sqlite3_stmt *st;
    *n = 0;
    if (store_db_prepare(db, &st, "SELECT COALESCE(MAX(n), 0) FROM bisect_batch WHERE kernel_key = ?", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, kernel_key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
}

int bisects_batch_get(struct pm_db *db, const char *kernel_key, int n, char *name, size_t namelen, char **text,
                      struct pm_err *err)
{
    sqlite3_stmt *st;
    *text = NULL;
    if (store_db_prepare(db, &st, "SELECT suite_name, text FROM bisect_batch WHERE kernel_key = ? AND n = ?", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, kernel_key, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, n);
    int rc = sqlite3_step(st), found = 0;
    if (rc == SQLITE_ROW) {
        snprintf(name, namelen, "%s", store_col_text(st, 0));
        *text = strdup(store_col_text(st, 1));
        found = *text ? 1 : pm_errf(err, "out of memory");
    } else if (rc != SQLITE_DONE) {
        found = pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    }
    sqlite3_finalize(st);
    return found;
}

int bisects_batch_add(struct pm_db *db, const char *kernel_key, int n, const char *name, const char *text,
                      struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "INSERT INTO bisect_batch(kernel_key, n, suite_name, text) VALUES (?,?,?,?)", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, kernel_key, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, n);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    return rc;
}

/* The runs of a kernel's batches: each batch's suite (by its name), its
 * planned runs' runs. */
#define BATCH_RUNS                                                                                                    \
    " FROM bisect_batch b JOIN suite s ON s.name = b.suite_name JOIN suite_run sr ON sr.suite_id = s.id"              \
    " JOIN run r ON r.id = sr.run_id"

static int read_values(struct pm_db *db, const char *kernel_key, const char *metric, struct bisect_values *out,
                       struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT m.value" BATCH_RUNS " JOIN metric m ON m.run_id = r.id AND m.name = ?2"
                               " WHERE b.kernel_key = ?1 AND r.status = 'ok' ORDER BY r.id", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, kernel_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (pm_alloc_grow((void **)&out->v, sizeof *out->v, out->n + 1, &cap) < 0) {
            sqlite3_finalize(st);
            return pm_errf(err, "out of memory");
        }
        out->v[out->n++] = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
}

/* The batches' boots (their suites complete), failed runs and the newest
 * failure's reason. */
static int read_counts(struct pm_db *db, const char *kernel_key, struct bisect_values *out, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT (SELECT count(*) FROM bisect_batch b JOIN suite s ON s.name = b.suite_name"
                      "  WHERE b.kernel_key = ?1 AND s.state = 'complete'),"
                      " (SELECT count(*)" BATCH_RUNS " WHERE b.kernel_key = ?1 AND r.status IN ('failed','oom')),"
                      " (SELECT r.reason" BATCH_RUNS " WHERE b.kernel_key = ?1 AND r.status IN ('failed','oom')"
                      "  ORDER BY r.id DESC LIMIT 1)", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, kernel_key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->boots = sqlite3_column_int(st, 0);
        out->failed = sqlite3_column_int(st, 1);
        snprintf(out->reason, sizeof out->reason, "%s", store_col_text(st, 2));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
}

int bisects_values(struct pm_db *db, const char *kernel_key, const char *metric, struct bisect_values *out,
                   struct pm_err *err)
{
    memset(out, 0, sizeof *out);
    if (read_values(db, kernel_key, metric, out, err) < 0 || read_counts(db, kernel_key, out, err) < 0) {
        free(out->v);
        out->v = NULL;
        out->n = 0;
        return -1;
    }
    return 0;
}

int bisects_any_run(struct pm_db *db, const char *kernel_key, int64_t *run_id, struct pm_err *err)
{
    sqlite3_stmt *st;
    *run_id = 0;
    if (store_db_prepare(db, &st, "SELECT r.id" BATCH_RUNS " WHERE b.kernel_key = ?1 AND r.status = 'ok'"
                               " ORDER BY r.id DESC LIMIT 1", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, kernel_key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *run_id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
}
