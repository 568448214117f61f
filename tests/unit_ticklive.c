/* Reading a run while it records: after every commit of the tick store,
 * pressmark's reader and the sample view give exactly the values written
 * so far, finished blocks and open rows together: a counter, a PSI-like
 * real, a series steady for 430 ticks that then changes inside the block
 * being gathered, one that first appears at tick 300 (in a later block), one
 * absent every fifth tick, and an integer beyond 2^53. Then the store is
 * closed unflushed, as a killed pressmark leaves it, and read once more.
 * (Written by a review of the tests: open rows were read by no test.) */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "store/db.h"
#include "store/machines.h"
#include "store/runs.h"
#include "store/tickcodec.h"
#include "store/ticks.h"
#include "tests/tap.h"

#define NS 6
#define NT 700
static int64_t want[NT][NS];
static bool has[NT][NS];

static bool appears(size_t i, int k)
{
    return i == 3 ? k >= 300 : true;
}

static bool present(size_t i, int k)
{
    return appears(i, k) && !(i == 4 && k % 5 == 2);
}
static struct pm_value val(size_t i, int k)
{
    switch (i) {
    case 0: return (struct pm_value){ .kind = PM_INT, .i = (int64_t)k * 3 };
    case 1: return (struct pm_value){ .kind = PM_REAL, .r = 1.68 + (k % 7) * 0.01 };
    case 2: return (struct pm_value){ .kind = PM_INT, .i = k < 430 ? 42 : 43 };
    case 3: return (struct pm_value){ .kind = PM_INT, .i = k };
    case 4: return (struct pm_value){ .kind = PM_INT, .i = k % 11 };
    default: return (struct pm_value){ .kind = PM_INT, .i = 9007199254740993ll + k % 2 };
    }
}

static int check(const char *path, int64_t run_id, int upto, int *cbad, int *vbad, int *vrows)
{
    struct pm_db db;
    struct pm_err err;
    if (store_db_open(&db, path, false, &err) < 0)
        return -1;
    struct tick_reader rd;
    if (tick_reader_open(&rd, &db, run_id, &err) < 0) {
        printf("# reader open: %s\n", err.msg);
        store_db_close(&db);
        return -1;
    }
    int k = 0, rc;
    while ((rc = tick_reader_next(&rd, &err)) == 1) {
        for (size_t i = 0; i < NS && i < rd.n; i++) {
            double v;
            bool got = tick_reader_value(&rd, i, &v);
            if (got != has[k][i] || (got && rd.acc[i] != want[k][i]))
                (*cbad)++;
        }
        k++;
    }
    if (rc < 0) {
        printf("# reader at tick %d of %d: %s\n", k, upto, err.msg);
        (*cbad)++;
    }
    if (k != upto) {
        printf("# reader gave %d ticks of %d\n", k, upto);
        (*cbad)++;
    }
    tick_reader_close(&rd);
    sqlite3_stmt *q;
    store_db_prepare(&db, &q, "SELECT seq, name, value FROM sample WHERE run_id = ?", &err);
    sqlite3_bind_int64(q, 1, run_id);
    while (sqlite3_step(q) == SQLITE_ROW) {
        (*vrows)++;
        int s = sqlite3_column_int(q, 0);
        size_t i = (size_t)atoi((const char *)sqlite3_column_text(q, 1) + 2);
        if (s >= upto || i >= NS || !has[s][i]) {
            (*vbad)++;
            continue;
        }
        if (i == 1 ? sqlite3_column_double(q, 2) != tick_value(want[s][i], true)
                   : sqlite3_column_int64(q, 2) != want[s][i]) {
            if (*vbad < 3)
                printf("# view seq %d %s: %s, want %lld\n", s, sqlite3_column_text(q, 1), sqlite3_column_text(q, 2),
                       (long long)want[s][i]);
            (*vbad)++;
        }
    }
    sqlite3_finalize(q);
    store_db_close(&db);
    return 0;
}

int main(void)
{
    char dir[] = "/tmp/pressmark-unit.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    char db_path[128];
    snprintf(db_path, sizeof db_path, "%s/results.db", dir);
    struct pm_db db;
    struct pm_err err;
    ok(store_db_open(&db, db_path, true, &err) == 0, "a fresh database");
    struct machine_info mi;
    pm_machine_read(&mi, &err);
    int64_t mid = store_machine(&db, &mi, &err);
    struct run_row row = { .label = "live", .workload = "record", .params = "", .interval_ns = 10000000 };
    ok(store_run_begin(&db, mid, &row, &err) == 0, "a run row");
    struct tick_store ts;
    ok(tick_store_open(&ts, db_path, row.id, &err) == 0, "the tick store opens");
    struct series_table t;
    series_table_init(&t);
    char name[16];
    int checks = 0, cbad = 0, vbad = 0, vrows = 0, vwant = 0, wfail = 0;
    for (int k = 0; k < NT; k++) {
        size_t first_new = t.n;
        /* A series joins the table the tick it first has a value, as the
         * sampler adds them; positions follow names (s.3 comes last). */
        for (size_t i = t.n; i < NS && appears(i, k); i = t.n) {
            snprintf(name, sizeof name, "s.%zu", i);
            series_table_get(&t, name, strlen(name));
        }
        for (size_t i = 0; i < NS; i++) {
            has[k][i] = k > 0 ? has[k - 1][i] : false;
            if (k > 0)
                want[k][i] = want[k - 1][i];
            if (i >= t.n || !present(i, k))
                continue;
            struct pm_value v = val(i, k);
            series_record(&t.v[i], v);
            t.v[i].seen_tick = (uint64_t)k + 1;
            has[k][i] = true;
            want[k][i] = v.kind == PM_INT ? v.i : (int64_t)llround(v.r * TICK_REAL_SCALE);
        }
        uint64_t before = ts.committed;
        wfail += ts.base.write(&ts.base, (uint64_t)k, (uint64_t)k * 10000000, &t, first_new, (uint64_t)k + 1, &err) < 0;
        if (ts.committed == before)
            continue;
        checks++;
        check(db_path, row.id, (int)ts.committed, &cbad, &vbad, &vrows);
        for (int kk = 0; kk < (int)ts.committed; kk++)
            for (size_t i = 0; i < NS; i++)
                vwant += has[kk][i];
    }
    is_num(wfail, 0, 0, "%d ticks written", NT);
    ok(checks >= 6, "read back after each of %d commits while the run went on", checks);
    is_num(cbad, 0, 0, "the reader gave every value written so far, every time");
    is_num(vbad, 0, 0, "the view too");
    is_num(vrows, vwant, 0, "and a row for each (%d in all)", vwant);
    /* As a killed pressmark leaves it: what waited written, the last block
     * never folded. */
    tick_store_close(&ts);
    int c2 = 0, v2 = 0, r2 = 0, w2 = 0;
    check(db_path, row.id, NT, &c2, &v2, &r2);
    for (int kk = 0; kk < NT; kk++)
        for (size_t i = 0; i < NS; i++)
            w2 += has[kk][i];
    is_num(c2 + v2, 0, 0, "the unfolded run reads right, by the reader and the view");
    is_num(r2, w2, 0, "every value of it in the view (%d)", w2);
    series_table_free(&t);
    store_db_close(&db);
    static const char *files[] = { "results.db", "results.db-wal", "results.db-shm" };
    char path[160];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return done_testing();
}
