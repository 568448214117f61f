/* Bisections' tables (store/bisects.h): every statement prepared, every
 * value bound, as the names they hold come from apt, git and users. */
#include "store/bisects.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"
#include "lib/fileio.h"
#include "lib/timeutil.h"

void store_bisect_rec_free(struct bisect_rec *b)
{
    free(b->suite_text);
    b->suite_text = NULL;
}

static int db_fail(struct pm_db *db, struct pm_err *err)
{
    return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
}

static void copy_col(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    snprintf(buf, len, "%s", store_col_text(st, col));
}

static const char bisect_cols[] = "id, uuid, key, suite_path, suite_text, cell, metric, kind, good, bad, repo, build,"
                                  " runs, max_runs, alpha, state, first_bad, reason";

static void read_bisect(sqlite3_stmt *st, struct bisect_rec *b)
{
    memset(b, 0, sizeof *b);
    b->id = sqlite3_column_int64(st, 0);
    copy_col(st, 1, b->uuid, sizeof b->uuid);
    copy_col(st, 2, b->key, sizeof b->key);
    copy_col(st, 3, b->suite_path, sizeof b->suite_path);
    b->suite_text = strdup(store_col_text(st, 4));
    copy_col(st, 5, b->cell, sizeof b->cell);
    copy_col(st, 6, b->metric, sizeof b->metric);
    copy_col(st, 7, b->kind, sizeof b->kind);
    copy_col(st, 8, b->good, sizeof b->good);
    copy_col(st, 9, b->bad, sizeof b->bad);
    copy_col(st, 10, b->repo, sizeof b->repo);
    copy_col(st, 11, b->build, sizeof b->build);
    b->runs = sqlite3_column_int(st, 12);
    b->max_runs = sqlite3_column_int(st, 13);
    b->alpha = sqlite3_column_double(st, 14);
    copy_col(st, 15, b->state, sizeof b->state);
    copy_col(st, 16, b->first_bad, sizeof b->first_bad);
    copy_col(st, 17, b->reason, sizeof b->reason);
}

/* The newest row of bisect WHERE where (?1 bound to text or number). */
static int get_one(struct pm_db *db, const char *where, const char *text, int64_t num, struct bisect_rec *out,
                   struct pm_err *err)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT %s FROM bisect WHERE %s ORDER BY id DESC LIMIT 1", bisect_cols, where);
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, sql, err) < 0)
        return -1;
    if (text)
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(st, 1, num);
    int rc = sqlite3_step(st), found = 0;
    if (rc == SQLITE_ROW) {
        read_bisect(st, out);
        found = out->suite_text ? 1 : pm_errf(err, "out of memory");
    } else if (rc != SQLITE_DONE) {
        found = db_fail(db, err);
    }
    sqlite3_finalize(st);
    return found;
}

int bisects_get(struct pm_db *db, int64_t id, struct bisect_rec *out, struct pm_err *err)
{
    return get_one(db, "id = ?1", NULL, id, out, err);
}

int bisects_by_key(struct pm_db *db, const char *key, struct bisect_rec *out, struct pm_err *err)
{
    return get_one(db, "key = ?1", key, 0, out, err);
}

int bisects_latest(struct pm_db *db, bool running_only, bool git_only, struct bisect_rec *out, struct pm_err *err)
{
    char where[128];
    snprintf(where, sizeof where, "?1 = ?1%s%s", running_only ? " AND state = 'running'" : "",
             git_only ? " AND kind = 'git'" : "");
    return get_one(db, where, NULL, 0, out, err);
}

static int insert_bisect(struct pm_db *db, struct bisect_rec *b, struct pm_err *err)
{
    if (pm_read_file("/proc/sys/kernel/random/uuid", b->uuid, sizeof b->uuid) < 0 || strlen(b->uuid) != 36)
        return pm_errf(err, "cannot read a UUID from /proc/sys/kernel/random/uuid");
    snprintf(b->state, sizeof b->state, "running");
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "INSERT INTO bisect(uuid, key, suite_path, suite_text, cell, metric, kind, good, bad, repo, build,"
                      " runs, max_runs, alpha, created_ns, state) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'running')",
                      err) < 0)
        return -1;
    const char *t[] = { b->uuid, b->key, b->suite_path, b->suite_text, b->cell, b->metric, b->kind, b->good, b->bad,
                        b->repo, b->build };
    for (int i = 0; i < 11; i++)
        sqlite3_bind_text(st, i + 1, t[i], -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 12, b->runs);
    sqlite3_bind_int(st, 13, b->max_runs);
    sqlite3_bind_double(st, 14, b->alpha);
    sqlite3_bind_int64(st, 15, pm_wall_ns());
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    b->id = sqlite3_last_insert_rowid(db->h);
    return 0;
}

static int add_candidate(struct pm_db *db, int64_t id, int idx, const struct bisect_candidate_rec *c,
                         struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "INSERT INTO bisect_candidate(bisect_id, idx, kernel, version) VALUES (?,?,?,?)",
                      err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, idx);
    sqlite3_bind_text(st, 3, c->kernel, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, c->version, -1, SQLITE_STATIC);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    return rc;
}

