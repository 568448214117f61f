#include "collectors/sampler.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "harness/percentile.h"
#include "harness/timeutil.h"

struct db_sink {
    struct sink base;
    struct sampler *s;
};

/* Series ids are shared by all runs; look each name up (or add it) once per
 * sampler and keep the id in the table. */
static int64_t series_db_id(struct sampler *s, struct series *se)
{
    if (se->db_id >= 0)
        return se->db_id;
    sqlite3_bind_text(s->ins_series, 1, se->name, -1, SQLITE_STATIC);
    if (pm_db_step_done(&s->db, s->ins_series, &s->err) < 0)
        return -1;
    sqlite3_bind_text(s->sel_series, 1, se->name, -1, SQLITE_STATIC);
    if (sqlite3_step(s->sel_series) == SQLITE_ROW)
        se->db_id = sqlite3_column_int64(s->sel_series, 0);
    else
        pm_errf(&s->err, "%s: series %s: %s", s->db.path, se->name, sqlite3_errmsg(s->db.h));
    sqlite3_reset(s->sel_series);
    return se->db_id;
}

static void db_put(struct sink *self, const char *name, size_t len, struct pm_value v)
{
    struct sampler *s = ((struct db_sink *)self)->s;
    if (s->failed)
        return;
    struct series *se = series_table_get(&s->table, name, len);
    if (!se) {
        s->failed = true;
        pm_errf(&s->err, "out of memory for series");
        return;
    }
    series_record(se, v);
    int64_t id = series_db_id(s, se);
    if (id < 0) {
        s->failed = true;
        return;
    }
    sqlite3_bind_int64(s->ins_sample, 1, s->run_id);
    sqlite3_bind_int64(s->ins_sample, 2, (int64_t)s->seq);
    sqlite3_bind_int64(s->ins_sample, 3, id);
    if (v.kind == PM_INT)
        sqlite3_bind_int64(s->ins_sample, 4, v.i);
    else
        sqlite3_bind_double(s->ins_sample, 4, v.r);
    if (pm_db_step_done(&s->db, s->ins_sample, &s->err) < 0)
        s->failed = true;
}

static int take_tick(struct sampler *s, uint64_t now)
{
    struct db_sink sink = { .base.put = db_put, .s = s };
    if (pm_db_exec(&s->db, "BEGIN", &s->err) < 0)
        return -1;
    sqlite3_bind_int64(s->ins_tick, 1, s->run_id);
    sqlite3_bind_int64(s->ins_tick, 2, (int64_t)s->seq);
    sqlite3_bind_int64(s->ins_tick, 3, (int64_t)(now - s->t0));
    if (pm_db_step_done(&s->db, s->ins_tick, &s->err) < 0) {
        pm_db_exec(&s->db, "ROLLBACK", NULL);
        return -1;
    }
    for (size_t i = 0; i < s->ncols; i++) {
        struct collector *c = &s->cols[i];
        if (!c->open_ok)
            continue;
        struct pm_err cerr;
        if (c->ops->sample(c, &sink.base, &cerr) == 0) {
            c->ticks++;
        } else {
            /* One unreadable tick is noted, not fatal: a cgroup file can
             * vanish when the workload's cgroup is torn down at the end. */
            c->failures++;
            if (!c->note[0])
                snprintf(c->note, sizeof c->note, "read failed: %s", cerr.msg);
        }
    }
    if (s->failed) {
        pm_db_exec(&s->db, "ROLLBACK", NULL);
        return -1;
    }
    if (pm_db_exec(&s->db, "COMMIT", &s->err) < 0) {
        pm_db_exec(&s->db, "ROLLBACK", NULL);
        return -1;
    }
    s->seq++;
    return 0;
}

static void record_lateness(struct sampler *s, int64_t late)
{
    if (s->nlate == s->caplate) {
        size_t cap = s->caplate ? s->caplate * 2 : 1024;
        int64_t *v = realloc(s->late_ns, cap * sizeof *v);
        if (!v)
            return;
        s->late_ns = v;
        s->caplate = cap;
    }
    s->late_ns[s->nlate++] = late;
}

