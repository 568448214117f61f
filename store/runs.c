#include "store/runs.h"
#include <stdio.h>
#include <string.h>
#include "lib/fileio.h"
#include "lib/timeutil.h"

bool store_run_label_ok(const char *label)
{
    size_t n = strlen(label);
    return n >= 1 && n <= RUN_LABEL_MAX && label[0] != '-';
}

bool store_run_uuid_ok(const char *uuid)
{
    size_t i = 0;
    for (; uuid[i] && i < 36; i++)
        if (i == 8 || i == 13 || i == 18 || i == 23 ? uuid[i] != '-' : !strchr("0123456789abcdef", uuid[i]))
            return false;
    return i == 36 && !uuid[i];
}

static int new_uuid(char *buf, size_t len)
{
    if (pm_read_file("/proc/sys/kernel/random/uuid", buf, len) < 0 || strlen(buf) != 36)
        return -1;
    return 0;
}

int store_run_insert(struct pm_db *db, int64_t machine_id, struct run_row *row, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "INSERT INTO run(uuid, machine_id, label, workload, params, started_ns, interval_ns, status)"
                      " VALUES (?,?,?,?,?,?,?,'running')", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, row->uuid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, machine_id);
    sqlite3_bind_text(st, 3, row->label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, row->workload, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, row->params, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, row->started_ns);
    sqlite3_bind_int64(st, 7, (int64_t)row->interval_ns);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    row->id = sqlite3_last_insert_rowid(db->h);
    return 0;
}

int store_run_begin(struct pm_db *db, int64_t machine_id, struct run_row *row, struct pm_err *err)
{
    if (new_uuid(row->uuid, sizeof row->uuid) < 0)
        return pm_errf(err, "cannot read a UUID from /proc/sys/kernel/random/uuid");
    row->started_ns = pm_wall_ns();
    return store_run_insert(db, machine_id, row, err);
}

int store_run_meta(struct pm_db *db, int64_t run_id, const struct kv_list *meta, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "INSERT OR REPLACE INTO run_meta(run_id, key, value) VALUES (?,?,?)", err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; meta && i < meta->n && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, meta->v[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, meta->v[i].value, -1, SQLITE_STATIC);
        rc = store_db_step_done(db, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

static int store_metrics(struct pm_db *db, int64_t run_id, const struct metric_set *ms, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "INSERT OR REPLACE INTO metric(run_id, name, value, unit, direction) VALUES (?,?,?,?,?)",
                      err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; ms && i < ms->n && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, ms->v[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 3, ms->v[i].value);
        sqlite3_bind_text(st, 4, ms->v[i].unit, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, ms->v[i].direction, -1, SQLITE_STATIC);
        rc = store_db_step_done(db, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

static int store_sources(struct pm_db *db, int64_t run_id, const struct run_source *cols, size_t n,
                         struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "INSERT OR REPLACE INTO run_source(run_id, source, path, ticks, note) VALUES (?,?,?,?,?)",
                      err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, cols[i].source, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, cols[i].path, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, (int64_t)cols[i].ticks);
        if (cols[i].note && cols[i].note[0])
            sqlite3_bind_text(st, 5, cols[i].note, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        rc = store_db_step_done(db, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

static int store_symbols(struct pm_db *db, int64_t run_id, const struct run_symbol *v, size_t n,
                         struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "INSERT OR REPLACE INTO profile(run_id, rank, symbol, samples, pct_kernel, pct_all)"
                               " VALUES (?,?,?,?,?,?)", err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (int64_t)i + 1);
        sqlite3_bind_text(st, 3, v[i].symbol, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, v[i].samples);
        sqlite3_bind_double(st, 5, v[i].pct_kernel);
        sqlite3_bind_double(st, 6, v[i].pct_all);
        rc = store_db_step_done(db, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

int store_run_record(struct pm_db *db, int64_t run_id, const struct run_record *rec, struct pm_err *err)
{
    if (store_run_meta(db, run_id, rec->meta, err) < 0 || store_metrics(db, run_id, rec->metrics, err) < 0 ||
        store_sources(db, run_id, rec->sources, rec->nsources, err) < 0 ||
        store_symbols(db, run_id, rec->symbols, rec->nsymbols, err) < 0 ||
        store_run_texts(db, run_id, rec->texts, err) < 0)
        return -1;
    for (size_t i = 0; rec->hists && i < rec->hists->n; i++)
        if (store_latency_hist(db, run_id, rec->hists->v[i].name, &rec->hists->v[i].h, err) < 0)
            return -1;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "UPDATE run SET status = ?, reason = ?, ended_ns = ? WHERE id = ?", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, rec->status, -1, SQLITE_STATIC);
    if (rec->reason && *rec->reason)
        sqlite3_bind_text(st, 2, rec->reason, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, rec->ended_ns ? rec->ended_ns : pm_wall_ns());
    sqlite3_bind_int64(st, 4, run_id);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    return rc;
}

int store_run_end(struct pm_db *db, int64_t run_id, const struct run_record *rec, struct pm_err *err)
{
    if (store_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
        return -1;
    if (store_run_record(db, run_id, rec, err) < 0) {
        store_db_rollback(db);
        return -1;
    }
    if (store_db_exec(db, "COMMIT", err) < 0) {
        store_db_rollback(db);
        return -1;
    }
    /* SQLite goes on writing into a database file that was removed (or
     * renamed, or replaced) while it was open: committed, but to a file
     * nobody will read again. */
    if (store_db_moved(db))
        return pm_errf(err, "%s was removed or replaced while the run went on: what was written since went with "
                       "the old file", db->path);
    return 0;
}

int store_run_abandoned(struct pm_db *db, const char *reason, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "UPDATE run SET status = 'aborted', reason = ? WHERE status = 'running'", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, reason, -1, SQLITE_STATIC);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : sqlite3_changes(db->h);
}
