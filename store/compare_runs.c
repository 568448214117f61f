#include "store/compare_runs.h"

struct name_cb {
    store_compare_name_fn fn;
    void *ctx;
};

/* A name column handed on, for the workloads and the labels. */
static int name_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    const struct name_cb *cb = arg;
    return cb->fn(cb->ctx, store_col_text(st, 0), err);
}

int store_compare_workloads(struct pm_db *db, const char *const *labels, size_t nlabels, store_compare_name_fn fn,
                            void *ctx, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT workload FROM run WHERE (?1 IS NULL OR label = ?1) GROUP BY workload ORDER BY min(id)",
                      err) < 0)
        return -1;
    struct name_cb cb = { fn, ctx };
    int rc = 0;
    for (size_t i = 0; i < (nlabels ? nlabels : 1) && rc == 0; i++) {
        if (sqlite3_bind_text(st, 1, nlabels ? labels[i] : NULL, -1, SQLITE_STATIC) != SQLITE_OK)
            return store_db_stmt_error(db, st, err);
        rc = store_db_rows(db, st, name_row, &cb, err);
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

int store_compare_labels(struct pm_db *db, const char *workload, store_compare_name_fn fn, void *ctx,
                         struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT label FROM run WHERE workload = ? GROUP BY label ORDER BY min(id)", err) < 0)
        return -1;
    if (sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC) != SQLITE_OK)
        return store_db_stmt_error(db, st, err);
    struct name_cb cb = { fn, ctx };
    int rc = store_db_rows(db, st, name_row, &cb, err);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

/* Workload, label and suite as ?1, ?2 and ?3, NULL binding NULL (any). */
static int bind_cell(struct pm_db *db, sqlite3_stmt *st, const char *workload, const char *label, const char *suite,
                     struct pm_err *err)
{
    if (sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 3, suite, -1, SQLITE_STATIC) != SQLITE_OK)
        return store_db_stmt_error(db, st, err);
    return 0;
}

struct run_cb {
    store_compare_run_fn run_fn;
    store_compare_value_fn value_fn;
    void *ctx;
};

static int run_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    const struct run_cb *cb = arg;
    return cb->run_fn(cb->ctx, sqlite3_column_int64(st, 0), store_col_text(st, 1), err);
}

int store_compare_runs(struct pm_db *db, const char *workload, const char *label, const char *suite,
                       store_compare_run_fn fn, void *ctx, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT id, status FROM run WHERE workload = ?1 AND (?2 IS NULL OR label = ?2)"
                      " AND (?3 IS NULL OR (status != 'aborted' AND id IN"
                      " (SELECT run_id FROM run_meta WHERE key = 'suite.uuid' AND value = ?3)))"
                      " ORDER BY id", err) < 0 ||
        bind_cell(db, st, workload, label, suite, err) < 0)
        return -1;
    struct run_cb cb = { .run_fn = fn, .ctx = ctx };
    int rc = store_db_rows(db, st, run_row, &cb, err);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

static int value_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    const struct run_cb *cb = arg;
    return cb->value_fn(cb->ctx, sqlite3_column_int64(st, 4), store_col_text(st, 0), sqlite3_column_double(st, 1),
                        store_col_text(st, 2), store_col_text(st, 3), err);
}

int store_compare_values(struct pm_db *db, const char *workload, const char *label, const char *suite,
                         store_compare_value_fn fn, void *ctx, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT m.name, m.value, m.unit, m.direction, r.id FROM run r JOIN metric m ON m.run_id = r.id"
                      " WHERE r.workload = ?1 AND (?2 IS NULL OR r.label = ?2) AND r.status = 'ok'"
                      " AND (?3 IS NULL OR r.id IN (SELECT run_id FROM run_meta WHERE key = 'suite.uuid' AND value = ?3))"
                      " ORDER BY r.id", err) < 0 ||
        bind_cell(db, st, workload, label, suite, err) < 0)
        return -1;
    struct run_cb cb = { .value_fn = fn, .ctx = ctx };
    int rc = store_db_rows(db, st, value_row, &cb, err);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

struct env_cb {
    run_meta_fn fn;
    void *ctx;
};

static int env_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    const struct env_cb *cb = arg;
    return cb->fn(cb->ctx, store_col_text(st, 0), store_col_text(st, 1), err);
}

int store_compare_env(struct pm_db *db, int64_t run_id, run_meta_fn fn, void *ctx, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT key, value FROM run_meta WHERE run_id = ?1"
                      " UNION ALL SELECT 'kernel', m.kernel FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?1"
                      " UNION ALL SELECT 'cmdline', m.cmdline FROM run r JOIN machine m ON m.id = r.machine_id"
                      " WHERE r.id = ?1", err) < 0)
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK)
        return store_db_stmt_error(db, st, err);
    struct env_cb cb = { fn, ctx };
    int rc = store_db_rows(db, st, env_row, &cb, err);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}
