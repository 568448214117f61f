#include "store/suites.h"
#include "store/headline.h"
#include "lib/alloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/fileio.h"
#include "lib/timeutil.h"

void store_suite_rec_free(struct suite_rec *s)
{
    free(s->text);
    s->text = NULL;
}

static const char suite_cols[] = "id, uuid, name, path, digest, text, created_ns, seed, state";

static void read_rec(sqlite3_stmt *st, struct suite_rec *s)
{
    memset(s, 0, sizeof *s);
    s->id = sqlite3_column_int64(st, 0);
    snprintf(s->uuid, sizeof s->uuid, "%s", store_col_text(st, 1));
    snprintf(s->name, sizeof s->name, "%s", store_col_text(st, 2));
    snprintf(s->path, sizeof s->path, "%s", store_col_text(st, 3));
    snprintf(s->digest, sizeof s->digest, "%s", store_col_text(st, 4));
    s->text = strdup(store_col_text(st, 5));
    s->created_ns = sqlite3_column_int64(st, 6);
    s->seed = (uint64_t)sqlite3_column_int64(st, 7);
    snprintf(s->state, sizeof s->state, "%s", store_col_text(st, 8));
}

static int get_one(struct pm_db *db, const char *where, const char *text_arg, int64_t int_arg, struct suite_rec *out,
                   struct pm_err *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT %s FROM suite WHERE %s ORDER BY id DESC LIMIT 1", suite_cols, where);
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, sql, err) < 0)
        return -1;
    if (text_arg)
        sqlite3_bind_text(st, 1, text_arg, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(st, 1, int_arg);
    int rc = sqlite3_step(st);
    int found = 0;
    if (rc == SQLITE_ROW) {
        read_rec(st, out);
        found = out->text ? 1 : pm_errf(err, "out of memory");
    } else if (rc != SQLITE_DONE) {
        found = pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    }
    sqlite3_finalize(st);
    return found;
}

int suites_latest(struct pm_db *db, const char *name, struct suite_rec *out, struct pm_err *err)
{
    return get_one(db, "name = ?1", name, 0, out, err);
}

int suites_get(struct pm_db *db, int64_t id, struct suite_rec *out, struct pm_err *err)
{
    return get_one(db, "id = ?1", NULL, id, out, err);
}

int suites_create(struct pm_db *db, struct suite_rec *s, struct pm_err *err)
{
    /* A guest's suite carries its host's UUID (set by the caller). */
    if (strlen(s->uuid) != 36 &&
        (pm_read_file("/proc/sys/kernel/random/uuid", s->uuid, sizeof s->uuid) < 0 || strlen(s->uuid) != 36))
        return pm_errf(err, "cannot read a UUID from /proc/sys/kernel/random/uuid");
    s->created_ns = pm_wall_ns();
    snprintf(s->state, sizeof s->state, "running");
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "INSERT INTO suite(uuid, name, path, digest, text, created_ns, seed, state)"
                      " VALUES (?,?,?,?,?,?,?,'running')", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, s->uuid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, s->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, s->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, s->digest, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, s->text ? s->text : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, s->created_ns);
    sqlite3_bind_int64(st, 7, (int64_t)s->seed);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    s->id = sqlite3_last_insert_rowid(db->h);
    return 0;
}

/* One statement, bound from a format of 'i' (int64) and 't' (text). */
static int exec_bound(struct pm_db *db, const char *sql, const char *fmt, const void *const *args, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, sql, err) < 0)
        return -1;
    for (int i = 0; fmt[i]; i++) {
        if (fmt[i] == 'i')
            sqlite3_bind_int64(st, i + 1, *(const int64_t *)args[i]);
        else
            sqlite3_bind_text(st, i + 1, (const char *)args[i], -1, SQLITE_STATIC);
    }
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    return rc;
}

int suites_update_file(struct pm_db *db, int64_t id, const char *digest, const char *text, struct pm_err *err)
{
    const void *a[] = { digest, text, &id };
    return exec_bound(db, "UPDATE suite SET digest = ?1, text = ?2 WHERE id = ?3", "tti", a, err);
}

int suites_set_state(struct pm_db *db, int64_t id, const char *state, struct pm_err *err)
{
    const void *a[] = { state, &id };
    return exec_bound(db, "UPDATE suite SET state = ?1 WHERE id = ?2", "ti", a, err);
}

