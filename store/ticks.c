#include "store/ticks.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"

static void drop_waiting(struct tick_store *s)
{
    for (size_t i = 0; i < s->nseries; i++)
        free(s->series[i].name);
    s->nseries = s->nticks = s->nbytes = 0;
}

/* Everything waiting, in one transaction: the new series first, so
 * positions and values are never stored apart. With wait false a database
 * another writer holds is left alone (1: still waiting); otherwise SQLite
 * waits for it up to the connection's busy timeout. */
static int write_waiting(struct tick_store *s, bool wait, struct pm_err *err)
{
    if (!s->nticks)
        return 0;
    sqlite3_busy_timeout(s->db.h, wait ? pm_db_result_wait_ms() : 0);
    int rc = sqlite3_step(s->begin);
    if (rc != SQLITE_DONE)
        pm_db_note_failure(&s->db);
    sqlite3_reset(s->begin);
    if (!wait && (rc & 0xff) == SQLITE_BUSY) {
        /* Counted once per batch put off, not once per try. */
        s->deferred += !s->waiting;
        s->waiting = true;
        return 1;
    }
    if (rc != SQLITE_DONE) {
        s->full |= pm_db_full(&s->db);
        return pm_errf(err, "%s: %s", s->db.path, sqlite3_errmsg(s->db.h));
    }
    for (size_t i = 0; i < s->nseries; i++) {
        const struct tick_new_series *n = &s->series[i];
        sqlite3_bind_int64(s->ins_series, 1, s->run_id);
        sqlite3_bind_int64(s->ins_series, 2, (int64_t)n->idx);
        sqlite3_bind_text(s->ins_series, 3, n->name, -1, SQLITE_STATIC);
        sqlite3_bind_int(s->ins_series, 4, n->real);
        sqlite3_bind_int64(s->ins_series, 5, (int64_t)n->since);
        if (pm_db_step_done(&s->db, s->ins_series, err) < 0)
            goto rollback;
    }
    for (size_t i = 0; i < s->nticks; i++) {
        const struct tick_pending *t = &s->ticks[i];
        sqlite3_bind_int64(s->ins_tick, 1, s->run_id);
        sqlite3_bind_int64(s->ins_tick, 2, (int64_t)t->seq);
        sqlite3_bind_int64(s->ins_tick, 3, (int64_t)t->t_ns);
        sqlite3_bind_blob(s->ins_tick, 4, t->len ? s->bytes + t->off : (const void *)"", (int)t->len, SQLITE_STATIC);
        if (pm_db_step_done(&s->db, s->ins_tick, err) < 0)
            goto rollback;
    }
    if (pm_db_step_done(&s->db, s->commit, err) < 0)
        goto rollback;
    s->committed += s->nticks;
    s->waiting = false;
    drop_waiting(s);
    return 0;
rollback:
    s->full |= pm_db_full(&s->db);
    pm_db_rollback(&s->db);
    return -1;
}

/* The tick joins the queue (its new series before it); the queue is
 * written once it holds a second of ticks, and the first tick at once: it
 * names the run's series, and a run that dies in its first second keeps
 * it. A write that failed ends the store: what waited is not counted as
 * kept, a full filesystem is noted for the run's reason. */
static int write_tick(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const struct series_table *t,
                      size_t first_new, uint64_t mark, struct pm_err *err)
{
    struct tick_store *s = (struct tick_store *)w;
    if (tick_encode(&s->enc, t, mark) < 0 || ALLOC_GROW(s->ticks, s->nticks + 1, s->capticks) < 0 ||
        ALLOC_GROW(s->bytes, s->nbytes + s->enc.len, s->capbytes) < 0 ||
        ALLOC_GROW(s->series, s->nseries + (t->n - first_new), s->capseries) < 0)
        return pm_errf(err, "out of memory keeping a tick");
    for (size_t i = first_new; i < t->n; i++) {
        char *name = strdup(t->v[i].name);
        if (!name)
            return pm_errf(err, "out of memory keeping a tick");
        s->series[s->nseries++] = (struct tick_new_series){ i, name, t->v[i].last.kind == PM_REAL, seq };
    }
    if (!s->nticks)
        s->batch_start_ns = t_ns;
    if (s->enc.len)
        memcpy(s->bytes + s->nbytes, s->enc.buf, s->enc.len);
    s->ticks[s->nticks++] = (struct tick_pending){ seq, t_ns, s->nbytes, s->enc.len };
    s->nbytes += s->enc.len;
    if (seq != 0 && t_ns - s->batch_start_ns + 1000 < TICK_COMMIT_NS)
        return 0;
    int rc = write_waiting(s, s->nbytes >= TICK_QUEUE_MAX, err);
    if (rc < 0)
        drop_waiting(s);
    return rc < 0 ? -1 : 0;
}

static int flush(struct tick_writer *w, struct pm_err *err)
{
    struct tick_store *s = (struct tick_store *)w;
    if (write_waiting(s, true, err) < 0) {
        drop_waiting(s);
        return -1;
    }
    return 0;
}

