/* What bench/samples.sh needs beside pressmark itself:
 *
 *   sample_tool time DB REPS SQL...
 *       each query run REPS times, interleaved (query 1, 2, ..., 1, 2, ...),
 *       so that the machine's noise falls on all alike; prints the median
 *       time in ms and the rows of each, every value of every row read.
 *   sample_tool replay SRC RUN DST COPIES TICKS
 *       COPIES runs of TICKS ticks each in DST, written through pressmark's
 *       own tick writer (store/ticks.h), their values those of run RUN of
 *       SRC tick after tick, again and again, counters going on growing
 *       (each lap adds what the recorded run added), so a recording of a
 *       minute stands for runs of any length and the blocks are cut as a
 *       real run's are.
 *   sample_tool v7size DB RUN
 *       the bytes a tick of run RUN took in schema 7 (each tick a row of
 *       the changes since the last, as varints: store/tickcodec.h), its
 *       ticks encoded so into a scratch table and measured in pages, as
 *       the run's own are.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "store/db.h"
#include "store/machines.h"
#include "store/runs.h"
#include "store/tickcodec.h"
#include "store/ticks.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int time_queries(const char *path, int reps, char **sql, int nq)
{
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "sample_tool: %s: %s\n", path, sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_stmt **st = calloc((size_t)nq, sizeof *st);
    double *t = calloc((size_t)(nq * reps), sizeof *t);
    long *rows = calloc((size_t)nq, sizeof *rows);
    double sink = 0;
    for (int q = 0; q < nq; q++)
        if (sqlite3_prepare_v2(db, sql[q], -1, &st[q], NULL) != SQLITE_OK) {
            fprintf(stderr, "sample_tool: %s\n", sqlite3_errmsg(db));
            return 1;
        }
    for (int r = 0; r < reps; r++)
        for (int q = 0; q < nq; q++) {
            double t0 = now_s();
            long n = 0;
            while (sqlite3_step(st[q]) == SQLITE_ROW) {
                n++;
                for (int c = 0; c < sqlite3_column_count(st[q]); c++)
                    sink += sqlite3_column_type(st[q], c) == SQLITE_TEXT ? sqlite3_column_bytes(st[q], c)
                                                                          : sqlite3_column_double(st[q], c);
            }
            sqlite3_reset(st[q]);
            t[q * reps + r] = now_s() - t0;
            rows[q] = n;
        }
    for (int q = 0; q < nq; q++) {
        qsort(t + q * reps, (size_t)reps, sizeof *t, cmp_double);
        printf("%.3f %ld\n", t[q * reps + reps / 2] * 1e3, rows[q]);
        sqlite3_finalize(st[q]);
    }
    sqlite3_close(db);
    free(st);
    free(t);
    free(rows);
    return sink == 0.5 ? 1 : 0;   /* never: keeps the reads */
}

/* The recorded run, tick by tick, in memory: values[k * n + i]. */
struct recording {
    size_t n, ticks;
    char **names;
    bool *real, *have;
    int64_t *values, *t_ns;
};

static int load_recording(const char *path, int64_t run, struct recording *rec)
{
    struct pm_db db;
    struct pm_err err;
    struct tick_reader r;
    if (store_db_open(&db, path, false, &err) < 0 || tick_reader_open(&r, &db, run, &err) < 0) {
        fprintf(stderr, "sample_tool: %s\n", err.msg);
        return -1;
    }
    memset(rec, 0, sizeof *rec);
    rec->n = r.n;
    rec->names = calloc(r.n, sizeof *rec->names);
    rec->real = calloc(r.n, sizeof *rec->real);
    size_t cap = 0;
    int more;
    while ((more = tick_reader_next(&r, &err)) == 1) {
        if (rec->ticks == cap) {
            cap = cap ? cap * 2 : 1024;
            rec->values = realloc(rec->values, cap * r.n * sizeof *rec->values);
            rec->have = realloc(rec->have, cap * r.n * sizeof *rec->have);
            rec->t_ns = realloc(rec->t_ns, cap * sizeof *rec->t_ns);
        }
        for (size_t i = 0; i < r.n; i++) {
            rec->have[rec->ticks * r.n + i] = r.have[i];
            rec->values[rec->ticks * r.n + i] = r.acc[i];
        }
        rec->t_ns[rec->ticks++] = r.t_ns;
    }
    for (size_t i = 0; i < r.n; i++) {
        rec->names[i] = strdup(r.names[i]);
        rec->real[i] = r.real[i];
    }
    tick_reader_close(&r);
    store_db_close(&db);
    if (more < 0 || rec->ticks < 2) {
        fprintf(stderr, "sample_tool: %s: run %lld: %s\n", path, (long long)run, more < 0 ? err.msg : "too few ticks");
        return -1;
    }
    return 0;
}

/* Tick k of a replay: the recording's tick k mod its length, a lap's
 * growth added to each series (its last value less its first). */
static void replay_tick(const struct recording *rec, size_t k, struct series_table *t, uint64_t mark)
{
    size_t lap = k / rec->ticks, j = k % rec->ticks;
    for (size_t i = 0; i < t->n; i++) {
        if (!rec->have[j * rec->n + i])
            continue;
        int64_t first = 0, last = 0;
        for (size_t a = 0; a < rec->ticks; a++)
            if (rec->have[a * rec->n + i]) {
                first = rec->values[a * rec->n + i];
                break;
            }
        last = rec->values[(rec->ticks - 1) * rec->n + i];
        int64_t v = rec->values[j * rec->n + i] + (int64_t)lap * (last - first);
        struct pm_value pv = rec->real[i] ? (struct pm_value){ .kind = PM_REAL, .r = (double)v / 1e6 }
                                          : (struct pm_value){ .kind = PM_INT, .i = v };
        series_record(&t->v[i], pv);
        t->v[i].seen_tick = mark;
    }
}

