#include "store/tickfold.h"
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"

void tick_blocker_init(struct tick_blocker *b)
{
    memset(b, 0, sizeof *b);
}

void tick_blocker_free(struct tick_blocker *b)
{
    free(b->vals);
    free(b->first);
    free(b->lo);
    free(b->hi);
    free(b->last);
    free(b->once);
    free(b->varied);
    free(b->marked);
    free(b->first_blk);
    free(b->first_off);
    free(b->steady_until);
    free(b->blocks);
    free(b->unsteady);
    free(b->scratch);
    memset(b, 0, sizeof *b);
}

void tick_fold_init(struct tick_fold *f)
{
    memset(f, 0, sizeof *f);
}

void tick_fold_clear(struct tick_fold *f)
{
    f->npieces = f->nsteady = f->nfresh = f->n = f->bytes = 0;
}

void tick_fold_free(struct tick_fold *f)
{
    for (size_t i = 0; i < f->cap; i++)
        tick_piece_free(&f->pieces[i]);
    free(f->pieces);
    free(f->idx);
    free(f->off);
    free(f->steady);
    free(f->steady_value);
    free(f->fresh);
    free(f->fresh_since);
    memset(f, 0, sizeof *f);
}

/* Parallel arrays grown to cap elements each. On failure those already
 * grown keep their new room (their owner frees them either way). */
struct grow_item {
    void **p;
    size_t size;
};

static int realloc_each(const struct grow_item *a, size_t n, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        void *q = realloc(*a[i].p, cap * a[i].size);
        if (!q)
            return -1;
        *a[i].p = q;
    }
    return 0;
}

/* Room for n series; a series new to the block has no values yet. */
static int grow(struct tick_blocker *b, size_t n)
{
    if (n <= b->capseries) {
        for (size_t i = b->nseries; i < n; i++) {
            b->first[i] = b->first_off[i] = -1;
            b->varied[i] = b->marked[i] = false;
        }
        b->nseries = n > b->nseries ? n : b->nseries;
        return 0;
    }
    size_t cap = n < 64 ? 64 : n * 2;
    const struct grow_item items[] = {
        { (void **)&b->first, sizeof(int64_t) }, { (void **)&b->lo, sizeof(int64_t) },
        { (void **)&b->hi, sizeof(int64_t) }, { (void **)&b->last, sizeof(int64_t) },
        { (void **)&b->once, sizeof(int64_t) }, { (void **)&b->first_off, sizeof(int64_t) },
        { (void **)&b->first_blk, sizeof(size_t) }, { (void **)&b->steady_until, sizeof(size_t) },
        { (void **)&b->varied, sizeof(bool) }, { (void **)&b->marked, sizeof(bool) },
        { (void **)&b->vals, TICK_BLOCK_MAX * sizeof(int64_t) },
    };
    if (realloc_each(items, sizeof items / sizeof items[0], cap) < 0)
        return -1;
    if (!b->scratch)
        b->scratch = malloc(TICK_BLOCK_MAX * sizeof *b->scratch);
    if (!b->scratch)
        return -1;
    b->capseries = cap;
    return grow(b, n);
}

static int fold_room(struct tick_fold *f, size_t n)
{
    if (n <= f->cap)
        return 0;
    size_t cap = n < 64 ? 64 : n * 2;
    const struct grow_item items[] = {
        { (void **)&f->pieces, sizeof(struct tick_piece) }, { (void **)&f->idx, sizeof(size_t) },
        { (void **)&f->off, sizeof(size_t) }, { (void **)&f->steady, sizeof(size_t) },
        { (void **)&f->steady_value, sizeof(int64_t) }, { (void **)&f->fresh, sizeof(size_t) },
        { (void **)&f->fresh_since, sizeof(int64_t) },
    };
    if (realloc_each(items, sizeof items / sizeof items[0], cap) < 0)
        return -1;
    for (size_t i = f->cap; i < cap; i++)
        tick_piece_init(&f->pieces[i]);
    f->cap = cap;
    return 0;
}

