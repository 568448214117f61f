#include "store/runinfo.h"
#include "lib/alloc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_col(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

int store_run_info_load(struct pm_db *db, int64_t id, struct run_info *ri, struct pm_err *err)
{
    memset(ri, 0, sizeof *ri);
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT r.id, r.uuid, r.label, r.workload, r.params, r.started_ns, r.ended_ns,"
                      " r.interval_ns, r.status, r.reason, m.hostname, m.kernel, m.mem_total_kb, m.page_size,"
                      " (SELECT count(*) FROM tick t WHERE t.run_id = r.id)"
                      " FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return pm_errf(err, "no run %lld in %s", (long long)id, db->path);
    }
    ri->id = sqlite3_column_int64(st, 0);
    copy_col(st, 1, ri->uuid, sizeof ri->uuid);
    copy_col(st, 2, ri->label, sizeof ri->label);
    copy_col(st, 3, ri->workload, sizeof ri->workload);
    copy_col(st, 4, ri->params, sizeof ri->params);
    ri->started_ns = sqlite3_column_int64(st, 5);
    ri->ended_ns = sqlite3_column_int64(st, 6);
    ri->interval_ns = sqlite3_column_int64(st, 7);
    copy_col(st, 8, ri->status, sizeof ri->status);
    copy_col(st, 9, ri->reason, sizeof ri->reason);
    copy_col(st, 10, ri->hostname, sizeof ri->hostname);
    copy_col(st, 11, ri->kernel, sizeof ri->kernel);
    ri->mem_total_kb = sqlite3_column_int64(st, 12);
    ri->page_size = sqlite3_column_int64(st, 13);
    ri->ticks = sqlite3_column_int64(st, 14);
    sqlite3_finalize(st);

    if (store_db_prepare(db, &st, "SELECT name, value, unit, direction FROM metric WHERE run_id = ? ORDER BY name", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW)
        metric_set_put(&ri->metrics, store_col_text(st, 0), sqlite3_column_double(st, 1),
                       store_col_text(st, 2),
                       metric_dir_parse(store_col_text(st, 3)));
    sqlite3_finalize(st);

    if (store_db_prepare(db, &st, "SELECT key, value FROM run_meta WHERE run_id = ? ORDER BY key", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW)
        pm_kv_set(&ri->meta, store_col_text(st, 0), store_col_text(st, 1));
    sqlite3_finalize(st);

    if (store_db_prepare(db, &st,
                      "SELECT source, path, ticks, note FROM run_source WHERE run_id = ? ORDER BY"
                      " CASE source WHEN 'stat' THEN 0 WHEN 'vmstat' THEN 1 WHEN 'meminfo' THEN 2"
                      " WHEN 'psi' THEN 3 WHEN 'memcg' THEN 4 WHEN 'heartbeat' THEN 5 WHEN 'buddyinfo' THEN 6"
                      " WHEN 'zoneinfo' THEN 7 WHEN 'diskstats' THEN 8 WHEN 'procs' THEN 9 WHEN 'mthp' THEN 10"
                      " ELSE 11 END, path", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct run_source_info *v = realloc(ri->sources, (ri->nsources + 1) * sizeof *v);
        if (!v)
            break;
        ri->sources = v;
        struct run_source_info *s = &ri->sources[ri->nsources++];
        copy_col(st, 0, s->source, sizeof s->source);
        copy_col(st, 1, s->path, sizeof s->path);
        s->ticks = sqlite3_column_int64(st, 2);
        copy_col(st, 3, s->note, sizeof s->note);
    }
    sqlite3_finalize(st);
    if (store_db_prepare(db, &st, "SELECT symbol, samples, pct_kernel FROM profile WHERE run_id = ? ORDER BY rank", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    while (ri->nprofile < 10 && sqlite3_step(st) == SQLITE_ROW) {
        copy_col(st, 0, ri->profile[ri->nprofile].symbol, sizeof ri->profile[0].symbol);
        ri->profile[ri->nprofile].samples = sqlite3_column_int64(st, 1);
        ri->profile[ri->nprofile].pct_kernel = sqlite3_column_double(st, 2);
        ri->nprofile++;
    }
    sqlite3_finalize(st);
    return 0;
}

void store_run_info_free(struct run_info *ri)
{
    metric_set_free(&ri->metrics);
    pm_kv_free(&ri->meta);
    free(ri->sources);
    ri->sources = NULL;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

int store_run_select(struct pm_db *db, const char *selector, int64_t **ids, struct pm_err *err)
{
    sqlite3_stmt *st;
    const char *sql = all_digits(selector)
        ? "SELECT id FROM run WHERE id = ?1 OR label = ?2 ORDER BY workload, id"
        : "SELECT id FROM run WHERE uuid = ?2 OR label = ?2 ORDER BY workload, id";
    if (store_db_prepare(db, &st, sql, err) < 0)
        return -1;
    if (all_digits(selector))
        sqlite3_bind_int64(st, 1, strtoll(selector, NULL, 10));
    sqlite3_bind_text(st, 2, selector, -1, SQLITE_STATIC);
    size_t n = 0, cap = 0;
    int64_t *v = NULL;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (ALLOC_GROW(v, n + 1, cap) < 0) {
            free(v);
            sqlite3_finalize(st);
            return pm_errf(err, "out of memory");
        }
        v[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    *ids = v;
    return (int)n;
}

int64_t store_run_latest(struct pm_db *db, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT max(id) FROM run", err) < 0)
        return -1;
    int64_t id = 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

int store_run_label_count(struct pm_db *db, const char *label, size_t *n, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT count(*) FROM run WHERE label = ?", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
    *n = sqlite3_step(st) == SQLITE_ROW ? (size_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return 0;
}

int store_run_head_load(struct pm_db *db, int64_t id, struct run_head *h, struct pm_err *err)
{
    memset(h, 0, sizeof *h);
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT r.id, r.started_ns, r.uuid, r.label, r.workload, r.status, m.hostname, m.kernel"
                      " FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        h->id = sqlite3_column_int64(st, 0);
        h->started_ns = sqlite3_column_int64(st, 1);
        copy_col(st, 2, h->uuid, sizeof h->uuid);
        copy_col(st, 3, h->label, sizeof h->label);
        copy_col(st, 4, h->workload, sizeof h->workload);
        copy_col(st, 5, h->status, sizeof h->status);
        copy_col(st, 6, h->host, sizeof h->host);
        copy_col(st, 7, h->kernel, sizeof h->kernel);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return pm_errf(err, "no run %lld in %s", (long long)id, db->path);
    return pm_errf(err, "%s: reading run %lld: %s", db->path, (long long)id, sqlite3_errstr(rc));
}

/* Step st to its end, handing each row to each(); the step's own error
 * (a corrupt page) is the database's, not a short list. */
static int each_row(struct pm_db *db, sqlite3_stmt *st, int (*each)(sqlite3_stmt *st, void *arg, struct pm_err *err),
                    void *arg, struct pm_err *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (each(st, arg, err) < 0) {
            sqlite3_finalize(st);
            return -1;
        }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return pm_errf(err, "%s: %s", db->path, sqlite3_errstr(rc));
    return 0;
}

struct metric_cb {
    run_metric_fn fn;
    run_meta_fn meta_fn;
    void *ctx;
};

static int metric_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    struct metric_cb *cb = arg;
    return cb->fn(cb->ctx, store_col_text(st, 0), sqlite3_column_double(st, 1), store_col_text(st, 2), store_col_text(st, 3),
                  err);
}

static int meta_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    struct metric_cb *cb = arg;
    return cb->meta_fn(cb->ctx, store_col_text(st, 0), store_col_text(st, 1), err);
}

int store_run_metrics_each(struct pm_db *db, int64_t id, run_metric_fn fn, void *ctx, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT name, value, unit, direction FROM metric WHERE run_id = ? ORDER BY name", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    struct metric_cb cb = { .fn = fn, .ctx = ctx };
    return each_row(db, st, metric_row, &cb, err);
}

int store_run_meta_each(struct pm_db *db, int64_t id, run_meta_fn fn, void *ctx, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT key, value FROM run_meta WHERE run_id = ? ORDER BY key", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    struct metric_cb cb = { .meta_fn = fn, .ctx = ctx };
    return each_row(db, st, meta_row, &cb, err);
}

struct id_each {
    run_id_fn fn;
    void *ctx;
};

static int id_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    const struct id_each *e = arg;
    return e->fn(e->ctx, sqlite3_column_int64(st, 0), err);
}

/* One statement, every field's condition off when it is NULL; open while
 * fn reads each run, so that the list and what fn reads are one read's. */
int store_run_list_each(struct pm_db *db, const struct run_filter *f, run_id_fn fn, void *ctx, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT id FROM run WHERE (?1 IS NULL OR label = ?1) AND (?2 IS NULL OR workload = ?2)"
                      " AND (?3 IS NULL OR id IN (SELECT run_id FROM run_meta WHERE key = 'suite.uuid' AND value = ?3))"
                      " ORDER BY id", err) < 0)
        return -1;
    if (sqlite3_bind_text(st, 1, f->label, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 2, f->workload, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 3, f->suite_uuid, -1, SQLITE_STATIC) != SQLITE_OK)
        return store_db_stmt_error(db, st, err);
    struct id_each e = { fn, ctx };
    int rc = store_db_rows(db, st, id_row, &e, err);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

/* Each run's first row, the key bound once: the key is part of the
 * primary key, but a foreign database is data, so a table without that
 * key still hands over one row a run (a callback may count on n). */
static int key_each(struct pm_db *db, sqlite3_stmt *st, const int64_t *ids, size_t n, const char *key,
                    pm_db_row_fn row, struct metric_cb *cb, struct pm_err *err)
{
    if (sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC) != SQLITE_OK)
        return store_db_stmt_error(db, st, err);
    int said = 0;
    for (size_t i = 0; i < n && said == 0; i++) {
        if (sqlite3_bind_int64(st, 1, ids[i]) != SQLITE_OK)
            return store_db_stmt_error(db, st, err);
        int rc = sqlite3_step(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return store_db_stmt_error(db, st, err);
        if (rc == SQLITE_ROW)
            said = row(st, cb, err);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return said < 0 ? -1 : 0;
}

int store_run_meta_key_each(struct pm_db *db, const int64_t *ids, size_t n, const char *key, run_meta_fn fn, void *ctx,
                      struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT key, value FROM run_meta WHERE run_id = ?1 AND key = ?2", err) < 0)
        return -1;
    struct metric_cb cb = { .meta_fn = fn, .ctx = ctx };
    return key_each(db, st, ids, n, key, meta_row, &cb, err);
}

int store_run_metric_key_each(struct pm_db *db, const int64_t *ids, size_t n, const char *name, run_metric_fn fn,
                        void *ctx, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT name, value, unit, direction FROM metric WHERE run_id = ?1 AND name = ?2",
                      err) < 0)
        return -1;
    struct metric_cb cb = { .fn = fn, .ctx = ctx };
    return key_each(db, st, ids, n, name, metric_row, &cb, err);
}

static int found_row(sqlite3_stmt *st, void *arg, struct pm_err *err)
{
    (void)st;
    (void)err;
    *(bool *)arg = true;
    return 1;
}

int store_run_meta_any(struct pm_db *db, const int64_t *ids, size_t n, const char *key, const char *value, bool *any,
                 struct pm_err *err)
{
    *any = false;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT 1 FROM run_meta WHERE run_id = ?1 AND key = ?2 AND value = ?3", err) < 0)
        return -1;
    if (sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC) != SQLITE_OK)
        return store_db_stmt_error(db, st, err);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (sqlite3_bind_int64(st, 1, ids[i]) != SQLITE_OK)
            return store_db_stmt_error(db, st, err);
        rc = store_db_rows(db, st, found_row, any, err);
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

double store_run_metric_or(const struct run_info *ri, const char *name, double fallback)
{
    const struct metric *m = metric_set_find(&ri->metrics, name);
    return m ? m->value : fallback;
}
