/* Ticks as schemas 5-7 stored them (what changed, as varints: migrated
 * from): encoding and decoding agree on every value (extremes, wraps,
 * reals, series that come and go) and malformed bytes are refused. Then
 * ticks as stored now (blocks of per-series pieces, store/tickblock.h),
 * through the tick store: pressmark's reader and the sample view (SQL
 * alone) give back exactly the values written, every int64 included, each
 * width of a dense piece, series steady for blocks that then change. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "store/db.h"
#include "store/machines.h"
#include "store/runs.h"
#include "store/tickblock.h"
#include "store/tickcodec.h"
#include "store/ticks.h"
#include "tests/tap.h"

#define NS 40
#define TICKS 300

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A value for series i at tick k: counters, gauges, extremes, reals.
 * Series 2 mod 8 flips between INT64_MIN and INT64_MAX, a change beyond
 * 64 bits that the C codec carries (wrapping) but SQL's sum() cannot: in
 * SQL tests it stays near INT64_MIN instead (no /proc value changes by
 * 2^63). */
static bool sql_safe;
static struct pm_value value_of(size_t i, int k)
{
    if (sql_safe && i % 8 == 2)
        return (struct pm_value){ .kind = PM_INT, .i = INT64_MIN + k % 3 };
    if (sql_safe && i % 8 == 3)     /* changes within 2^41: SQL's sum() cannot wrap */
        return (struct pm_value){ .kind = PM_INT, .i = (int64_t)(next_rand() % (1ull << 40)) * (k % 3 ? 1 : -1) };
    switch (i % 8) {
    case 0: return (struct pm_value){ .kind = PM_INT, .i = (int64_t)k * 1000 };
    case 1: return (struct pm_value){ .kind = PM_INT, .i = INT64_MAX - (int64_t)(next_rand() % 3) };
    case 2: return (struct pm_value){ .kind = PM_INT, .i = k % 2 ? INT64_MIN : INT64_MAX };
    case 3: {
        uint64_t r = next_rand(), shift = next_rand() % 64;     /* in this order, whatever the compiler */
        return (struct pm_value){ .kind = PM_INT, .i = (int64_t)(r >> shift) * (k % 3 ? 1 : -1) };
    }
    case 4:     /* steady; series 12, 20, 28, 36 until tick 150, 300, 450, 600 (blocks later) */
        return (struct pm_value){ .kind = PM_INT, .i = 7 + (i / 8 && k >= (int)(i / 8) * 150 ? k : 0) };
    case 5: return (struct pm_value){ .kind = PM_REAL, .r = (double)(next_rand() % 10001) / 100.0 };
    case 6: {   /* each width of a dense piece, and past the widest */
        static const int64_t top[] = { 0, 1920, 53248, (1ll << 40) - 1, (1ll << 60) - 1 };
        if (i / 8 == 0)
            return (struct pm_value){ .kind = PM_INT, .i = -(int64_t)k };
        return (struct pm_value){ .kind = PM_INT, .i = k % 3 == 2 ? top[i / 8 % 5] : k % 3 };
    }
    default: return (struct pm_value){ .kind = PM_INT, .i = (int64_t)(next_rand() % 5) };
    }
}