static void *sampler_main(void *arg)
{
    struct sampler *s = arg;
    uint64_t deadline = s->t0 + s->interval_ns;
    pthread_mutex_lock(&s->mu);
    while (!s->stop && !s->failed) {
        struct timespec ts = pm_ns_to_timespec(deadline);
        int rc = pthread_cond_timedwait(&s->cv, &s->mu, &ts);
        if (s->stop)
            break;
        if (rc != ETIMEDOUT)
            continue;       /* spurious wake-up: the deadline has not come */
        pthread_mutex_unlock(&s->mu);
        uint64_t now = pm_now_ns();
        record_lateness(s, now > deadline ? (int64_t)(now - deadline) : 0);
        if (take_tick(s, now) < 0)
            s->failed = true;
        /* Deadlines stay on the grid t0 + k * interval; slots we are already
         * past are skipped and counted rather than taken in a burst. */
        uint64_t after = pm_now_ns();
        deadline += s->interval_ns;
        if (after >= deadline) {
            uint64_t behind = (after - deadline) / s->interval_ns + 1;
            s->missed_ticks += behind;
            deadline += behind * s->interval_ns;
        }
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    if (!s->failed && take_tick(s, pm_now_ns()) < 0)
        s->failed = true;
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        s->cpu_s = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
    return NULL;
}

int sampler_start(struct sampler *s, const char *db_path, int64_t run_id, uint64_t interval_ns,
                  struct collector *cols, size_t ncols, struct pm_err *err)
{
    memset(s, 0, sizeof *s);
    s->cols = cols;
    s->ncols = ncols;
    s->run_id = run_id;
    s->interval_ns = interval_ns;
    series_table_init(&s->table);
    if (pm_db_open(&s->db, db_path, false, err) < 0)
        return -1;
    if (pm_db_prepare(&s->db, &s->ins_tick, "INSERT INTO tick(run_id, seq, t_ns) VALUES (?,?,?)", err) < 0 ||
        pm_db_prepare(&s->db, &s->ins_sample,
                      "INSERT INTO sample(run_id, seq, series_id, value) VALUES (?,?,?,?)", err) < 0 ||
        pm_db_prepare(&s->db, &s->ins_series, "INSERT OR IGNORE INTO series(name) VALUES (?)", err) < 0 ||
        pm_db_prepare(&s->db, &s->sel_series, "SELECT id FROM series WHERE name = ?", err) < 0)
        goto fail;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->mu, NULL);
    s->t0 = pm_now_ns();
    if (take_tick(s, s->t0) < 0) {
        pm_errf(err, "first tick: %s", s->err.msg);
        goto fail_sync;
    }
    int rc = pthread_create(&s->thread, NULL, sampler_main, s);
    if (rc) {
        pm_errf(err, "sampler thread: %s", strerror(rc));
        goto fail_sync;
    }
    s->running = true;
    return 0;
fail_sync:
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
fail:
    sampler_free(s);
    return -1;
}

int sampler_stop(struct sampler *s, struct pm_err *err)
{
    if (!s->running)
        return 0;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    s->running = false;
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    if (s->failed)
        return pm_errf(err, "sampler: %s", s->err.msg);
    return 0;
}

void sampler_stats(struct sampler *s, struct sampler_stats *out)
{
    memset(out, 0, sizeof *out);
    out->ticks = s->seq;
    out->missed = s->missed_ticks;
    out->cpu_s = s->cpu_s;
    if (s->nlate) {
        out->late_p50_ms = pm_percentile_i64(s->late_ns, s->nlate, 50) / 1e6;
        out->late_p99_ms = pm_percentile_i64(s->late_ns, s->nlate, 99) / 1e6;
        out->late_max_ms = (double)s->late_ns[s->nlate - 1] / 1e6;
    }
}

void sampler_free(struct sampler *s)
{
    sqlite3_finalize(s->ins_tick);
    sqlite3_finalize(s->ins_sample);
    sqlite3_finalize(s->ins_series);
    sqlite3_finalize(s->sel_series);
    s->ins_tick = s->ins_sample = s->ins_series = s->sel_series = NULL;
    pm_db_close(&s->db);
    series_table_free(&s->table);
    free(s->late_ns);
    s->late_ns = NULL;
}
