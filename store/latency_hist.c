#include "store/latency_hist.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"

int store_run_hists_put(struct run_hists *l, const char *name, const struct loghist *h)
{
    struct run_hist *e = NULL;
    for (size_t i = 0; i < l->n && !e; i++)
        if (strcmp(l->v[i].name, name) == 0)
            e = &l->v[i];
    if (!e) {
        if (ALLOC_GROW(l->v, l->n + 1, l->cap) < 0)
            return -1;
        e = &l->v[l->n++];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", name);
    }
    loghist_free(&e->h);
    return loghist_merge(&e->h, h);
}

void store_run_hists_free(struct run_hists *l)
{
    for (size_t i = 0; i < l->n; i++)
        loghist_free(&l->v[i].h);
    free(l->v);
    memset(l, 0, sizeof *l);
}

int store_latency_hist(struct pm_db *db, int64_t run_id, const char *name, const struct loghist *h,
                       struct pm_err *err)
{
    if (!h->count || !h->b)
        return 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "INSERT OR REPLACE INTO latency_hist(run_id, name, lo, hi, count) VALUES (?,?,?,?,?)",
                      err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < LOGHIST_BUCKETS && rc == 0; i++) {
        if (!h->b[i])
            continue;
        uint64_t lo, hi;
        loghist_bounds(i, &lo, &hi);
        if (hi > INT64_MAX)
            hi = INT64_MAX;
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (int64_t)lo);
        sqlite3_bind_int64(st, 4, (int64_t)hi);
        sqlite3_bind_int64(st, 5, (int64_t)h->b[i]);
        rc = store_db_step_done(db, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

int load_latency_hist(struct pm_db *db, const int64_t *ids, size_t n, const char *name, struct loghist *h,
                      struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT lo, count FROM latency_hist WHERE run_id = ? AND name = ?", err) < 0)
        return -1;
    int had = 0;
    for (size_t r = 0; r < n; r++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, ids[r]);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
        int rows = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t lo = sqlite3_column_int64(st, 0), count = sqlite3_column_int64(st, 1);
            /* A hostile database's negative numbers are not latencies. */
            if (lo < 0 || count <= 0)
                continue;
            if (loghist_add_bucket(h, (uint64_t)lo, (uint64_t)count) < 0) {
                sqlite3_finalize(st);
                return pm_errf(err, "out of memory");
            }
            rows++;
        }
        had += rows > 0;
    }
    sqlite3_finalize(st);
    return had;
}
