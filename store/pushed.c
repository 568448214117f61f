#include "store/pushed.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"
#include "lib/timeutil.h"

struct heads {
    struct run_head *v;
    size_t n, cap;
};

static int head_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    struct heads *hs = arg;
    if (ALLOC_GROW(hs->v, hs->n + 1, hs->cap) < 0)
        return pm_errf(err, "out of memory");
    struct run_head *h = &hs->v[hs->n++];
    memset(h, 0, sizeof *h);
    h->id = sqlite3_column_int64(st, 0);
    h->started_ns = sqlite3_column_int64(st, 1);
    snprintf(h->uuid, sizeof h->uuid, "%s", store_col_text(st, 2));
    snprintf(h->label, sizeof h->label, "%s", store_col_text(st, 3));
    snprintf(h->workload, sizeof h->workload, "%s", store_col_text(st, 4));
    snprintf(h->status, sizeof h->status, "%s", store_col_text(st, 5));
    snprintf(h->host, sizeof h->host, "%s", store_col_text(st, 6));
    snprintf(h->kernel, sizeof h->kernel, "%s", store_col_text(st, 7));
    return 0;
}

int pushed_pending(struct pm_db *db, const char *url, int64_t only_run, struct run_head **heads, size_t *n,
                   struct pm_err *err)
{
    *heads = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT r.id, r.started_ns, r.uuid, r.label, r.workload, r.status, m.hostname, m.kernel"
                      " FROM run r JOIN machine m ON m.id = r.machine_id"
                      " WHERE r.status != 'running' AND (?2 = 0 OR r.id = ?2)"
                      " AND NOT EXISTS (SELECT 1 FROM pushed p WHERE p.run_id = r.id AND p.url = ?1) ORDER BY r.id", err) < 0)
        return -1;
    if (sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, only_run) != SQLITE_OK)
        return store_db_stmt_error(db, st, err);
    struct heads hs = { 0 };
    int rc = store_db_rows(db, st, head_row, &hs, err);
    sqlite3_finalize(st);
    if (rc < 0) {
        free(hs.v);
        return -1;
    }
    *heads = hs.v;
    *n = hs.n;
    return 0;
}

static int mark_each(struct pm_db *db, sqlite3_stmt *st, const char *url, const int64_t *ids, size_t n,
                     struct pm_err *err)
{
    if (sqlite3_bind_text(st, 2, url, -1, SQLITE_STATIC) != SQLITE_OK)
        return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    for (size_t i = 0; i < n; i++) {
        if (sqlite3_bind_int64(st, 1, ids[i]) != SQLITE_OK || sqlite3_bind_int64(st, 3, pm_wall_ns()) != SQLITE_OK)
            return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
        if (store_db_step_done(db, st, err) < 0)
            return -1;
    }
    return 0;
}

int pushed_mark(struct pm_db *db, const char *url, const int64_t *ids, size_t n, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
        return -1;
    if (store_db_prepare(db, &st, "INSERT OR REPLACE INTO pushed(run_id, url, pushed_ns) VALUES (?,?,?)", err) < 0) {
        store_db_rollback(db);
        return -1;
    }
    int rc = mark_each(db, st, url, ids, n, err);
    sqlite3_finalize(st);
    if (rc < 0 || store_db_exec(db, "COMMIT", err) < 0) {
        store_db_rollback(db);
        return -1;
    }
    return 0;
}
