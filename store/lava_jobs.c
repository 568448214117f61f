#include "store/lava_jobs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/timeutil.h"
#include "store/sql.h"

void store_lava_job_rec_free(struct lava_job_rec *r)
{
    free(r->definition);
    r->definition = NULL;
}

/* A column into a fixed buffer, whole: a value a database made longer is
 * refused rather than cut to something that may then pass a comparison. */
static int take_col(struct pm_db *db, sqlite3_stmt *st, int col, const char *name, char *dst, size_t len,
                    struct pm_err *err)
{
    const char *v = store_col_text(st, col);
    if (strlen(v) >= len)
        return pm_errf(err, "%s: a stored LAVA job's %s is longer than %zu characters (accepted: one pressmark "
                       "made)", db->path, name, len - 1);
    snprintf(dst, len, "%s", v);
    return 0;
}

int store_lava_jobs_get(struct pm_db *db, int64_t suite_id, int group, struct lava_job_rec *out, int *found,
                  struct pm_err *err)
{
    sqlite3_stmt *st;
    *found = 0;
    memset(out, 0, sizeof *out);
    if (store_db_prepare(db, &st, "SELECT attempt, lab, definition, results_url, coalesce(job_id, 0), state,"
                      " coalesce(reason, '') FROM lava_job WHERE suite_id = ?1 AND grp = ?2"
                      " ORDER BY attempt DESC LIMIT 1", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, suite_id);
    sqlite3_bind_int(st, 2, group);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->group = group;
        out->attempt = sqlite3_column_int(st, 0);
        out->job_id = sqlite3_column_int64(st, 4);
        snprintf(out->reason, sizeof out->reason, "%s", store_col_text(st, 6));
        rc = take_col(db, st, 1, "lab", out->lab, sizeof out->lab, err) < 0 ||
             take_col(db, st, 3, "results_url", out->results_url, sizeof out->results_url, err) < 0 ||
             take_col(db, st, 5, "state", out->state, sizeof out->state, err) < 0 ? -1 : 0;
        out->definition = rc == 0 ? strdup(store_col_text(st, 2)) : NULL;
        if (rc == 0 && !out->definition)
            rc = pm_errf(err, "out of memory");
        *found = rc == 0;
    } else if (rc == SQLITE_DONE) {
        rc = 0;
    } else {
        store_db_note_failure(db);
        rc = pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    }
    sqlite3_finalize(st);
    return rc;
}

int store_lava_jobs_add(struct pm_db *db, int64_t suite_id, struct lava_job_rec *rec, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "INSERT INTO lava_job(suite_id, grp, attempt, lab, definition, results_url,"
                      " created_ns, state) SELECT ?1, ?2, coalesce(max(attempt), 0) + 1, ?3, ?4, ?5, ?6, 'made'"
                      " FROM lava_job WHERE suite_id = ?1 AND grp = ?2 RETURNING attempt", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, suite_id);
    sqlite3_bind_int(st, 2, rec->group);
    sqlite3_bind_text(st, 3, rec->lab, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, rec->definition ? rec->definition : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, rec->results_url, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, pm_wall_ns());
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        rec->attempt = sqlite3_column_int(st, 0);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    } else {
        rc = -1;
    }
    if (rc < 0) {
        store_db_note_failure(db);
        pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    }
    snprintf(rec->state, sizeof rec->state, "made");
    sqlite3_finalize(st);
    return rc;
}

/* One UPDATE of the group's attempt. */
static int update(struct pm_db *db, const char *sql, int64_t suite_id, int group, int attempt, int64_t id,
                  const char *a, const char *b, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, sql, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, suite_id);
    sqlite3_bind_int(st, 2, group);
    sqlite3_bind_int(st, 3, attempt);
    if (a)
        sqlite3_bind_text(st, 4, a, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(st, 4, id);
    if (b)
        sqlite3_bind_text(st, 5, b, -1, SQLITE_STATIC);
    int rc = store_db_step_done(db, st, err);
    sqlite3_finalize(st);
    return rc;
}

int store_lava_jobs_set_submitted(struct pm_db *db, int64_t suite_id, int group, int attempt, int64_t job_id,
                            struct pm_err *err)
{
    return update(db, "UPDATE lava_job SET job_id = ?4, state = 'submitted' WHERE suite_id = ?1 AND grp = ?2"
                  " AND attempt = ?3", suite_id, group, attempt, job_id, NULL, NULL, err);
}

int store_lava_jobs_set_ended(struct pm_db *db, int64_t suite_id, int group, int attempt, const char *state,
                        const char *reason, struct pm_err *err)
{
    return update(db, "UPDATE lava_job SET state = ?4, reason = ?5 WHERE suite_id = ?1 AND grp = ?2"
                  " AND attempt = ?3", suite_id, group, attempt, 0, state, reason ? reason : "", err);
}