int tick_store_open(struct tick_store *ts, const char *db_path, int64_t run_id, struct pm_err *err)
{
    memset(ts, 0, sizeof *ts);
    ts->base.write = write_tick;
    ts->base.flush = flush;
    ts->run_id = run_id;
    tick_encoder_init(&ts->enc);
    if (pm_db_open(&ts->db, db_path, false, err) < 0)
        return -1;
    if (pm_db_prepare(&ts->db, &ts->ins_tick, "INSERT INTO tick(run_id, seq, t_ns, data) VALUES (?,?,?,?)", err) < 0 ||
        pm_db_prepare(&ts->db, &ts->ins_series,
                      "INSERT INTO tick_series(run_id, idx, name, real, since) VALUES (?,?,?,?,?)", err) < 0 ||
        /* IMMEDIATE: the write lock is taken at BEGIN (or found busy
         * there), never in an upgrade that SQLite could only fail. */
        pm_db_prepare(&ts->db, &ts->begin, "BEGIN IMMEDIATE", err) < 0 ||
        pm_db_prepare(&ts->db, &ts->commit, "COMMIT", err) < 0) {
        tick_store_close(ts);
        return -1;
    }
    return 0;
}

void tick_store_close(struct tick_store *ts)
{
    if (ts->db.h) {
        struct pm_err err;
        write_waiting(ts, true, &err);
    }
    drop_waiting(ts);
    free(ts->ticks);
    free(ts->bytes);
    free(ts->series);
    ts->ticks = NULL;
    ts->bytes = NULL;
    ts->series = NULL;
    sqlite3_finalize(ts->ins_tick);
    sqlite3_finalize(ts->ins_series);
    sqlite3_finalize(ts->begin);
    sqlite3_finalize(ts->commit);
    ts->ins_tick = ts->ins_series = ts->begin = ts->commit = NULL;
    tick_encoder_free(&ts->enc);
    pm_db_close(&ts->db);
}

int tick_reader_open(struct tick_reader *r, struct pm_db *db, int64_t run_id, struct pm_err *err)
{
    memset(r, 0, sizeof *r);
    sqlite3_stmt *st;
    if (pm_db_prepare(db, &st, "SELECT idx, name, real, since FROM tick_series WHERE run_id = ? ORDER BY idx", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    size_t cap = 0;
    /* Positions 0, 1, 2 ... as pressmark writes them: one far out (a
     * database from elsewhere) would cost what the run does not hold. */
    for (int64_t row = 0; sqlite3_step(st) == SQLITE_ROW; row++) {
        int64_t idx = sqlite3_column_int64(st, 0);
        if (idx != row || idx >= TICK_MAX_SERIES) {
            sqlite3_finalize(st);
            tick_reader_close(r);
            return pm_errf(err, "%s: run %lld: series position %lld where %lld belongs (positions run from 0, at most "
                           "%d)", db->path, (long long)run_id, (long long)idx, (long long)row, TICK_MAX_SERIES);
        }
        size_t need = (size_t)idx + 1;
        if (need > cap) {
            size_t nc = need < 64 ? 64 : need * 2;
            char **nm = realloc(r->names, nc * sizeof *nm);
            bool *re = nm ? realloc(r->real, nc * sizeof *re) : NULL;
            int64_t *si = re ? realloc(r->since, nc * sizeof *si) : NULL;
            int64_t *ac = si ? realloc(r->acc, nc * sizeof *ac) : NULL;
            if (nm)
                r->names = nm;
            if (re)
                r->real = re;
            if (si)
                r->since = si;
            if (ac)
                r->acc = ac;
            if (!ac) {
                sqlite3_finalize(st);
                tick_reader_close(r);
                return pm_errf(err, "out of memory");
            }
            for (size_t i = cap; i < nc; i++) {
                r->names[i] = NULL;
                r->real[i] = false;
                r->since[i] = INT64_MAX;
                r->acc[i] = 0;
            }
            cap = nc;
        }
        if (need > r->n)
            r->n = need;
        free(r->names[idx]);
        r->names[idx] = strdup(pm_col_text(st, 1));
        r->real[idx] = sqlite3_column_int(st, 2) != 0;
        r->since[idx] = sqlite3_column_int64(st, 3);
        if (!r->names[idx]) {
            sqlite3_finalize(st);
            tick_reader_close(r);
            return pm_errf(err, "out of memory");
        }
    }
    sqlite3_finalize(st);
    if (pm_db_prepare(db, &r->st, "SELECT seq, t_ns, data FROM tick WHERE run_id = ? ORDER BY seq", err) < 0) {
        tick_reader_close(r);
        return -1;
    }
    sqlite3_bind_int64(r->st, 1, run_id);
    r->seq = -1;
    return 0;
}

int tick_reader_next(struct tick_reader *r, struct pm_err *err)
{
    int rc = sqlite3_step(r->st);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc != SQLITE_ROW)
        return pm_errf(err, "reading ticks: %s", sqlite3_errmsg(sqlite3_db_handle(r->st)));
    r->seq = sqlite3_column_int64(r->st, 0);
    r->t_ns = sqlite3_column_int64(r->st, 1);
    const uint8_t *p = sqlite3_column_blob(r->st, 2);
    size_t len = (size_t)sqlite3_column_bytes(r->st, 2);
    if (len && tick_decode(p, len, r->acc, NULL, r->n) < 0)
        return pm_errf(err, "tick %lld: not a stored tick (corrupt data)", (long long)r->seq);
    return 1;
}

bool tick_reader_value(const struct tick_reader *r, size_t i, double *v)
{
    if (i >= r->n || !r->names[i] || r->since[i] > r->seq)
        return false;
    *v = tick_value(r->acc[i], r->real[i]);
    return true;
}

int tick_reader_find(const struct tick_reader *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->names[i] && strcmp(r->names[i], name) == 0)
            return (int)i;
    return -1;
}

void tick_reader_close(struct tick_reader *r)
{
    sqlite3_finalize(r->st);
    for (size_t i = 0; i < r->n; i++)
        free(r->names[i]);
    free(r->names);
    free(r->real);
    free(r->since);
    free(r->acc);
    memset(r, 0, sizeof *r);
}