int bisects_create(struct pm_db *db, struct bisect_rec *b, const struct bisect_candidate_rec *cands, size_t n,
                   struct pm_err *err)
{
    if (store_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
        return -1;
    int rc = insert_bisect(db, b, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = add_candidate(db, b->id, (int)i, &cands[i], err);
    if (rc == 0 && store_db_exec(db, "COMMIT", err) < 0)
        rc = -1;
    if (rc < 0) {
        store_db_rollback(db);
        b->id = 0;      /* the id rolled back with the row: no bisection has it */
    }
    return rc;
}

int bisects_finish(struct pm_db *db, int64_t id, const char *state, const char *first_bad, const char *reason,
                   struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "UPDATE bisect SET state = ?1, first_bad = ?2, reason = ?3 WHERE id = ?4", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, first_bad, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, id);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    return rc;
}

int bisects_candidates(struct pm_db *db, int64_t id, struct bisect_candidate_rec **v, size_t *n, struct pm_err *err)
{
    *v = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT kernel, version FROM bisect_candidate WHERE bisect_id = ? ORDER BY idx", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (pm_alloc_grow((void **)v, sizeof **v, *n + 1, &cap) < 0) {
            sqlite3_finalize(st);
            return pm_errf(err, "out of memory");
        }
        copy_col(st, 0, (*v)[*n].kernel, sizeof (*v)[*n].kernel);
        copy_col(st, 1, (*v)[*n].version, sizeof (*v)[*n].version);
        (*n)++;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(db, err);
}

int bisects_add_step(struct pm_db *db, int64_t id, struct bisect_step_rec *s, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "INSERT INTO bisect_step(bisect_id, seq, role, candidate, kernel, kernel_key, runs, boots)"
                      " VALUES (?1, (SELECT COALESCE(MAX(seq) + 1, 0) FROM bisect_step WHERE bisect_id = ?1),"
                      " ?2, ?3, ?4, ?5, 0, 0)", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, s->role, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, s->candidate);
    sqlite3_bind_text(st, 4, s->kernel, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, s->kernel_key, -1, SQLITE_STATIC);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    if (store_db_prepare(db, &st, "SELECT MAX(seq) FROM bisect_step WHERE bisect_id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    s->seq = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return 0;
}

static void bind_real(sqlite3_stmt *st, int i, bool has, double v)
{
    if (has && !isnan(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

int bisects_update_step(struct pm_db *db, int64_t id, const struct bisect_step_rec *s, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "UPDATE bisect_step SET kernel_key = ?1, runs = ?2, boots = ?3, mean = ?4, p_good = ?5,"
                      " p_bad = ?6, verdict = NULLIF(?7, ''), reason = NULLIF(?8, '')"
                      " WHERE bisect_id = ?9 AND seq = ?10", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, s->kernel_key, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, s->runs);
    sqlite3_bind_int(st, 3, s->boots);
    bind_real(st, 4, s->has_mean, s->mean);
    bind_real(st, 5, true, s->p_good);
    bind_real(st, 6, true, s->p_bad);
    sqlite3_bind_text(st, 7, s->verdict, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, s->reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, id);
    sqlite3_bind_int(st, 10, s->seq);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    return rc;
}

static double col_real(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

static void read_step(sqlite3_stmt *st, struct bisect_step_rec *s)
{
    memset(s, 0, sizeof *s);
    s->seq = sqlite3_column_int(st, 0);
    copy_col(st, 1, s->role, sizeof s->role);
    s->candidate = sqlite3_column_int(st, 2);
    copy_col(st, 3, s->kernel, sizeof s->kernel);
    copy_col(st, 4, s->kernel_key, sizeof s->kernel_key);
    s->runs = sqlite3_column_int(st, 5);
    s->has_mean = sqlite3_column_type(st, 6) != SQLITE_NULL;
    s->mean = col_real(st, 6);
    s->p_good = col_real(st, 7);
    s->p_bad = col_real(st, 8);
    copy_col(st, 9, s->verdict, sizeof s->verdict);
    s->boots = sqlite3_column_int(st, 10);
    copy_col(st, 11, s->reason, sizeof s->reason);
}

int bisects_steps(struct pm_db *db, int64_t id, struct bisect_step_rec **v, size_t *n, struct pm_err *err)
{
    *v = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st,
                      "SELECT seq, role, candidate, kernel, kernel_key, runs, mean, p_good, p_bad, verdict, boots,"
                      " reason FROM bisect_step WHERE bisect_id = ? ORDER BY seq", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (pm_alloc_grow((void **)v, sizeof **v, *n + 1, &cap) < 0) {
            sqlite3_finalize(st);
            return pm_errf(err, "out of memory");
        }
        read_step(st, &(*v)[(*n)++]);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(db, err);
}