int tick_blocker_finish(struct tick_blocker *b, struct tick_fold *done)
{
    tick_fold_clear(done);
    if (!b->n)
        return 0;
    if (fold_room(done, b->nseries) < 0 || ALLOC_GROW(b->blocks, b->nblocks + 1, b->capblocks) < 0)
        return -1;
    done->blk = b->blk;
    done->n = b->n;
    size_t here = b->nblocks++;
    b->blocks[here] = (struct tick_block_span){ b->blk, b->n };
    for (size_t i = 0; i < b->nseries; i++) {
        if (b->first[i] < 0)
            continue;
        size_t k0 = (size_t)b->first[i], n = b->n - k0;
        if (b->first_off[i] < 0) {
            b->first_blk[i] = here;
            b->first_off[i] = (int64_t)k0;
            b->steady_until[i] = here;
            done->fresh[done->nfresh] = i;
            done->fresh_since[done->nfresh++] = b->blk + (int64_t)k0;
        }
        if (!b->varied[i]) {
            b->steady_until[i] = here + 1;
            if (!b->marked[i]) {
                b->marked[i] = true;
                done->steady[done->nsteady] = i;
                done->steady_value[done->nsteady++] = b->once[i];
            }
            continue;
        }
        memcpy(b->scratch, b->vals + i * TICK_BLOCK_MAX + k0, n * sizeof *b->scratch);
        struct tick_piece *p = &done->pieces[done->npieces];
        if (tick_piece_encode(p, b->scratch, n) < 0)
            return -1;
        done->off[done->npieces] = k0;
        done->idx[done->npieces++] = i;
        done->bytes += p->len + 32;
    }
    /* Series go on into the next block from its first tick. */
    for (size_t i = 0; i < b->nseries; i++)
        b->first[i] = b->first[i] < 0 ? -1 : 0;
    b->n = 0;
    return 0;
}

/* Would tick values acc/have make some series' dense text too long? */
static bool overflows(const struct tick_blocker *b, const int64_t *acc, const bool *have, size_t nseries)
{
    if (b->n >= TICK_BLOCK_MAX)
        return true;
    for (size_t i = 0; i < nseries; i++) {
        if (!have[i] || i >= b->nseries || b->first[i] < 0)
            continue;
        int64_t lo = acc[i] < b->lo[i] ? acc[i] : b->lo[i], hi = acc[i] > b->hi[i] ? acc[i] : b->hi[i];
        if (tick_dense_bound((uint64_t)hi - (uint64_t)lo, b->n + 1 - (size_t)b->first[i]) > TICK_PIECE_MAX)
            return true;
    }
    return false;
}

int tick_blocker_add(struct tick_blocker *b, int64_t seq, const int64_t *acc, const bool *have, size_t nseries,
                     struct tick_fold *done)
{
    tick_fold_clear(done);
    if (b->n && overflows(b, acc, have, nseries) && tick_blocker_finish(b, done) < 0)
        return -1;
    if (grow(b, nseries) < 0)
        return -1;
    if (!b->n)
        b->blk = seq;
    size_t k = b->n++;
    for (size_t i = 0; i < nseries; i++) {
        if (b->first[i] < 0 && !have[i])
            continue;
        /* A series keeps its value until a tick changes it. */
        int64_t v = have[i] ? acc[i] : b->last[i];
        b->last[i] = v;
        if (b->first[i] < 0)
            b->once[i] = v;
        if (!b->varied[i] && v != b->once[i]) {
            b->varied[i] = true;
            /* Blocks it was steady in need their pieces now. */
            if (b->marked[i] && ALLOC_GROW(b->unsteady, b->nunsteady + 1, b->capunsteady) < 0)
                return -1;
            if (b->marked[i])
                b->unsteady[b->nunsteady++] = i;
        }
        if (b->first[i] < 0 || (size_t)b->first[i] == k) {
            b->first[i] = (int64_t)k;
            b->lo[i] = b->hi[i] = v;
        }
        b->lo[i] = v < b->lo[i] ? v : b->lo[i];
        b->hi[i] = v > b->hi[i] ? v : b->hi[i];
        b->vals[i * TICK_BLOCK_MAX + k] = v;
    }
    return 0;
}

int tick_fold_sql_prepare(struct pm_db *db, struct tick_fold_sql *s, struct pm_err *err)
{
    memset(s, 0, sizeof *s);
    if (store_db_prepare(db, &s->ins_block, "INSERT INTO tick_block(run_id, blk, n) VALUES (?,?,?)", err) < 0 ||
        store_db_prepare(db, &s->ins_piece,
                      "INSERT INTO tick_piece(run_id, blk, idx, off, width, base, scale, vals, runs)"
                      " VALUES (?,?,?,?,?,?,?,?,?)",
                      err) < 0 ||
        store_db_prepare(db, &s->del_open, "DELETE FROM tick_open WHERE run_id = ? AND seq >= ? AND seq < ?", err) < 0 ||
        store_db_prepare(db, &s->set_const, "UPDATE tick_series SET const_value = ? WHERE run_id = ? AND idx = ?", err) < 0 ||
        store_db_prepare(db, &s->set_since, "UPDATE tick_series SET since = ? WHERE run_id = ? AND idx = ?", err) < 0) {
        tick_fold_sql_finalize(s);
        return -1;
    }
    return 0;
}

