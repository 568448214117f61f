#include "store/ticks.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"

static void drop_waiting(struct tick_store *s)
{
    for (size_t i = 0; i < s->nseries; i++)
        free(s->series[i].name);
    for (size_t i = 0; i < s->nfolds; i++)
        tick_fold_clear(&s->folds[i]);
    s->nseries = s->nticks = s->nbytes = s->nfolds = s->fold_bytes = 0;
}

static int write_rows(struct tick_store *s, struct pm_err *err)
{
    for (size_t i = 0; i < s->nseries; i++) {
        const struct tick_new_series *n = &s->series[i];
        sqlite3_bind_int64(s->ins_series, 1, s->run_id);
        sqlite3_bind_int64(s->ins_series, 2, (int64_t)n->idx);
        sqlite3_bind_text(s->ins_series, 3, n->name, -1, SQLITE_STATIC);
        sqlite3_bind_int(s->ins_series, 4, n->real);
        sqlite3_bind_int64(s->ins_series, 5, (int64_t)n->since);
        if (store_db_step_done(&s->db, s->ins_series, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < s->nticks; i++) {
        const struct tick_pending *t = &s->ticks[i];
        sqlite3_bind_int64(s->ins_tick, 1, s->run_id);
        sqlite3_bind_int64(s->ins_tick, 2, (int64_t)t->seq);
        sqlite3_bind_int64(s->ins_tick, 3, (int64_t)t->t_ns);
        sqlite3_bind_int64(s->ins_open, 1, s->run_id);
        sqlite3_bind_int64(s->ins_open, 2, (int64_t)t->seq);
        sqlite3_bind_text(s->ins_open, 3, s->bytes + t->off, (int)t->len, SQLITE_STATIC);
        if (store_db_step_done(&s->db, s->ins_tick, err) < 0 || store_db_step_done(&s->db, s->ins_open, err) < 0)
            return -1;
    }
    /* After the ticks: a block replaces open rows written in this very
     * transaction too. */
    for (size_t i = 0; i < s->nfolds; i++)
        if (tick_fold_write(&s->db, &s->fold_sql, s->run_id, &s->folds[i], err) < 0)
            return -1;
    return tick_fold_unsteady(&s->db, &s->fold_sql, s->run_id, &s->blocker, err);
}

/* Everything waiting, in one transaction: the new series first, so
 * positions and values are never stored apart. With wait false a database
 * another writer holds is left alone (1: still waiting); otherwise SQLite
 * waits for it up to the connection's busy timeout. */
static int write_waiting(struct tick_store *s, bool wait, struct pm_err *err)
{
    if (!s->nticks && !s->nfolds && !s->blocker.nunsteady)
        return 0;
    if (s->failed)
        return pm_errf(err, "%s: an earlier write of samples failed", s->db.path);
    sqlite3_busy_timeout(s->db.h, wait ? store_db_result_wait_ms() : 0);
    int rc = sqlite3_step(s->begin);
    if (rc != SQLITE_DONE)
        store_db_note_failure(&s->db);
    sqlite3_reset(s->begin);
    if (!wait && (rc & 0xff) == SQLITE_BUSY) {
        /* Counted once per batch put off, not once per try. */
        s->deferred += !s->waiting;
        s->waiting = true;
        return 1;
    }
    if (rc != SQLITE_DONE) {
        s->full |= store_db_full(&s->db);
        s->failed = true;
        return pm_errf(err, "%s: %s", s->db.path, sqlite3_errmsg(s->db.h));
    }
    if (write_rows(s, err) < 0 || store_db_step_done(&s->db, s->commit, err) < 0) {
        s->full |= store_db_full(&s->db);
        s->failed = true;
        store_db_rollback(&s->db);
        return -1;
    }
    s->committed += s->nticks;
    s->waiting = false;
    tick_blocker_unsteady_done(&s->blocker);
    drop_waiting(s);
    return 0;
}

/* A finished block joins the queue: its filled pieces swap places with a
 * spent entry's, so the memory of both is kept for blocks to come. */
static int queue_fold(struct tick_store *s, struct tick_fold *f)
{
    if (ALLOC_GROW(s->folds, s->nfolds + 1, s->capfolds) < 0)
        return -1;
    if (s->nfolds == s->initfolds)
        tick_fold_init(&s->folds[s->initfolds++]);
    struct tick_fold spent = s->folds[s->nfolds];
    s->folds[s->nfolds++] = *f;
    *f = spent;
    s->fold_bytes += s->folds[s->nfolds - 1].bytes;
    return 0;
}

/* This tick's values by series position, fixed-point; new series are
 * queued for tick_series. */
static int take_values(struct tick_store *s, uint64_t seq, const struct series_table *t, size_t first_new,
                       uint64_t mark)
{
    if (ALLOC_GROW(s->acc, t->n, s->capacc) < 0)
        return -1;
    size_t cap = s->capacc;
    bool *h = realloc(s->have, cap * sizeof *h);
    if (h)
        s->have = h;
    bool *r = h ? realloc(s->real, cap * sizeof *r) : NULL;
    if (r)
        s->real = r;
    if (!r || ALLOC_GROW(s->series, s->nseries + (t->n - first_new), s->capseries) < 0)
        return -1;
    for (size_t i = first_new; i < t->n; i++) {
        char *name = strdup(t->v[i].name);
        if (!name)
            return -1;
        s->series[s->nseries++] = (struct tick_new_series){ i, name, t->v[i].last.kind == PM_REAL, seq };
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct series *se = &t->v[i];
        s->have[i] = se->seen_tick == mark;
        if (i >= s->known)
            s->real[i] = se->last.kind == PM_REAL;
        if (s->have[i])
            s->acc[i] = se->last.kind == PM_INT ? se->last.i : (int64_t)llround(se->last.r * 1000000.0);
    }
    s->known = t->n > s->known ? t->n : s->known;
    return 0;
}

/* The open row: every series' value as of this tick, null before its first. */
static int queue_open_row(struct tick_store *s, uint64_t seq, uint64_t t_ns)
{
    const struct tick_blocker *b = &s->blocker;
    if (ALLOC_GROW(s->bytes, s->nbytes + s->known * 32 + 3, s->capbytes) < 0 ||
        ALLOC_GROW(s->ticks, s->nticks + 1, s->capticks) < 0)
        return -1;
    size_t off = s->nbytes, len = 0;
    char *p = s->bytes + off;
    p[len++] = '[';
    for (size_t i = 0; i < s->known; i++) {
        if (i)
            p[len++] = ',';
        if (i >= b->nseries || b->first[i] < 0) {
            memcpy(p + len, "null", 4);
            len += 4;
        } else {
            len += (size_t)tick_format_value(p + len, b->last[i], s->real[i]);
        }
    }
    p[len++] = ']';
    if (!s->nticks)
        s->batch_start_ns = t_ns;
    s->ticks[s->nticks++] = (struct tick_pending){ seq, t_ns, off, len };
    s->nbytes += len;
    return 0;
}

/* The tick joins the queue (its new series before it, a block it ends
 * after it); the queue is written once it holds a second of ticks, and the
 * first tick at once: it names the run's series, and a run that dies in
 * its first second keeps it. A write that failed ends the store: what
 * waited is not counted as kept, a full filesystem is noted for the run's
 * reason. */
static int write_tick(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const struct series_table *t,
                      size_t first_new, uint64_t mark, struct pm_err *err)
{
    struct tick_store *s = (struct tick_store *)w;
    if (s->failed)
        return pm_errf(err, "%s: an earlier write of samples failed", s->db.path);
    if (take_values(s, seq, t, first_new, mark) < 0 ||
        tick_blocker_add(&s->blocker, (int64_t)seq, s->acc, s->have, t->n, &s->spare) < 0 ||
        (s->spare.n && queue_fold(s, &s->spare) < 0) || queue_open_row(s, seq, t_ns) < 0)
        return pm_errf(err, "out of memory keeping a tick");
    if (seq != 0 && t_ns - s->batch_start_ns + 1000 < TICK_COMMIT_NS)
        return 0;
    int rc = write_waiting(s, s->nbytes + s->fold_bytes >= TICK_QUEUE_MAX, err);
    if (rc < 0)
        drop_waiting(s);
    return rc < 0 ? -1 : 0;
}

/* The end of sampling: the last block is folded and everything written. */
static int flush(struct tick_writer *w, struct pm_err *err)
{
    struct tick_store *s = (struct tick_store *)w;
    if (!s->failed && (tick_blocker_finish(&s->blocker, &s->spare) < 0 ||
                       (s->spare.n && queue_fold(s, &s->spare) < 0)))
        return pm_errf(err, "out of memory folding the last block of ticks");
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
    tick_blocker_init(&ts->blocker);
    tick_fold_init(&ts->spare);
    if (store_db_open(&ts->db, db_path, false, err) < 0)
        return -1;
    if (store_db_prepare(&ts->db, &ts->ins_tick, "INSERT INTO tick(run_id, seq, t_ns) VALUES (?,?,?)", err) < 0 ||
        store_db_prepare(&ts->db, &ts->ins_open, "INSERT INTO tick_open(run_id, seq, vals) VALUES (?,?,?)", err) < 0 ||
        store_db_prepare(&ts->db, &ts->ins_series,
                      "INSERT INTO tick_series(run_id, idx, name, real, since) VALUES (?,?,?,?,?)", err) < 0 ||
        tick_fold_sql_prepare(&ts->db, &ts->fold_sql, err) < 0 ||
        /* IMMEDIATE: the write lock is taken at BEGIN (or found busy
         * there), never in an upgrade that SQLite could only fail. */
        store_db_prepare(&ts->db, &ts->begin, "BEGIN IMMEDIATE", err) < 0 ||
        store_db_prepare(&ts->db, &ts->commit, "COMMIT", err) < 0) {
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
    for (size_t i = 0; i < ts->initfolds; i++)
        tick_fold_free(&ts->folds[i]);
    free(ts->folds);
    free(ts->ticks);
    free(ts->bytes);
    free(ts->series);
    free(ts->acc);
    free(ts->have);
    free(ts->real);
    tick_fold_free(&ts->spare);
    tick_blocker_free(&ts->blocker);
    sqlite3_finalize(ts->ins_tick);
    sqlite3_finalize(ts->ins_open);
    sqlite3_finalize(ts->ins_series);
    sqlite3_finalize(ts->begin);
    sqlite3_finalize(ts->commit);
    tick_fold_sql_finalize(&ts->fold_sql);
    store_db_close(&ts->db);
    /* What the run reports after (committed, deferred, full) stays. */
    ts->folds = NULL;
    ts->ticks = NULL;
    ts->bytes = NULL;
    ts->series = NULL;
    ts->acc = NULL;
    ts->have = ts->real = NULL;
    ts->nfolds = ts->capfolds = ts->initfolds = ts->capticks = ts->capbytes = ts->capseries = ts->capacc = 0;
    ts->ins_tick = ts->ins_open = ts->ins_series = ts->begin = ts->commit = NULL;
}

/* The run's series by position: 0, 1, 2 ... as pressmark writes them (one
 * far out, from a database from elsewhere, would cost what the run does
 * not hold). */
static int load_series(struct tick_reader *r, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(r->db, &st, "SELECT idx, name, real, since FROM tick_series WHERE run_id = ? ORDER BY idx",
                      err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, r->run_id);
    size_t cap = 0;
    int rc = 0, step;
    for (int64_t row = 0; rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW; row++) {
        int64_t idx = sqlite3_column_int64(st, 0);
        if (idx != row || idx >= TICK_MAX_SERIES) {
            rc = pm_errf(err, "%s: run %lld: series position %lld where %lld belongs (positions run from 0, at most "
                         "%d)", r->db->path, (long long)r->run_id, (long long)idx, (long long)row, TICK_MAX_SERIES);
            break;
        }
        if (ALLOC_GROW(r->names, r->n + 1, cap) < 0) {
            rc = pm_errf(err, "out of memory");
            break;
        }
        r->names[r->n] = strdup(store_col_text(st, 1));
        r->n++;
        if (!r->names[r->n - 1])
            rc = pm_errf(err, "out of memory");
    }
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    size_t k = r->n ? r->n : 1;
    r->real = calloc(k, sizeof *r->real);
    r->since = calloc(k, sizeof *r->since);
    r->konst = calloc(k, sizeof *r->konst);
    r->steady = calloc(k, sizeof *r->steady);
    r->acc = calloc(k, sizeof *r->acc);
    r->have = calloc(k, sizeof *r->have);
    r->inblk = calloc(k, sizeof *r->inblk);
    r->want = calloc(k, sizeof *r->want);
    r->poff = calloc(k, sizeof *r->poff);
    r->mat = calloc(k * TICK_BLOCK_MAX, sizeof *r->mat);
    if (!r->real || !r->since || !r->konst || !r->steady || !r->acc || !r->have || !r->inblk || !r->poff || !r->want || !r->mat)
        return pm_errf(err, "out of memory");
    if (store_db_prepare(r->db, &st, "SELECT idx, real, since, const_value FROM tick_series WHERE run_id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, r->run_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        if (i >= 0 && (size_t)i < r->n) {
            r->real[i] = sqlite3_column_int(st, 1) != 0;
            r->since[i] = sqlite3_column_int64(st, 2);
            r->steady[i] = sqlite3_column_type(st, 3) != SQLITE_NULL;
            r->konst[i] = sqlite3_column_int64(st, 3);
        }
    }
    sqlite3_finalize(st);
    return 0;
}

int tick_reader_open(struct tick_reader *r, struct pm_db *db, int64_t run_id, struct pm_err *err)
{
    memset(r, 0, sizeof *r);
    r->db = db;
    r->run_id = run_id;
    r->next_blk = INT64_MIN;
    if (load_series(r, err) < 0 ||
        store_db_prepare(db, &r->st, "SELECT t.seq, t.t_ns, o.vals FROM tick t LEFT JOIN tick_open o"
                                  " ON o.run_id = t.run_id AND o.seq = t.seq WHERE t.run_id = ? ORDER BY t.seq", err) < 0 ||
        store_db_prepare(db, &r->blocks, "SELECT blk, n FROM tick_block WHERE run_id = ? ORDER BY blk", err) < 0 ||
        store_db_prepare(db, &r->pieces, "SELECT idx, base, scale, vals, runs, off, width FROM tick_piece WHERE run_id = ? AND blk = ?",
                      err) < 0) {
        tick_reader_close(r);
        return -1;
    }
    sqlite3_bind_int64(r->st, 1, run_id);
    sqlite3_bind_int64(r->blocks, 1, run_id);
    sqlite3_bind_int64(r->pieces, 1, run_id);
    r->seq = -1;
    return 0;
}

/* One piece of the loaded block into its column of mat. */
static int load_piece(struct tick_reader *r, struct pm_err *err)
{
    sqlite3_stmt *st = r->pieces;
    int64_t idx = sqlite3_column_int64(st, 0);
    if (idx < 0 || (uint64_t)idx >= r->n || r->inblk[idx] || r->steady[idx] || r->since[idx] >= r->blk + r->bn)
        return pm_errf(err, "%s: run %lld block %lld: a piece for series %lld, which has none there", r->db->path,
                       (long long)r->run_id, (long long)r->blk, (long long)idx);
    if (r->some && !r->want[idx]) {
        r->inblk[idx] = true;   /* there, though not read */
        r->poff[idx] = INT64_MAX;
        return 0;
    }
    bool dense = sqlite3_column_type(st, 3) != SQLITE_NULL, runs = sqlite3_column_type(st, 4) != SQLITE_NULL;
    int col = runs ? 4 : 3;
    const char *text = runs ? (const char *)sqlite3_column_text(st, col) : (const char *)sqlite3_column_blob(st, col);
    size_t len = (size_t)sqlite3_column_bytes(st, col);
    /* A piece starts where its series first had a value (in its first
     * block), at the block's first tick after. */
    int64_t k0 = sqlite3_column_int64(st, 5);
    int64_t width = sqlite3_column_int64(st, 6);
    enum tick_form form = runs ? TICK_RUNS : width ? TICK_DENSE : TICK_CONST;
    int64_t scale = sqlite3_column_int64(st, 2);
    /* The piece starts where its series first had a value, as written. */
    if ((dense && runs) || scale < 1 || k0 < 0 || k0 >= r->bn || r->blk + k0 < r->since[idx] || width < 0 ||
        width > 12 ||
        (form == TICK_CONST && dense) ||
        tick_piece_decode(form, sqlite3_column_int64(st, 1), scale, (int)width, text, len,
                          r->mat + idx * TICK_BLOCK_MAX, (size_t)(r->bn - k0)) < 0)
        return pm_errf(err, "%s: run %lld block %lld series %lld: not a piece as pressmark writes it", r->db->path,
                       (long long)r->run_id, (long long)r->blk, (long long)idx);
    r->inblk[idx] = true;
    r->poff[idx] = k0;
    return 0;
}

/* The next block, which must hold tick seq. */
static int load_block(struct tick_reader *r, int64_t seq, struct pm_err *err)
{
    int rc = r->blocks_done ? SQLITE_DONE : sqlite3_step(r->blocks);
    r->blocks_done = rc != SQLITE_ROW;
    int64_t blk = rc == SQLITE_ROW ? sqlite3_column_int64(r->blocks, 0) : 0;
    int64_t n = rc == SQLITE_ROW ? sqlite3_column_int64(r->blocks, 1) : 0;
    /* Ticks count from 0 and stay far below 2^62: blk + n cannot overflow. */
    if (rc != SQLITE_ROW || blk < 0 || blk > INT64_MAX / 2 || blk < r->next_blk || n < 1 || n > TICK_BLOCK_MAX ||
        seq < blk || seq >= blk + n)
        return pm_errf(err, "%s: run %lld: tick %lld is in no block and has no open row (not as pressmark writes)",
                       r->db->path, (long long)r->run_id, (long long)seq);
    r->blk = blk;
    r->bn = n;
    r->next_blk = blk + n;
    memset(r->inblk, 0, r->n * sizeof *r->inblk);
    sqlite3_reset(r->pieces);
    sqlite3_bind_int64(r->pieces, 2, blk);
    while ((rc = sqlite3_step(r->pieces)) == SQLITE_ROW)
        if (load_piece(r, err) < 0)
            return -1;
    if (rc != SQLITE_DONE)
        return pm_errf(err, "reading ticks: %s", sqlite3_errmsg(r->db->h));
    /* A series without a piece has no value in the block: named before
     * its first value came (as a source may), or in a run cut short. */
    return 0;
}

int tick_reader_next(struct tick_reader *r, struct pm_err *err)
{
    int rc = sqlite3_step(r->st);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc != SQLITE_ROW)
        return pm_errf(err, "reading ticks: %s", sqlite3_errmsg(r->db->h));
    r->seq = sqlite3_column_int64(r->st, 0);
    r->t_ns = sqlite3_column_int64(r->st, 1);
    if (sqlite3_column_type(r->st, 2) != SQLITE_NULL) {
        const char *text = (const char *)sqlite3_column_text(r->st, 2);
        if (tick_parse_open(text, (size_t)sqlite3_column_bytes(r->st, 2), r->real, r->acc, r->have, r->n) < 0)
            return pm_errf(err, "%s: run %lld tick %lld: not an open tick as pressmark writes it", r->db->path,
                           (long long)r->run_id, (long long)r->seq);
    } else {
        if ((!r->bn || r->seq >= r->blk + r->bn || r->seq < r->blk) && load_block(r, r->seq, err) < 0)
            return -1;
        for (size_t i = 0; i < r->n; i++) {
            r->have[i] = r->inblk[i] && r->poff[i] != INT64_MAX && r->seq - r->blk >= r->poff[i];
            if (r->have[i])
                r->acc[i] = r->mat[i * TICK_BLOCK_MAX + (r->seq - r->blk - r->poff[i])];
        }
    }
    /* What held one value all run long is kept once, not in blocks. */
    for (size_t i = 0; i < r->n; i++)
        if (r->steady[i]) {
            r->have[i] = r->since[i] <= r->seq;
            r->acc[i] = r->konst[i];
        }
    if (r->some)
        for (size_t i = 0; i < r->n; i++)
            r->have[i] &= r->want[i];
    return 1;
}

void tick_reader_want(struct tick_reader *r, size_t i)
{
    if (i < r->n) {
        r->want[i] = true;
        r->some = true;
    }
}

bool tick_reader_value(const struct tick_reader *r, size_t i, double *v)
{
    if (i >= r->n || !r->have[i])
        return false;
    *v = r->real[i] ? (double)r->acc[i] / 1000000.0 : (double)r->acc[i];
    return true;
}

bool tick_reader_text(const struct tick_reader *r, size_t i, char *buf)
{
    if (i >= r->n || !r->have[i])
        return false;
    int n = tick_format_value(buf, r->acc[i], r->real[i]);
    if (r->real[i]) {
        while (n > 0 && buf[n - 1] == '0')
            n--;
        if (n > 0 && buf[n - 1] == '.')
            n--;
        buf[n] = '\0';
        if (strcmp(buf, "-0") == 0)
            strcpy(buf, "0");
    }
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
    sqlite3_finalize(r->blocks);
    sqlite3_finalize(r->pieces);
    for (size_t i = 0; i < r->n; i++)
        free(r->names[i]);
    free(r->names);
    free(r->real);
    free(r->since);
    free(r->konst);
    free(r->steady);
    free(r->acc);
    free(r->have);
    free(r->mat);
    free(r->inblk);
    free(r->poff);
    free(r->want);
    memset(r, 0, sizeof *r);
}
