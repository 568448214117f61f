#include "store/ticks.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* The tick's values as a JSON array by series position: integers written
 * by hand (snprintf per value was a tenth of the sampler's time), reals
 * (PSI averages) with enough digits to read back the same. */
static int encode_tick(struct tick_store *s, const struct series_table *t, uint64_t mark, struct pm_err *err)
{
    size_t need = t->n * 32 + 16;
    if (need > s->json_cap) {
        char *j = realloc(s->json, need);
        if (!j)
            return pm_errf(err, "out of memory encoding a tick");
        s->json = j;
        s->json_cap = need;
    }
    char *p = s->json;
    *p++ = '[';
    for (size_t i = 0; i < t->n; i++) {
        const struct series *se = &t->v[i];
        if (i)
            *p++ = ',';
        if (se->seen_tick != mark) {
            memcpy(p, "null", 4);
            p += 4;
        } else if (se->last.kind == PM_INT) {
            int64_t v = se->last.i;
            if (v < 0) {
                *p++ = '-';
                p = put_u64(p, (uint64_t)0 - (uint64_t)v);
            } else {
                p = put_u64(p, (uint64_t)v);
            }
        } else {
            p += snprintf(p, 31, "%.15g", se->last.r);
        }
    }
    *p++ = ']';
    *p = '\0';
    return (int)(p - s->json);
}

/* In steady state a tick is a single INSERT in autocommit mode; a tick
 * that met new series wraps their tick_series rows and the tick in
 * BEGIN/COMMIT, so positions and values are never stored apart. */
static int write_tick(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const struct series_table *t,
                      size_t first_new, uint64_t mark, struct pm_err *err)
{
    struct tick_store *s = (struct tick_store *)w;
    int len = encode_tick(s, t, mark, err);
    if (len < 0)
        return -1;
    bool new_series = first_new < t->n;
    if (new_series && pm_db_step_done(&s->db, s->begin, err) < 0)
        goto fail;
    for (size_t i = first_new; i < t->n; i++) {
        sqlite3_bind_int64(s->ins_series, 1, s->run_id);
        sqlite3_bind_int64(s->ins_series, 2, (int64_t)i);
        sqlite3_bind_text(s->ins_series, 3, t->v[i].name, -1, SQLITE_STATIC);
        if (pm_db_step_done(&s->db, s->ins_series, err) < 0)
            goto fail;
    }
    sqlite3_bind_int64(s->ins_tick, 1, s->run_id);
    sqlite3_bind_int64(s->ins_tick, 2, (int64_t)seq);
    sqlite3_bind_int64(s->ins_tick, 3, (int64_t)t_ns);
    sqlite3_bind_text(s->ins_tick, 4, s->json, len, SQLITE_STATIC);
    if (pm_db_step_done(&s->db, s->ins_tick, err) < 0)
        goto fail;
    if (new_series && pm_db_step_done(&s->db, s->commit, err) < 0)
        goto fail;
    return 0;
fail:
    s->full |= pm_db_full(&s->db);
    if (!sqlite3_get_autocommit(s->db.h))
        pm_db_exec(&s->db, "ROLLBACK", NULL);
    return -1;
}

int tick_store_open(struct tick_store *ts, const char *db_path, int64_t run_id, struct pm_err *err)
{
    memset(ts, 0, sizeof *ts);
    ts->base.write = write_tick;
    ts->run_id = run_id;
    if (pm_db_open(&ts->db, db_path, false, err) < 0)
        return -1;
    if (pm_db_prepare(&ts->db, &ts->ins_tick, "INSERT INTO tick(run_id, seq, t_ns, data) VALUES (?,?,?,?)", err) < 0 ||
        pm_db_prepare(&ts->db, &ts->ins_series, "INSERT INTO tick_series(run_id, idx, name) VALUES (?,?,?)", err) < 0 ||
        /* IMMEDIATE: the write lock is taken (waiting out a busy database)
         * at BEGIN, never in an upgrade that SQLite could only fail. */
        pm_db_prepare(&ts->db, &ts->begin, "BEGIN IMMEDIATE", err) < 0 ||
        pm_db_prepare(&ts->db, &ts->commit, "COMMIT", err) < 0) {
        tick_store_close(ts);
        return -1;
    }
    return 0;
}

void tick_store_close(struct tick_store *ts)
{
    sqlite3_finalize(ts->ins_tick);
    sqlite3_finalize(ts->ins_series);
    sqlite3_finalize(ts->begin);
    sqlite3_finalize(ts->commit);
    ts->ins_tick = ts->ins_series = ts->begin = ts->commit = NULL;
    free(ts->json);
    ts->json = NULL;
    pm_db_close(&ts->db);
}