void tick_fold_sql_finalize(struct tick_fold_sql *s)
{
    sqlite3_finalize(s->ins_block);
    sqlite3_finalize(s->ins_piece);
    sqlite3_finalize(s->del_open);
    sqlite3_finalize(s->set_const);
    sqlite3_finalize(s->set_since);
    memset(s, 0, sizeof *s);
}

static int set_const(struct pm_db *db, struct tick_fold_sql *s, int64_t run_id, size_t idx, const int64_t *v,
                     struct pm_err *err)
{
    if (v)
        sqlite3_bind_int64(s->set_const, 1, *v);
    else
        sqlite3_bind_null(s->set_const, 1);
    sqlite3_bind_int64(s->set_const, 2, run_id);
    sqlite3_bind_int64(s->set_const, 3, (int64_t)idx);
    return store_db_step_done(db, s->set_const, err);
}

static int put_piece(struct pm_db *db, struct tick_fold_sql *s, int64_t run_id, int64_t blk, size_t idx, size_t off,
                     const struct tick_piece *p, struct pm_err *err)
{
    sqlite3_bind_int64(s->ins_piece, 1, run_id);
    sqlite3_bind_int64(s->ins_piece, 2, blk);
    sqlite3_bind_int64(s->ins_piece, 3, (int64_t)idx);
    sqlite3_bind_int64(s->ins_piece, 4, (int64_t)off);
    sqlite3_bind_int(s->ins_piece, 5, p->width);
    sqlite3_bind_int64(s->ins_piece, 6, p->base);
    sqlite3_bind_int64(s->ins_piece, 7, p->scale);
    sqlite3_bind_null(s->ins_piece, 8);
    sqlite3_bind_null(s->ins_piece, 9);
    if (p->form == TICK_DENSE)
        sqlite3_bind_blob(s->ins_piece, 8, p->text, (int)p->len, SQLITE_STATIC);
    else if (p->form == TICK_RUNS)
        sqlite3_bind_text(s->ins_piece, 9, p->text, (int)p->len, SQLITE_STATIC);
    return store_db_step_done(db, s->ins_piece, err);
}

int tick_fold_write(struct pm_db *db, struct tick_fold_sql *s, int64_t run_id, const struct tick_fold *f,
                    struct pm_err *err)
{
    sqlite3_bind_int64(s->ins_block, 1, run_id);
    sqlite3_bind_int64(s->ins_block, 2, f->blk);
    sqlite3_bind_int64(s->ins_block, 3, (int64_t)f->n);
    if (store_db_step_done(db, s->ins_block, err) < 0)
        return -1;
    for (size_t j = 0; j < f->npieces; j++)
        if (put_piece(db, s, run_id, f->blk, f->idx[j], f->off[j], &f->pieces[j], err) < 0)
            return -1;
    /* since first: the series' rows in the view start at its first value,
     * a steady one's too (its const_value is given from since on). */
    for (size_t j = 0; j < f->nfresh; j++) {
        sqlite3_bind_int64(s->set_since, 1, f->fresh_since[j]);
        sqlite3_bind_int64(s->set_since, 2, run_id);
        sqlite3_bind_int64(s->set_since, 3, (int64_t)f->fresh[j]);
        if (store_db_step_done(db, s->set_since, err) < 0)
            return -1;
    }
    for (size_t j = 0; j < f->nsteady; j++)
        if (set_const(db, s, run_id, f->steady[j], &f->steady_value[j], err) < 0)
            return -1;
    sqlite3_bind_int64(s->del_open, 1, run_id);
    sqlite3_bind_int64(s->del_open, 2, f->blk);
    sqlite3_bind_int64(s->del_open, 3, f->blk + (int64_t)f->n);
    return store_db_step_done(db, s->del_open, err);
}

int tick_fold_unsteady(struct pm_db *db, struct tick_fold_sql *s, int64_t run_id, const struct tick_blocker *b,
                       struct pm_err *err)
{
    for (size_t u = 0; u < b->nunsteady; u++) {
        size_t i = b->unsteady[u];
        struct tick_piece c = { .base = b->once[i], .scale = 1, .form = TICK_CONST };
        for (size_t j = b->first_blk[i]; j < b->steady_until[i]; j++)
            if (put_piece(db, s, run_id, b->blocks[j].blk, i, j == b->first_blk[i] ? (size_t)b->first_off[i] : 0, &c,
                          err) < 0)
                return -1;
        if (set_const(db, s, run_id, i, NULL, err) < 0)
            return -1;
    }
    return 0;
}

void tick_blocker_unsteady_done(struct tick_blocker *b)
{
    for (size_t u = 0; u < b->nunsteady; u++) {
        size_t i = b->unsteady[u];
        b->marked[i] = false;
        b->steady_until[i] = b->first_blk[i];
    }
    b->nunsteady = 0;
}