int main(void)
{
    /* Round trip through the encoder and decoder, series by series. */
    char name[32];
    struct tick_encoder e;
    tick_encoder_init(&e);
    int64_t acc[NS] = { 0 };
    int64_t want[TICKS][NS];
    bool have[TICKS][NS];
    int mismatches = 0, refused = 0;
    size_t bytes = 0, ix[NS], m;
    int64_t xv[NS];
    for (int k = 0; k < TICKS; k++) {
        m = 0;
        for (size_t i = 0; i < NS; i++) {
            /* Series 9 and 19 are absent on some ticks (a source that failed). */
            have[k][i] = !((i == 9 || i == 19) && k % 7 == 3);
            if (!have[k][i])
                continue;
            struct pm_value v = value_of(i, k);
            want[k][i] = v.kind == PM_INT ? v.i : (int64_t)llround(v.r * TICK_REAL_SCALE);
            ix[m] = i;
            xv[m++] = want[k][i];
        }
        if (tick_encode_values(&e, NS, ix, xv, m) < 0 || tick_decode(e.buf, e.len, acc, NULL, NS) < 0)
            refused++;
        bytes += e.len;
        for (size_t i = 0; i < NS; i++)
            if (have[k][i] && acc[i] != want[k][i])
                mismatches++;
    }
    is_num(refused, 0, 0, "every tick encodes and decodes");
    is_num(mismatches, 0, 0, "every value of %d ticks x %d series comes back exactly (extremes, wraps, reals)", TICKS, NS);
    ok(bytes < (size_t)TICKS * NS * 4, "changes only: %zu bytes for %d values", bytes, TICKS * NS);

    /* A tick of unchanged values is empty. */
    for (size_t i = 0; i < NS; i++) {
        ix[i] = i;
        xv[i] = acc[i];
    }
    tick_encode_values(&e, NS, ix, xv, NS);
    tick_encode_values(&e, NS, ix, xv, NS);
    is_num(e.len, 0, 0, "a tick where nothing changed takes no bytes");

    /* Malformed bytes are refused, never read past. */
    int64_t a2[4] = { 0 };
    static const uint8_t trunc[] = { 0x00, 0x80 };
    static const uint8_t past[] = { 0x04, 0x02 };
    static const uint8_t long_varint[] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    static const uint8_t gap_wrap[] = { 0x01, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02 };
    ok(tick_decode(trunc, sizeof trunc, a2, NULL, 4) < 0, "a truncated varint is refused");
    ok(tick_decode(past, sizeof past, a2, NULL, 4) < 0, "a position past the run's series is refused");
    ok(tick_decode(long_varint, sizeof long_varint, a2, NULL, 4) < 0, "a varint longer than 64 bits is refused");
    ok(tick_decode(gap_wrap, sizeof gap_wrap, a2, NULL, 4) < 0, "a gap that would wrap the position is refused");

    /* Pieces whose largest step is each width's last value, and the first
     * past it (126/127: one byte or two, 2^20 - 1/2^20: four bytes or two
     * characters, 2^60: past every width, so runs): encoded and decoded,
     * every value comes back, and the width is the one expected. */
    static const struct { int64_t top; int width; } edges[] = {
        { 126, 1 }, { 127, 2 }, { 1919, 2 }, { 1920, 3 }, { 53247, 3 }, { 53248, 4 }, { (1 << 20) - 1, 4 },
        { 1 << 20, 8 }, { (1ll << 40) - 1, 8 }, { 1ll << 40, 12 }, { (1ll << 60) - 1, 12 }, { 1ll << 60, 0 },
    };
    int edge_bad = 0;
    for (size_t e2 = 0; e2 < sizeof edges / sizeof edges[0]; e2++) {
        int64_t v[40], back[40];
        for (int k = 0; k < 40; k++)
            v[k] = k % 2 ? edges[e2].top : k % 3;     /* steps 0, 1, 2 and top: gcd 1 */
        struct tick_piece p;
        tick_piece_init(&p);
        if (tick_piece_encode(&p, v, 40) < 0 ||
            tick_piece_decode(p.form, p.base, p.scale, p.width, p.text, p.len, back, 40) < 0 ||
            memcmp(v, back, sizeof v) != 0 || p.width != edges[e2].width ||
            (edges[e2].width == 0) != (p.form == TICK_RUNS)) {
            printf("# top %lld: width %d, form %d\n", (long long)edges[e2].top, p.width, (int)p.form);
            edge_bad++;
        }
        tick_piece_free(&p);
    }
    is_num(edge_bad, 0, 0, "each width's edges round-trip in the width expected");

    /* Through the database: the tick store writes, the C reader and the SQL
     * view read back the same value for every series at every tick. */
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
    int64_t mid = store_machine(&db, &mi, &err), run_id = 0;
    struct run_row row = { .label = "codec", .workload = "record", .params = "", .interval_ns = 10000000 };
    ok(mid > 0 && store_run_begin(&db, mid, &row, &err) == 0 && (run_id = row.id) > 0, "a run row");
    struct tick_store ts;
    ok(tick_store_open(&ts, db_path, run_id, &err) == 0, "the tick store opens");
    /* Schema 8's view reads every int64 exactly (pieces whose range no
     * width holds are runs of JSON integers): the extremes go through SQL
     * too. */
    sql_safe = false;
    struct series_table t2;
    series_table_init(&t2);
    int wfail = 0;
    enum { DB_TICKS = 700 };
    static int64_t dbwant[DB_TICKS][NS];
    static bool dbhave[DB_TICKS][NS];
    size_t known = 0;
    for (int k = 0; k < DB_TICKS; k++) {
        /* Series appear over the run: series i from tick i / 2 on. */
        size_t first_new = t2.n;
        for (size_t i = 0; i < NS && (int)(i / 2) <= k; i++) {
            if (i >= t2.n) {
                snprintf(name, sizeof name, "s.%zu", i);
                series_table_get(&t2, name, strlen(name));
            }
            dbhave[k][i] = !((i == 9 || i == 19) && k % 7 == 3);
            if (!dbhave[k][i])
                continue;
            struct pm_value v = value_of(i, k);
            series_record(&t2.v[i], v);
            t2.v[i].seen_tick = (uint64_t)k + 1;
            dbwant[k][i] = v.kind == PM_INT ? v.i : (int64_t)llround(v.r * TICK_REAL_SCALE);
        }
        known = t2.n;
        if (ts.base.write(&ts.base, (uint64_t)k, (uint64_t)k * 10000000, &t2, first_new, (uint64_t)k + 1, &err) < 0)
            wfail++;
    }
    ok(wfail == 0 && ts.base.flush(&ts.base, &err) == 0, "%d ticks written and flushed", DB_TICKS);
    is_num(known, NS, 0, "all series appeared");
    struct tick_reader rd;
    ok(tick_reader_open(&rd, &db, run_id, &err) == 0, "the reader opens");
    sqlite3_stmt *q;
    store_db_prepare(&db, &q, "SELECT name, value FROM sample WHERE run_id = ? AND seq = ? ORDER BY name", &err);
    int k = 0, cbad = 0, sqlbad = 0, rows = 0;
    while (tick_reader_next(&rd, &err) == 1) {
        /* The C reader holds a value from a series' first tick on; absent
         * ticks hold the last value stored. */
        int64_t held[NS];
        for (size_t i = 0; i < NS; i++) {
            double v;
            bool got = tick_reader_value(&rd, i, &v);
            bool should = (int)(i / 2) <= k;
            if (got != should) {
                cbad++;
                continue;
            }
            if (!got)
                continue;
            int kk = k;
            while (!dbhave[kk][i])
                kk--;
            held[i] = dbwant[kk][i];
            double w = tick_value(held[i], i % 8 == 5);
            if (v != w && !(i % 8 == 1 || i % 8 == 2 || i % 8 == 3))
                cbad++;
            if ((i % 8 == 1 || i % 8 == 2 || i % 8 == 3) && rd.acc[i] != held[i])
                cbad++;
        }
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, run_id);
        sqlite3_bind_int(q, 2, k);
        while (sqlite3_step(q) == SQLITE_ROW) {
            rows++;
            size_t i = (size_t)atoi((const char *)sqlite3_column_text(q, 0) + 2);
            bool real = i % 8 == 5;
            if (real ? sqlite3_column_double(q, 1) != tick_value(rd.acc[i], true)
                     : sqlite3_column_int64(q, 1) != rd.acc[i])
                sqlbad++;
        }
        k++;
    }
    sqlite3_finalize(q);
    is_num(k, DB_TICKS, 0, "the reader gives every tick");
    is_num(cbad, 0, 0, "the reader holds every series' value from its first tick on");
    int expect_rows = 0;
    for (int kk = 0; kk < DB_TICKS; kk++)
        expect_rows += kk * 2 + 2 < NS ? kk * 2 + 2 : NS;
    is_num(rows, expect_rows, 0, "the sample view gives a row per series per tick from its first on");
    is_num(sqlbad, 0, 0, "and the same values as the reader, int64 extremes included");
    tick_reader_close(&rd);
    /* What was exercised: every form and width, steady series. */
    sqlite3_stmt *f;
    store_db_prepare(&db, &f, "SELECT group_concat(w) FROM (SELECT DISTINCT CASE WHEN runs IS NOT NULL THEN 'runs'"
                           " ELSE width END AS w FROM tick_piece WHERE run_id = ? ORDER BY 1)", &err);
    sqlite3_bind_int64(f, 1, run_id);
    char got[256] = "";
    if (sqlite3_step(f) == SQLITE_ROW && sqlite3_column_text(f, 0))
        snprintf(got, sizeof got, "%s", (const char *)sqlite3_column_text(f, 0));
    sqlite3_finalize(f);
    ok(strcmp(got, "0,1,2,3,4,8,12,runs") == 0, "pieces of every form: constant, dense of width 1, 2, 3, 4, 8, 12, runs (%s)",
       got);
    store_db_prepare(&db, &f, "SELECT group_concat(v, ' ') FROM (SELECT name || '=' || coalesce(const_value, 'NULL') AS v"
                           " FROM tick_series WHERE run_id = ? AND name IN ('s.4', 's.12', 's.36') ORDER BY idx)", &err);
    sqlite3_bind_int64(f, 1, run_id);
    got[0] = '\0';
    if (sqlite3_step(f) == SQLITE_ROW && sqlite3_column_text(f, 0))
        snprintf(got, sizeof got, "%s", (const char *)sqlite3_column_text(f, 0));
    sqlite3_finalize(f);
    ok(strcmp(got, "s.4=7 s.12=NULL s.36=NULL") == 0,
       "a series steady all run is kept once; one that changed after blocks is not (%s)", got);
    store_db_prepare(&db, &f, "SELECT count(*) FROM tick_piece WHERE run_id = ? AND length(coalesce(vals, runs, '')) > ?",
                  &err);
    sqlite3_bind_int64(f, 1, run_id);
    sqlite3_bind_int(f, 2, TICK_PIECE_MAX);
    ok(sqlite3_step(f) == SQLITE_ROW && sqlite3_column_int(f, 0) == 0,
       "no piece is longer than %d bytes: blocks are cut before (wide series here)", TICK_PIECE_MAX);
    sqlite3_finalize(f);
    store_db_prepare(&db, &f, "SELECT count(*) FROM tick_block WHERE run_id = ?", &err);
    sqlite3_bind_int64(f, 1, run_id);
    ok(sqlite3_step(f) == SQLITE_ROW && sqlite3_column_int(f, 0) >= 4, "the run spans blocks (%d)", sqlite3_column_int(f, 0));
    sqlite3_finalize(f);
    tick_store_close(&ts);

    /* Another writer holding the database: the tick store does not wait.
     * Its due batch waits in memory (put off once, however often tried),
     * and is written whole at the first tick after the lock is free. */
    struct run_row row2 = { .label = "held", .workload = "record", .params = "", .interval_ns = 10000000 };
    ok(store_run_begin(&db, mid, &row2, &err) == 0 && tick_store_open(&ts, db_path, row2.id, &err) == 0,
       "a second run and its tick store");
    sqlite3 *holder = NULL;
    ok(sqlite3_open(db_path, &holder) == SQLITE_OK && sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK,
       "another connection holds the write lock");
    int held_fail = 0;
    for (int kk = 0; kk < 150; kk++)   /* 1.5 s of ticks at 10 ms: the first and the 100th are due */
        held_fail += ts.base.write(&ts.base, (uint64_t)kk, (uint64_t)kk * 10000000, &t2, kk ? t2.n : 0,
                                   (uint64_t)kk + 1, &err) < 0;
    is_num(held_fail, 0, 0, "every write returns at once, none failed");
    is_num(ts.committed, 0, 0, "nothing was written while the lock was held");
    is_num(ts.nticks, 150, 0, "all 150 ticks wait in memory");
    is_num(ts.deferred, 1, 0, "the batch was put off once, though tried at every tick after it was due");
    ok(sqlite3_exec(holder, "COMMIT", NULL, NULL, NULL) == SQLITE_OK, "the other writer lets go");
    sqlite3_close(holder);
    ok(ts.base.write(&ts.base, 150, 1500000000, &t2, t2.n, 151, &err) == 0, "the next tick writes");
    is_num(ts.committed, 151, 0, "all 151 ticks are written, in one transaction");
    is_num(ts.nticks, 0, 0, "nothing waits any more");
    sqlite3_stmt *c2;
    store_db_prepare(&db, &c2, "SELECT count(*), max(seq) FROM tick WHERE run_id = ?", &err);
    sqlite3_bind_int64(c2, 1, row2.id);
    ok(sqlite3_step(c2) == SQLITE_ROW && sqlite3_column_int(c2, 0) == 151 && sqlite3_column_int(c2, 1) == 150,
       "the database holds ticks 0 to 150");
    sqlite3_finalize(c2);
    store_db_prepare(&db, &c2, "SELECT count(*) FROM tick_series WHERE run_id = ?", &err);
    sqlite3_bind_int64(c2, 1, row2.id);
    ok(sqlite3_step(c2) == SQLITE_ROW && (size_t)sqlite3_column_int(c2, 0) == t2.n,
       "and its series, named with the first tick that waited");
    sqlite3_finalize(c2);
    /* As a killed pressmark leaves it: ticks written but the block being
     * gathered never folded (no flush). The finished blocks and the open
     * rows together give every tick, the same to the reader and the view. */
    enum { HELD_TICKS = 400, FIRST_VALUE = 151 };
    static int64_t wrote[HELD_TICKS][NS];
    for (int kk = FIRST_VALUE; kk < HELD_TICKS; kk++) {
        /* From here on with values (before, the series were named only). */
        for (size_t i = 0; i < t2.n; i++) {
            struct pm_value v = value_of(i, kk);
            series_record(&t2.v[i], v);
            t2.v[i].seen_tick = (uint64_t)kk + 1;
            wrote[kk][i] = v.kind == PM_INT ? v.i : (int64_t)llround(v.r * TICK_REAL_SCALE);
        }
        held_fail += ts.base.write(&ts.base, (uint64_t)kk, (uint64_t)kk * 10000000, &t2, t2.n, (uint64_t)kk + 1,
                                   &err) < 0;
    }
    tick_store_close(&ts);
    is_num(held_fail, 0, 0, "400 ticks written, the last block never folded");
    int64_t open_rows = 0, blocks = 0;
    store_db_prepare(&db, &c2, "SELECT (SELECT count(*) FROM tick_open WHERE run_id = ?1),"
                            " (SELECT count(*) FROM tick_block WHERE run_id = ?1)", &err);
    sqlite3_bind_int64(c2, 1, row2.id);
    if (sqlite3_step(c2) == SQLITE_ROW) {
        open_rows = sqlite3_column_int64(c2, 0);
        blocks = sqlite3_column_int64(c2, 1);
    }
    sqlite3_finalize(c2);
    ok(open_rows > 0 && blocks > 0, "both finished blocks (%lld) and open rows (%lld) hold its ticks", (long long)blocks,
       (long long)open_rows);
    ok(tick_reader_open(&rd, &db, row2.id, &err) == 0, "the reader opens the unfinished run");
    store_db_prepare(&db, &q, "SELECT name, value FROM sample WHERE run_id = ? AND seq = ?", &err);
    /* Each read back against the values written (ticks 151 on; none
     * before): the reader's, and the view's row by row. */
    int ticks2 = 0, rbad = 0, vbad = 0, vrows = 0, more2;
    while ((more2 = tick_reader_next(&rd, &err)) == 1) {
        bool valued = rd.seq >= FIRST_VALUE && rd.seq < HELD_TICKS;
        for (size_t i = 0; i < rd.n; i++) {
            size_t s = (size_t)atoi(rd.names[i] + 2);
            if (s >= NS || rd.have[i] != valued || (valued && rd.acc[i] != wrote[rd.seq][s]))
                rbad++;
        }
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, row2.id);
        sqlite3_bind_int64(q, 2, rd.seq);
        while (sqlite3_step(q) == SQLITE_ROW) {
            vrows++;
            size_t s = (size_t)atoi((const char *)sqlite3_column_text(q, 0) + 2);
            if (!valued || s >= NS ||
                (s % 8 == 5 ? sqlite3_column_double(q, 1) != tick_value(wrote[rd.seq][s], true)
                            : sqlite3_column_int64(q, 1) != wrote[rd.seq][s]))
                vbad++;
        }
        ticks2++;
    }
    sqlite3_finalize(q);
    tick_reader_close(&rd);
    is_num(ticks2, HELD_TICKS, 0, "the reader gives all %d ticks (%s)", HELD_TICKS, more2 < 0 ? err.msg : "");
    is_num(rbad, 0, 0, "the reader gives the values written at every tick, open ones included, and none before tick %d",
           FIRST_VALUE);
    is_num(vbad, 0, 0, "the view gives the values written at every tick, open ones included");
    is_num(vrows, (HELD_TICKS - FIRST_VALUE) * NS, 0, "and a row for each of them, none more");
    series_table_free(&t2);
    store_db_close(&db);
    static const char *files[] = { "results.db", "results.db-wal", "results.db-shm" };
    char path[160];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    tick_encoder_free(&e);
    return done_testing();
}