int suites_put_cell(struct pm_db *db, int64_t suite_id, int idx, const char *label, const char *workload,
                    const char *headline, const char *axes_json, struct pm_err *err)
{
    int64_t i = idx;
    const void *a[] = { &suite_id, &i, label, workload, headline, axes_json };
    return exec_bound(db,
                      "INSERT OR REPLACE INTO suite_cell(suite_id, idx, label, workload, headline, axes)"
                      " VALUES (?,?,?,?,?,?)", "iitttt", a, err);
}

int suites_add_slot(struct pm_db *db, int64_t suite_id, int64_t seq, int round, int cell, struct pm_err *err)
{
    int64_t r = round, c = cell;
    const void *a[] = { &suite_id, &seq, &r, &c };
    return exec_bound(db, "INSERT INTO suite_run(suite_id, seq, round, cell) VALUES (?,?,?,?)", "iiii", a, err);
}

int suites_link_run(struct pm_db *db, int64_t suite_id, int64_t seq, int64_t run_id, struct pm_err *err)
{
    const void *a[] = { &run_id, &suite_id, &seq };
    return exec_bound(db, "UPDATE suite_run SET run_id = ?1 WHERE suite_id = ?2 AND seq = ?3", "iii", a, err);
}

/* Step st to its end, each row read by row() into the next element of a
 * growing array (*v, *n; elem bytes each, zeroed first). st is finalized. */
static int read_rows(struct pm_db *db, sqlite3_stmt *st, void **v, size_t *n, size_t elem,
                     void (*row)(sqlite3_stmt *st, void *out), struct pm_err *err)
{
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (pm_alloc_grow(v, elem, *n + 1, &cap) < 0) {
            sqlite3_finalize(st);
            return pm_errf(err, "out of memory");
        }
        void *out = (char *)*v + elem * (*n)++;
        memset(out, 0, elem);
        row(st, out);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}

static void slot_row(sqlite3_stmt *st, void *out)
{
    struct suite_slot *s = out;
    s->seq = sqlite3_column_int64(st, 0);
    s->round = sqlite3_column_int(st, 1);
    s->cell = sqlite3_column_int(st, 2);
    s->run_id = sqlite3_column_int64(st, 3);
    snprintf(s->status, sizeof s->status, "%s", store_col_text(st, 4));
    s->has_value = sqlite3_column_type(st, 5) != SQLITE_NULL;
    s->value = sqlite3_column_double(st, 5);
    s->elapsed_s = sqlite3_column_type(st, 6) != SQLITE_NULL ? sqlite3_column_double(st, 6) : 0;
    s->own_headline = sqlite3_column_int(st, 7) != 0;
    /* A unit is shown: only a plain one is kept. */
    snprintf(s->unit, sizeof s->unit, "%s", store_col_text(st, 8));
    if (!headline_unit_plain(s->unit))
        s->unit[0] = '\0';
}

static void cell_row(sqlite3_stmt *st, void *out)
{
    struct suite_cell_rec *c = out;
    c->idx = sqlite3_column_int(st, 0);
    snprintf(c->label, sizeof c->label, "%s", store_col_text(st, 1));
    snprintf(c->workload, sizeof c->workload, "%s", store_col_text(st, 2));
    snprintf(c->headline, sizeof c->headline, "%s", store_col_text(st, 3));
    snprintf(c->axes, sizeof c->axes, "%s", store_col_text(st, 4));
}

int suites_slots(struct pm_db *db, int64_t suite_id, struct suite_slot **v, size_t *n, struct pm_err *err)
{
    *v = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT s.seq, s.round, s.cell, s.run_id, r.status, m.value, (r.ended_ns - r.started_ns) / 1e9,"
                      " h.value IS NOT NULL, m.unit"
                      " FROM suite_run s LEFT JOIN suite_cell c ON c.suite_id = s.suite_id AND c.idx = s.cell"
                      " LEFT JOIN run r ON r.id = s.run_id"
                      " LEFT JOIN run_meta h ON h.run_id = s.run_id AND h.key = 'headline'"
                      " LEFT JOIN metric m ON m.run_id = s.run_id AND m.name = coalesce(h.value, c.headline)"
                      " WHERE s.suite_id = ? ORDER BY s.seq", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, suite_id);
    return read_rows(db, st, (void **)v, n, sizeof **v, slot_row, err);
}

