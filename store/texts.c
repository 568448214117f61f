#include "store/texts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "lib/alloc.h"
#include "lib/quote.h"

int store_run_texts_add(struct run_texts *t, const char *what, const char *data, size_t len, bool cut)
{
    if (t->n >= RUN_TEXTS_MAX_ROWS)
        return -1;
    size_t kept = 0;
    for (size_t i = 0; i < t->n; i++)
        kept += t->v[i].len;
    if (len > RUN_TEXTS_MAX_TOTAL - kept) {
        len = RUN_TEXTS_MAX_TOTAL - kept;
        cut = true;
    }
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

void store_run_texts_free(struct run_texts *t)
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
    int rc = store_db_step_done(db, st, err);
    free(z);
    return rc;
}

int store_run_texts(struct pm_db *db, int64_t run_id, const struct run_texts *t, struct pm_err *err)
{
    if (!t || t->n == 0)
        return 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "INSERT OR REPLACE INTO run_text(run_id, idx, what, size, cut, data) VALUES (?,?,?,?,?,?)",
                      err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < t->n && rc == 0; i++)
        rc = store_one(db, st, run_id, i, &t->v[i], err);
    sqlite3_finalize(st);
    return rc;
}

/* A row's name as error messages print it: a database is data, and its
 * text reaches a terminal on stderr. */
static void row_name(sqlite3_stmt *st, char *buf, size_t len)
{
    char raw[1024];
    snprintf(raw, sizeof raw, "%s", store_col_text(st, 0));
    quote_terminal(raw, buf, len);
}

/* A row's text inflated into a buffer of its stated size and handed to
 * fn, then freed: a row claiming more than RUN_TEXT_MAX, or inflating to
 * more or less than it claims, is refused before more is allocated. */
static int inflate_row(sqlite3_stmt *st, run_text_fn fn, void *arg, struct pm_err *err)
{
    struct run_text x = { .cut = sqlite3_column_int(st, 2) != 0 };
    row_name(st, x.what, sizeof x.what);
    sqlite3_int64 size = sqlite3_column_int64(st, 1);
    if (size < 0 || size > RUN_TEXT_MAX)
        return pm_errf(err, "the run's text '%.64s' claims %lld bytes (at most %u are kept)", x.what,
                       (long long)size, RUN_TEXT_MAX);
    const void *z = sqlite3_column_blob(st, 3);
    int zlen = sqlite3_column_bytes(st, 3);
    if (!(x.data = malloc((size_t)size + 1)))
        return pm_errf(err, "out of memory for the run's text '%.64s'", x.what);
    uLongf got = (uLongf)size;
    int zrc = uncompress((Bytef *)x.data, &got, z ? z : (const void *)"", (uLong)zlen);
    int rc = 0;
    if (zrc != Z_OK || got != (uLongf)size) {
        rc = pm_errf(err, "the run's text '%.64s' does not inflate to its %lld bytes", x.what, (long long)size);
    } else {
        x.data[size] = '\0';
        x.len = (size_t)size;
        /* The name as stored for fn: it prints through its own quoting. */
        snprintf(x.what, sizeof x.what, "%s", store_col_text(st, 0));
        rc = fn(arg, &x);
    }
    free(x.data);
    return rc;
}

/* The run's texts together, before any is inflated: more rows or more
 * bytes than a run keeps is no run of pressmark's, and inflating it
 * would cost what it claims. */
int count_run_texts(struct pm_db *db, int64_t run_id, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT count(*), total(size) FROM run_text WHERE run_id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc;
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = pm_errf(err, "the run's texts: %s", sqlite3_errmsg(db->h));
    } else {
        sqlite3_int64 n = sqlite3_column_int64(st, 0);
        double total = sqlite3_column_double(st, 1);   /* total(): no overflow, whatever the rows claim */
        rc = (int)n;
        if (n > RUN_TEXTS_MAX_ROWS || total > RUN_TEXTS_MAX_TOTAL)
            rc = pm_errf(err, "the run keeps %lld texts of %.0f bytes (at most %u texts of %u MiB together)",
                         (long long)n, total, RUN_TEXTS_MAX_ROWS, RUN_TEXTS_MAX_TOTAL >> 20);
    }
    sqlite3_finalize(st);
    return rc;
}

int each_run_text(struct pm_db *db, int64_t run_id, run_text_fn fn, void *arg, struct pm_err *err)
{
    if (count_run_texts(db, run_id, err) < 0)
        return -1;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT what, size, cut, data FROM run_text WHERE run_id = ? ORDER BY idx", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 0, n = 0, s;
    while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
        rc = inflate_row(st, fn, arg, err);
        n++;
    }
    if (rc == 0 && s != SQLITE_DONE)
        rc = pm_errf(err, "the run's texts: %s", sqlite3_errmsg(db->h));
    sqlite3_finalize(st);
    return rc < 0 ? rc : n;
}
