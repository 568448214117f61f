#include "store/texts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "lib/alloc.h"

int run_texts_add(struct run_texts *t, const char *what, const char *data, size_t len, bool cut)
{
    char *copy = malloc(len + 1);
    if (!copy || ALLOC_GROW(t->v, t->n + 1, t->cap) < 0) {
        free(copy);
        return -1;
    }
    if (len)
        memcpy(copy, data, len);
    copy[len] = '\0';
    struct run_text *x = &t->v[t->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->what, sizeof x->what, "%s", what);
    x->data = copy;
    x->len = len;
    x->cut = cut;
    return 0;
}

void run_texts_free(struct run_texts *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].data);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* One text, compressed: a tool's output is mostly repeated words, and a
 * fio JSON of many jobs shrinks to a tenth. */
static int store_one(struct pm_db *db, sqlite3_stmt *st, int64_t run_id, size_t idx, const struct run_text *x,
                     struct pm_err *err)
{
    size_t len = x->len > RUN_TEXT_MAX ? RUN_TEXT_MAX : x->len;
    uLongf zlen = compressBound((uLong)len);
    Bytef *z = malloc(zlen ? zlen : 1);
    if (!z)
        return pm_errf(err, "out of memory compressing the run's %s", x->what);
    if (compress2(z, &zlen, (const Bytef *)x->data, (uLong)len, Z_DEFAULT_COMPRESSION) != Z_OK) {
        free(z);
        return pm_errf(err, "zlib could not compress the run's %s", x->what);
    }
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (int64_t)idx);
    sqlite3_bind_text(st, 3, x->what, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (int64_t)len);
    sqlite3_bind_int(st, 5, x->cut || len < x->len);
    sqlite3_bind_blob(st, 6, z, (int)zlen, SQLITE_STATIC);
    int rc = pm_db_step_done(db, st, err);
    free(z);
    return rc;
}

int store_run_texts(struct pm_db *db, int64_t run_id, const struct run_texts *t, struct pm_err *err)
{
    if (!t || t->n == 0)
        return 0;
    sqlite3_stmt *st;
    if (pm_db_prepare(db, &st, "INSERT OR REPLACE INTO run_text(run_id, idx, what, size, cut, data) VALUES (?,?,?,?,?,?)",
                      err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < t->n && rc == 0; i++)
        rc = store_one(db, st, run_id, i, &t->v[i], err);
    sqlite3_finalize(st);
    return rc;
}

/* A row's text inflated into a buffer of its stated size: a database is
 * data, and a row claiming more than RUN_TEXT_MAX, or inflating to more
 * or less than it claims, is refused before more is allocated. */
static int inflate_row(sqlite3_stmt *st, const char *what, struct run_texts *t, struct pm_err *err)
{
    sqlite3_int64 size = sqlite3_column_int64(st, 1);
    if (size < 0 || size > RUN_TEXT_MAX)
        return pm_errf(err, "the run's text '%.64s' claims %lld bytes (at most %u are kept)", what, (long long)size,
                       RUN_TEXT_MAX);
    const void *z = sqlite3_column_blob(st, 3);
    int zlen = sqlite3_column_bytes(st, 3);
    char *buf = malloc((size_t)size + 1);
    if (!buf)
        return pm_errf(err, "out of memory for the run's text '%.64s'", what);
    uLongf got = (uLongf)size;
    int zrc = uncompress((Bytef *)buf, &got, z ? z : (const void *)"", (uLong)zlen);
    int rc = 0;
    if (zrc != Z_OK || got != (uLongf)size)
        rc = pm_errf(err, "the run's text '%.64s' does not inflate to its %lld bytes", what, (long long)size);
    else if (run_texts_add(t, what, buf, (size_t)size, sqlite3_column_int(st, 2) != 0) < 0)
        rc = pm_errf(err, "out of memory for the run's text '%.64s'", what);
    free(buf);
    return rc;
}

int load_run_texts(struct pm_db *db, int64_t run_id, struct run_texts *t, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (pm_db_prepare(db, &st, "SELECT what, size, cut, data FROM run_text WHERE run_id = ? ORDER BY idx", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        char what[1024];
        snprintf(what, sizeof what, "%s", pm_col_text(st, 0));
        rc = inflate_row(st, what, t, err);
    }
    sqlite3_finalize(st);
    if (rc < 0)
        run_texts_free(t);
    return rc;
}