int suites_each(struct pm_db *db, void (*fn)(void *arg, const struct suite_rec *s, int cells, int planned, int finished),
                void *arg, struct pm_err *err)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT %s, (SELECT count(*) FROM suite_cell c WHERE c.suite_id = suite.id),"
             " (SELECT count(*) FROM suite_run s WHERE s.suite_id = suite.id),"
             " (SELECT count(*) FROM suite_run s JOIN run r ON r.id = s.run_id WHERE s.suite_id = suite.id"
             "  AND r.status IN ('ok','failed','oom')) FROM suite ORDER BY id", suite_cols);
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, sql, err) < 0)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct suite_rec s;
        read_rec(st, &s);
        fn(arg, &s, sqlite3_column_int(st, 9), sqlite3_column_int(st, 10), sqlite3_column_int(st, 11));
        store_suite_rec_free(&s);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}

int suites_estimate(struct pm_db *db, const char *workload, const char *label, const char *params, double *secs,
                    int *n, struct pm_err *err)
{
    *secs = 0;
    *n = 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT count(*), avg((ended_ns - started_ns) / 1e9) FROM run WHERE workload = ? AND label = ?"
                      " AND params = ? AND status = 'ok' AND ended_ns IS NOT NULL", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, params, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *n = sqlite3_column_int(st, 0);
        *secs = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}

static void value_row(sqlite3_stmt *st, void *out)
{
    *(double *)out = sqlite3_column_double(st, 0);
}

int suites_earlier_values(struct pm_db *db, const char *workload, const char *label, const char *params,
                          const char *metric, double **v, size_t *n, struct pm_err *err)
{
    *v = NULL;
    *n = 0;
    sqlite3_stmt *st;
    /* The runs suites_estimate counts, those of them that stored the metric. */
    if (store_db_prepare(db, &st,
                      "SELECT m.value FROM run r JOIN metric m ON m.run_id = r.id AND m.name = ?4"
                      " WHERE r.workload = ?1 AND r.label = ?2 AND r.params = ?3 AND r.status = 'ok'"
                      " AND r.ended_ns IS NOT NULL ORDER BY r.id", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, params, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, metric, -1, SQLITE_STATIC);
    if (read_rows(db, st, (void **)v, n, sizeof **v, value_row, err) < 0) {
        free(*v);
        *v = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

int suites_cells(struct pm_db *db, int64_t suite_id, struct suite_cell_rec **v, size_t *n, struct pm_err *err)
{
    *v = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT idx, label, workload, headline, axes FROM suite_cell WHERE suite_id = ? ORDER BY idx",
                      err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, suite_id);
    return read_rows(db, st, (void **)v, n, sizeof **v, cell_row, err);
}

int suites_latest_id(struct pm_db *db, int64_t *id, struct pm_err *err)
{
    *id = 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT max(id) FROM suite", err) < 0)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

int suites_adopt_runs(struct pm_db *db, int64_t suite_id, const struct suite_adoption *runs, size_t nruns,
                      int *n, struct pm_err *err)
{
    *n = 0;
    sqlite3_stmt *find;
    int64_t seq = 0;
    if (store_db_prepare(db, &find, "SELECT COALESCE(MAX(seq) + 1, 0) FROM suite_run WHERE suite_id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(find, 1, suite_id);
    if (sqlite3_step(find) == SQLITE_ROW)
        seq = sqlite3_column_int64(find, 0);
    sqlite3_finalize(find);
    /* Each run by its UUID exactly, its cell and round as chosen: nothing
     * is read back from the meta rows a guest wrote. */
    if (store_db_prepare(db, &find, "SELECT r.id FROM run r WHERE r.uuid = ?1 COLLATE BINARY AND NOT EXISTS"
                                 " (SELECT 1 FROM suite_run s WHERE s.suite_id = ?2 AND s.run_id = r.id)", err) < 0)
        return -1;
    int rc = 0;
    char sid[24];
    snprintf(sid, sizeof sid, "%lld", (long long)suite_id);
    for (size_t i = 0; i < nruns && rc == 0; i++) {
        sqlite3_reset(find);
        sqlite3_bind_text(find, 1, runs[i].uuid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(find, 2, suite_id);
        if (sqlite3_step(find) != SQLITE_ROW)
            continue;               /* not merged (a merge refused it), or adopted already */
        int64_t rid = sqlite3_column_int64(find, 0);
        /* The guest's own suite id means nothing here: the host's replaces it. */
        const void *a[] = { sid, &rid };
        if (suites_add_slot(db, suite_id, seq, runs[i].round, runs[i].cell, err) < 0 ||
            suites_link_run(db, suite_id, seq, rid, err) < 0 ||
            exec_bound(db, "UPDATE run_meta SET value = ?1 WHERE run_id = ?2 AND key = 'suite.id'", "ti", a, err) < 0)
            rc = -1;
        else {
            seq++;
            (*n)++;
        }
    }
    sqlite3_finalize(find);
    return rc;
}