static int replay(const char *src, int64_t run, const char *dst, int copies, size_t ticks)
{
    struct recording rec;
    if (load_recording(src, run, &rec) < 0)
        return 1;
    struct pm_db db;
    struct pm_err err;
    struct machine_info mi;
    if (store_db_open(&db, dst, true, &err) < 0 || pm_machine_read(&mi, &err) < 0) {
        fprintf(stderr, "sample_tool: %s\n", err.msg);
        return 1;
    }
    int64_t mid = store_machine(&db, &mi, &err);
    int64_t period = (rec.t_ns[rec.ticks - 1] - rec.t_ns[0]) * (int64_t)rec.ticks / (int64_t)(rec.ticks - 1);
    for (int c = 0; c < copies; c++) {
        struct run_row row = { .label = "replay", .workload = "record", .params = "",
                               .interval_ns = (uint64_t)(period / (int64_t)rec.ticks) };
        struct tick_store ts;
        if (mid <= 0 || store_run_begin(&db, mid, &row, &err) < 0 || tick_store_open(&ts, dst, row.id, &err) < 0) {
            fprintf(stderr, "sample_tool: %s\n", err.msg);
            return 1;
        }
        struct series_table t;
        series_table_init(&t);
        for (size_t k = 0; k < ticks; k++) {
            /* As the sampler does: a series joins the table at the tick it
             * first has a value (the recording's positions kept). */
            size_t first_new = t.n;
            while (t.n < rec.n && rec.have[(k % rec.ticks) * rec.n + t.n])
                series_table_get(&t, rec.names[t.n], strlen(rec.names[t.n]));
            replay_tick(&rec, k, &t, k + 1);
            int64_t t_ns = rec.t_ns[k % rec.ticks] + (int64_t)(k / rec.ticks) * period;
            if (ts.base.write(&ts.base, k, (uint64_t)t_ns, &t, first_new, k + 1, &err) < 0) {
                fprintf(stderr, "sample_tool: %s\n", err.msg);
                return 1;
            }
        }
        if (ts.base.flush(&ts.base, &err) < 0) {
            fprintf(stderr, "sample_tool: %s\n", err.msg);
            return 1;
        }
        tick_store_close(&ts);
        series_table_free(&t);
        struct run_record end = { .status = "ok", .ended_ns = row.started_ns + (int64_t)ticks * period / (int64_t)rec.ticks };
        if (store_run_end(&db, row.id, &end, &err) < 0) {
            fprintf(stderr, "sample_tool: %s\n", err.msg);
            return 1;
        }
    }
    store_db_close(&db);
    return 0;
}

static int v7size(const char *path, int64_t run)
{
    struct recording rec;
    if (load_recording(path, run, &rec) < 0)
        return 1;
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
        sqlite3_exec(db, "CREATE TABLE tick (run_id INTEGER NOT NULL, seq INTEGER NOT NULL, t_ns INTEGER NOT NULL,"
                         " data BLOB NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID; BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return 1;
    sqlite3_stmt *ins;
    sqlite3_prepare_v2(db, "INSERT INTO tick VALUES (?, ?, ?, ?)", -1, &ins, NULL);
    struct tick_encoder e;
    tick_encoder_init(&e);
    size_t *idx = malloc(rec.n * sizeof *idx);
    int64_t *v = malloc(rec.n * sizeof *v);
    for (size_t k = 0; k < rec.ticks; k++) {
        size_t m = 0;
        for (size_t i = 0; i < rec.n; i++)
            if (rec.have[k * rec.n + i]) {
                idx[m] = i;
                v[m++] = rec.values[k * rec.n + i];
            }
        tick_encode_values(&e, rec.n, idx, v, m);
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_int64(ins, 2, (int64_t)k);
        sqlite3_bind_int64(ins, 3, rec.t_ns[k]);
        sqlite3_bind_blob(ins, 4, e.len ? (const void *)e.buf : "", (int)e.len, SQLITE_STATIC);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    sqlite3_stmt *q;
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_prepare_v2(db, "SELECT sum(pgsize) FROM dbstat WHERE name = 'tick'", -1, &q, NULL);
    if (sqlite3_step(q) == SQLITE_ROW)
        printf("%.0f\n", sqlite3_column_double(q, 0) / (double)rec.ticks);
    sqlite3_finalize(q);
    sqlite3_close(db);
    tick_encoder_free(&e);
    free(idx);
    free(v);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "time") == 0)
        return time_queries(argv[2], atoi(argv[3]), argv + 4, argc - 4);
    if (argc == 7 && strcmp(argv[1], "replay") == 0)
        return replay(argv[2], atoll(argv[3]), argv[4], atoi(argv[5]), (size_t)atoll(argv[6]));
    if (argc == 4 && strcmp(argv[1], "v7size") == 0)
        return v7size(argv[2], atoll(argv[3]));
    fprintf(stderr, "usage: sample_tool time DB REPS SQL... | replay SRC RUN DST COPIES TICKS | v7size DB RUN\n");
    return 2;
}
