#include "store/tick_migrate.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store/tickcodec.h"
#include "store/tickfold.h"

/* The sample view decodes each tick's varints in SQL (a recursive walk over
 * its bytes, one step per byte) and adds up each series' changes over the
 * run's ticks, so plain sqlite3 gives every series' value at every tick
 * from its first on, by name, as the JSON arrays did (SQLite's >> sign-
 * extends, hence the mask in the zigzag decoding; its sum() refuses a
 * change beyond 2^63, which no /proc value makes). pressmark itself
 * reads ticks in C (store/ticks.c's tick_reader). */
static const char tick_sample_view_sql[] =
    "CREATE VIEW sample AS"
    "  WITH RECURSIVE"
    "  dec(run_id, seq, h, pos, len, b, nxt, idx, acc, sh, ph, emit) AS ("
    "    SELECT run_id, seq, hex(data), 0, length(data),"
    "           (instr('0123456789ABCDEF', substr(hex(data), 1, 1)) - 1) * 16"
    "             + instr('0123456789ABCDEF', substr(hex(data), 2, 1)) - 1,"
    "           0, 0, 0, 0, 0, NULL"
    "      FROM tick WHERE length(data) > 0"
    "    UNION ALL"
    "    SELECT run_id, seq, h, pos + 1, len,"
    "           (instr('0123456789ABCDEF', substr(h, 2 * pos + 3, 1)) - 1) * 16"
    "             + instr('0123456789ABCDEF', substr(h, 2 * pos + 4, 1)) - 1,"
    "           CASE WHEN ph = 1 AND b < 128 THEN idx + 1 ELSE nxt END,"
    "           CASE WHEN ph = 0 AND b < 128 THEN nxt + acc + ((b & 127) << sh) ELSE idx END,"
    "           CASE WHEN b < 128 THEN 0 ELSE acc + ((b & 127) << sh) END,"
    "           CASE WHEN b < 128 THEN 0 ELSE sh + 7 END,"
    "           CASE WHEN b < 128 THEN 1 - ph ELSE ph END,"
    "           CASE WHEN ph = 1 AND b < 128 THEN acc + ((b & 127) << sh) END"
    "      FROM dec WHERE pos < len),"
    "  chg(run_id, seq, idx, d) AS ("
    "    SELECT run_id, seq, idx, CASE WHEN emit & 1 THEN ~((emit >> 1) & 9223372036854775807)"
    "                                  ELSE (emit >> 1) & 9223372036854775807 END"
    "      FROM dec WHERE emit IS NOT NULL)"
    "  SELECT t.run_id AS run_id, t.seq AS seq, t.t_ns AS t_ns, s.name AS name,"
    "         CASE WHEN s.real THEN sum(c.d) OVER w / 1000000.0 ELSE sum(c.d) OVER w END AS value"
    "    FROM tick t"
    "    JOIN tick_series s ON s.run_id = t.run_id AND s.since <= t.seq"
    "    LEFT JOIN chg c ON c.run_id = t.run_id AND c.seq = t.seq AND c.idx = s.idx"
    "    WINDOW w AS (PARTITION BY t.run_id, s.idx ORDER BY t.seq);";

/* Schema 7's sample view: the same rows as schema 5's, at a cost linear in
 * what the ticks hold. Schema 5's walked each tick's hex text a byte at a
 * time, carrying the whole text in every step (a 40 KB tick took 10 s,
 * 80 KB 45 s), and looked up each change by scanning them all. Here each
 * tick's bytes are split in halves down to 32-byte pieces (log n copies
 * of each byte), a varint's bytes are found by the terminators before them
 * (window functions, no walk), and changes meet the grid of ticks and
 * series by sorting, not by lookups. */
const char tick_sample_view_v7_sql[] =
    "DROP VIEW IF EXISTS sample;"
    "CREATE VIEW sample AS "
    "  WITH RECURSIVE "
    "  split(run_id, seq, off, piece) AS ( "
    "    SELECT run_id, seq, 0, data FROM tick WHERE length(data) > 0 "
    "    UNION ALL "
    "    SELECT s.run_id, s.seq, s.off + h.k * max(32, length(s.piece) / 64 * 32), "
    "           CASE h.k WHEN 0 THEN substr(s.piece, 1, max(32, length(s.piece) / 64 * 32)) "
    "                    ELSE substr(s.piece, max(32, length(s.piece) / 64 * 32) + 1) END "
    "      FROM split s, (SELECT 0 AS k UNION ALL SELECT 1) h "
    "      WHERE length(s.piece) > 32), "
    "  nums(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM nums WHERE k < 31), "
    "  bytes(run_id, seq, pos, b) AS ( "
    "    SELECT run_id, seq, off + n.k, "
    "           (instr('0123456789ABCDEF', substr(hex(substr(piece, n.k + 1, 1)), 1, 1)) - 1) * 16 "
    "             + instr('0123456789ABCDEF', substr(hex(substr(piece, n.k + 1, 1)), 2, 1)) - 1 "
    "      FROM split, nums n WHERE length(piece) <= 32 AND n.k < length(piece)), "
    "  marks(run_id, seq, pos, b, vnum, start) AS ( "
    "    SELECT run_id, seq, pos, b, "
    "           coalesce(sum(b < 128) OVER p, 0), "
    "           coalesce(max(CASE WHEN b < 128 THEN pos END) OVER p, -1) + 1 "
    "      FROM bytes WINDOW p AS (PARTITION BY run_id, seq ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)), "
    "  varints(run_id, seq, vnum, val) AS ( "
    "    SELECT run_id, seq, vnum, sum((b & 127) << (7 * (pos - start))) "
    "      FROM marks GROUP BY run_id, seq, vnum HAVING min(b) < 128), "
    "  pairs(run_id, seq, vnum, gap, z) AS ( "
    "    SELECT run_id, seq, vnum, val, lead(val) OVER (PARTITION BY run_id, seq ORDER BY vnum) FROM varints), "
    "  chg(run_id, seq, idx, d) AS ( "
    "    SELECT run_id, seq, sum(gap) OVER (PARTITION BY run_id, seq ORDER BY vnum ROWS UNBOUNDED PRECEDING) + vnum / 2, "
    "           CASE WHEN z & 1 THEN ~((z >> 1) & 9223372036854775807) ELSE (z >> 1) & 9223372036854775807 END "
    "      FROM pairs WHERE vnum % 2 = 0 AND z IS NOT NULL), "
    "  grid(run_id, seq, t_ns, idx, name, real, d, here) AS ( "
    "    SELECT t.run_id, t.seq, t.t_ns, s.idx, s.name, s.real, 0, 1 "
    "      FROM tick t JOIN tick_series s ON s.run_id = t.run_id AND s.since <= t.seq "
    "    UNION ALL "
    "    SELECT run_id, seq, NULL, idx, NULL, NULL, d, 0 FROM chg), "
    "  cell(run_id, seq, t_ns, idx, name, real, d) AS ( "
    "    SELECT run_id, seq, max(t_ns), idx, max(name), max(real), sum(d) "
    "      FROM grid GROUP BY run_id, seq, idx HAVING max(here) = 1) "
    "  SELECT run_id, seq, t_ns, name, "
    "         CASE WHEN real THEN sum(d) OVER w / 1000000.0 ELSE sum(d) OVER w END AS value "
    "    FROM cell "
    "    WINDOW w AS (PARTITION BY run_id, idx ORDER BY seq);";

/* Schema 8's sample view: one row per series and tick, from the blocks'
 * pieces (store/tickblock.h) and the open ticks, with no sums over ticks:
 * a query for one run (and one series) reads that run's (series') rows
 * only. The series table leads the block arms (CROSS JOIN keeps SQLite
 * from starting anywhere else), so run_id and name go straight to its
 * index; their rows are the tick table's range, which brings t_ns. A
 * database from elsewhere may claim anything: every arm yields at most
 * TICK_BLOCK_MAX rows per piece or run of a piece, or one per element of
 * an open row, and a dense field costs its width, so reading it costs in
 * proportion to its bytes. Rows come in no particular order (ORDER BY seq
 * if it matters). */
#define ARMS_FROM \
    "   FROM tick_series s" \
    "   CROSS JOIN tick_block b ON b.run_id = s.run_id" \
    "   CROSS JOIN tick_piece p ON p.run_id = s.run_id AND p.blk = b.blk AND p.idx = s.idx"
#define BLOCK_MAX_SQL "256"
/* Where a piece starts: its rows are the ticks from START (kept inside
 * its block whatever off says) to END; AT reads element k of one of them
 * (with off as written: a piece that lies about it reads bytes of its own,
 * at no more cost). */
#define START "(b.blk + min(max(p.off, 0), " BLOCK_MAX_SQL " - 1))"
#define OFF0 "(b.blk + p.off)"
#define VALUE(x) "(p.base + p.scale * " x ") / CASE WHEN s.real THEN 1000000.0 ELSE 1 END"
#define END "b.blk + min(b.n, " BLOCK_MAX_SQL ")"
#define CH(at, len) "unicode(substr(p.vals, " at ", " len "))"
#define AT "(t.seq - " OFF0 ") * p.width + "
#define FIELD \
    "CASE p.width WHEN 0 THEN 0" \
    " WHEN 8 THEN " CH(AT "1", "4") " * 1048576 + " CH(AT "5", "4") \
    " WHEN 12 THEN (" CH(AT "1", "4") " * 1048576 + " CH(AT "5", "4") ") * 1048576 + " CH(AT "9", "4") \
    " ELSE " CH(AT "1", "p.width") " END"
/* DROP and CREATE of schema 8's sample view. */
static const char tick_sample_view_v8_sql[] =
    "DROP VIEW IF EXISTS sample;"
    "CREATE VIEW sample AS"
    " SELECT s.run_id AS run_id, t.seq AS seq, t.t_ns AS t_ns, s.name AS name, " VALUE(FIELD) " AS value"
    ARMS_FROM
    "   CROSS JOIN tick t ON t.run_id = s.run_id AND t.seq >= " START " AND t.seq < " END
    "  WHERE p.runs IS NULL AND s.const_value IS NULL"
    " UNION ALL"
    " SELECT s.run_id, t.seq, t.t_ns, s.name, " VALUE("json_extract(r.value, '$[2]')")
    ARMS_FROM
    "   CROSS JOIN json_each(p.runs) r"
    "   CROSS JOIN tick t ON t.run_id = s.run_id AND t.seq >= " START " + json_extract(r.value, '$[0]')"
    "    AND t.seq < " START " + json_extract(r.value, '$[0]') + min(json_extract(r.value, '$[1]'), " BLOCK_MAX_SQL ")"
    "    AND t.seq < " END
    "  WHERE p.runs IS NOT NULL AND s.const_value IS NULL"
    " UNION ALL"
    " SELECT s.run_id, t.seq, t.t_ns, s.name, s.const_value / CASE WHEN s.real THEN 1000000.0 ELSE 1 END"
    "   FROM tick_series s"
    "   CROSS JOIN tick t ON t.run_id = s.run_id AND t.seq >= s.since"
    "  WHERE s.const_value IS NOT NULL"
    " UNION ALL"
    /* j.value * 1: an expression, as in the other arms; a column of a
     * different affinity would keep SQLite from flattening the view into
     * the query, and so from leaving out what the query does not ask. */
    " SELECT s.run_id, o.seq, t.t_ns, s.name, j.value * 1"
    "   FROM tick_open o"
    "   CROSS JOIN json_each(o.vals) j"
    "   CROSS JOIN tick_series s ON s.run_id = o.run_id AND s.idx = j.key"
    "   LEFT JOIN tick t ON t.run_id = o.run_id AND t.seq = o.seq"
    "  WHERE j.type IN ('integer', 'real') AND s.const_value IS NULL;";

static bool real_name(const char *name)
{
    /* Schema 4 wrote PSI's averages, the only real values, with %.15g, so
     * 0.00 looked like an integer: the names say which series are real. */
    static const char *const tails[] = { ".avg10", ".avg60", ".avg300" };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        size_t k = strlen(tails[i]);
        if (n >= k && strcmp(name + n - k, tails[i]) == 0)
            return true;
    }
    return false;
}

/* A run's series, and the values one tick holds as a list (k of them),
 * so each tick costs what it holds, not what the run has. */
struct run_series {
    size_t n;
    bool *real, *seen;
    int64_t *since;
    size_t *idx, k;
    int64_t *v;
};

static void run_series_free(struct run_series *rs)
{
    free(rs->real);
    free(rs->seen);
    free(rs->since);
    free(rs->idx);
    free(rs->v);
    memset(rs, 0, sizeof *rs);
}

static int load_series(struct pm_db *db, int64_t run_id, struct run_series *rs, struct pm_err *err)
{
    memset(rs, 0, sizeof *rs);
    sqlite3_stmt *st;
    /* Positions are 0 to n - 1, each named once, as pressmark writes
     * them: a run whose positions reach past its series (one at 999,999)
     * would cost what it does not hold. */
    if (store_db_prepare(db, &st, "SELECT coalesce(max(idx), -1) + 1, count(*), coalesce(min(idx), 0) FROM tick_series"
                               " WHERE run_id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int64_t n = -1, rows = 0, lo = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int64(st, 0);
        rows = sqlite3_column_int64(st, 1);
        lo = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    if (n < 0 || n != rows || lo < 0 || n > TICK_MAX_SERIES)
        return pm_errf(err, "%s: run %lld: series positions are not 0 to %lld (at most %d series)", db->path,
                       (long long)run_id, (long long)rows - 1, TICK_MAX_SERIES);
    rs->n = (size_t)n;
    size_t k = rs->n ? rs->n : 1;
    rs->real = calloc(k, sizeof *rs->real);
    rs->seen = calloc(k, sizeof *rs->seen);
    rs->since = calloc(k, sizeof *rs->since);
    rs->idx = calloc(k, sizeof *rs->idx);
    rs->v = calloc(k, sizeof *rs->v);
    if (!rs->real || !rs->seen || !rs->since || !rs->idx || !rs->v)
        return pm_errf(err, "out of memory");
    if (store_db_prepare(db, &st, "SELECT idx, name FROM tick_series WHERE run_id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        if (i >= 0 && (size_t)i < rs->n)
            rs->real[i] = real_name(store_col_text(st, 1));
    }
    sqlite3_finalize(st);
    return 0;
}

/* One schema-4 tick, "[v,v,null,...]", into the list idx[], v[]
 * (fixed-point) of the series it has a value for. */
static int parse_json_tick(const char *p, struct run_series *rs)
{
    rs->k = 0;
    if (*p++ != '[')
        return -1;
    for (size_t i = 0; *p && *p != ']'; i++) {
        if (strncmp(p, "null", 4) == 0) {
            p += 4;
        } else {
            char *end;
            int64_t x;
            errno = 0;
            if (i < rs->n && rs->real[i]) {
                double d = strtod(p, &end);
                if (end == p)
                    return -1;
                x = (int64_t)llround(d * TICK_REAL_SCALE);
            } else {
                long long y = strtoll(p, &end, 10);
                if (end == p)
                    return -1;
                if (*end == '.' || *end == 'e' || *end == 'E')
                    y = (long long)llround(strtod(p, &end));
                x = (int64_t)y;
            }
            if (i < rs->n) {
                rs->idx[rs->k] = i;
                rs->v[rs->k++] = x;
            }
            p = end;
        }
        if (*p == ',')
            p++;
        else if (*p != ']')
            return -1;
    }
    return 0;
}

static int migrate_run(struct pm_db *db, int64_t run_id, sqlite3_stmt *ins, sqlite3_stmt *upd, struct pm_err *err)
{
    struct run_series rs;
    struct tick_encoder enc;
    tick_encoder_init(&enc);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (load_series(db, run_id, &rs, err) < 0)
        goto out;
    if (store_db_prepare(db, &st, "SELECT seq, t_ns, data FROM tick WHERE run_id = ? ORDER BY seq", err) < 0)
        goto out;
    sqlite3_bind_int64(st, 1, run_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t seq = sqlite3_column_int64(st, 0);
        if (parse_json_tick(store_col_text(st, 2), &rs) < 0) {
            pm_errf(err, "%s: run %lld tick %lld: not a JSON array of values", db->path, (long long)run_id,
                    (long long)seq);
            goto out;
        }
        for (size_t j = 0; j < rs.k; j++)
            if (!rs.seen[rs.idx[j]]) {
                rs.seen[rs.idx[j]] = true;
                rs.since[rs.idx[j]] = seq;
            }
        if (tick_encode_values(&enc, rs.n, rs.idx, rs.v, rs.k) < 0) {
            pm_errf(err, "out of memory");
            goto out;
        }
        sqlite3_bind_int64(ins, 1, run_id);
        sqlite3_bind_int64(ins, 2, seq);
        sqlite3_bind_int64(ins, 3, sqlite3_column_int64(st, 1));
        sqlite3_bind_blob(ins, 4, enc.len ? enc.buf : (const void *)"", (int)enc.len, SQLITE_STATIC);
        if (store_db_step_done(db, ins, err) < 0)
            goto out;
    }
    for (size_t i = 0; i < rs.n; i++) {
        sqlite3_bind_int(upd, 1, rs.real[i]);
        sqlite3_bind_int64(upd, 2, rs.seen[i] ? rs.since[i] : INT64_MAX);
        sqlite3_bind_int64(upd, 3, run_id);
        sqlite3_bind_int64(upd, 4, (int64_t)i);
        if (store_db_step_done(db, upd, err) < 0)
            goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    run_series_free(&rs);
    tick_encoder_free(&enc);
    return rc;
}

int tick_migrate_v5(struct pm_db *db, struct pm_err *err)
{
    if (store_db_exec(db,
                   "ALTER TABLE tick_series ADD COLUMN real INTEGER NOT NULL DEFAULT 0;"
                   "ALTER TABLE tick_series ADD COLUMN since INTEGER NOT NULL DEFAULT 0;"
                   "CREATE TABLE tick_v5 ("
                   "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
                   "  seq INTEGER NOT NULL, t_ns INTEGER NOT NULL, data BLOB NOT NULL,"
                   "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;",
                   err) < 0)
        return -1;
    sqlite3_stmt *runs = NULL, *ins = NULL, *upd = NULL;
    int rc = -1;
    if (store_db_prepare(db, &runs, "SELECT DISTINCT run_id FROM tick ORDER BY run_id", err) < 0 ||
        store_db_prepare(db, &ins, "INSERT INTO tick_v5(run_id, seq, t_ns, data) VALUES (?,?,?,?)", err) < 0 ||
        store_db_prepare(db, &upd, "UPDATE tick_series SET real = ?, since = ? WHERE run_id = ? AND idx = ?", err) < 0)
        goto out;
    int step;
    while ((step = sqlite3_step(runs)) == SQLITE_ROW)
        if (migrate_run(db, sqlite3_column_int64(runs, 0), ins, upd, err) < 0)
            goto out;
    if (step != SQLITE_DONE) {
        pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
        goto out;
    }
    sqlite3_finalize(runs);
    runs = NULL;
    if (store_db_exec(db, "DROP VIEW IF EXISTS sample; DROP TABLE tick; ALTER TABLE tick_v5 RENAME TO tick;", err) < 0 ||
        store_db_exec(db, tick_sample_view_sql, err) < 0)
        goto out;
    rc = 0;
out:
    sqlite3_finalize(runs);
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    return rc;
}

_Static_assert(TICK_BLOCK_MAX == 256, "the sample view's clamp (BLOCK_MAX_SQL) is TICK_BLOCK_MAX");

/* Schema 7's ticks of one run (changes as varints, store/tickcodec.h)
 * into blocks: each tick's values in full, folded as the writer folds. */
struct v8_run {
    size_t n;
    int64_t *since, *acc;
    bool *have;
};

static int v8_load(struct pm_db *db, int64_t run_id, struct v8_run *v, struct pm_err *err)
{
    struct run_series rs;
    if (load_series(db, run_id, &rs, err) < 0) {
        run_series_free(&rs);
        return -1;
    }
    v->n = rs.n;
    run_series_free(&rs);
    size_t k = v->n ? v->n : 1;
    v->since = calloc(k, sizeof *v->since);
    v->acc = calloc(k, sizeof *v->acc);
    v->have = calloc(k, sizeof *v->have);
    if (!v->since || !v->acc || !v->have)
        return pm_errf(err, "out of memory");
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT idx, since FROM tick_series WHERE run_id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        if (i >= 0 && (size_t)i < v->n)
            v->since[i] = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return 0;
}

static int v8_run(struct pm_db *db, int64_t run_id, struct tick_fold_sql *fs, sqlite3_stmt *ins, struct pm_err *err)
{
    struct v8_run v = { 0 };
    struct tick_blocker b;
    struct tick_fold f;
    tick_blocker_init(&b);
    tick_fold_init(&f);
    sqlite3_stmt *st = NULL;
    int rc = -1, step;
    if (v8_load(db, run_id, &v, err) < 0 ||
        store_db_prepare(db, &st, "SELECT seq, t_ns, data FROM tick WHERE run_id = ? ORDER BY seq", err) < 0)
        goto out;
    sqlite3_bind_int64(st, 1, run_id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t seq = sqlite3_column_int64(st, 0);
        const uint8_t *p = sqlite3_column_blob(st, 2);
        size_t len = (size_t)sqlite3_column_bytes(st, 2);
        if (seq < 0 || seq > INT64_MAX / 2 || len > TICK_MAX_BYTES ||
            (len && tick_decode(p, len, v.acc, NULL, v.n) < 0)) {
            pm_errf(err, "%s: run %lld tick %lld: not a stored tick (corrupt data)", db->path, (long long)run_id,
                    (long long)seq);
            goto out;
        }
        for (size_t i = 0; i < v.n; i++)
            v.have[i] = v.since[i] <= seq;
        if (tick_blocker_add(&b, seq, v.acc, v.have, v.n, &f) < 0) {
            pm_errf(err, "out of memory");
            goto out;
        }
        sqlite3_bind_int64(ins, 1, run_id);
        sqlite3_bind_int64(ins, 2, seq);
        sqlite3_bind_int64(ins, 3, sqlite3_column_int64(st, 1));
        if ((f.n && tick_fold_write(db, fs, run_id, &f, err) < 0) || tick_fold_unsteady(db, fs, run_id, &b, err) < 0 ||
            store_db_step_done(db, ins, err) < 0)
            goto out;
        tick_blocker_unsteady_done(&b);
    }
    if (step != SQLITE_DONE) {
        pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
        goto out;
    }
    if (tick_blocker_finish(&b, &f) < 0) {
        pm_errf(err, "out of memory");
        goto out;
    }
    rc = f.n ? tick_fold_write(db, fs, run_id, &f, err) : 0;
out:
    sqlite3_finalize(st);
    free(v.since);
    free(v.acc);
    free(v.have);
    tick_blocker_free(&b);
    tick_fold_free(&f);
    return rc;
}

int tick_migrate_v8(struct pm_db *db, struct pm_err *err)
{
    if (store_db_exec(db,
                   "ALTER TABLE tick_series ADD COLUMN const_value INTEGER;"
                   "CREATE TABLE tick_v8 ("
                   "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
                   "  seq INTEGER NOT NULL, t_ns INTEGER NOT NULL,"
                   "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
                   "CREATE TABLE tick_open ("
                   "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
                   "  seq INTEGER NOT NULL, vals TEXT NOT NULL,"
                   "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
                   "CREATE TABLE tick_block ("
                   "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
                   "  blk INTEGER NOT NULL, n INTEGER NOT NULL,"
                   "  PRIMARY KEY (run_id, blk)) WITHOUT ROWID;"
                   "CREATE TABLE tick_piece ("
                   "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
                   "  blk INTEGER NOT NULL, idx INTEGER NOT NULL, off INTEGER NOT NULL, width INTEGER NOT NULL,"
                   "  base INTEGER NOT NULL, scale INTEGER NOT NULL, vals BLOB, runs TEXT,"
                   "  PRIMARY KEY (run_id, blk, idx)) WITHOUT ROWID;",
                   err) < 0)
        return -1;
    struct tick_fold_sql fs;
    sqlite3_stmt *runs = NULL, *ins = NULL;
    int rc = -1, step;
    if (tick_fold_sql_prepare(db, &fs, err) < 0)
        return -1;
    if (store_db_prepare(db, &runs, "SELECT DISTINCT run_id FROM tick ORDER BY run_id", err) < 0 ||
        store_db_prepare(db, &ins, "INSERT INTO tick_v8(run_id, seq, t_ns) VALUES (?,?,?)", err) < 0)
        goto out;
    while ((step = sqlite3_step(runs)) == SQLITE_ROW)
        if (v8_run(db, sqlite3_column_int64(runs, 0), &fs, ins, err) < 0)
            goto out;
    if (step != SQLITE_DONE) {
        pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
        goto out;
    }
    sqlite3_finalize(runs);
    runs = NULL;
    rc = store_db_exec(db, "DROP VIEW IF EXISTS sample; DROP TABLE tick; ALTER TABLE tick_v8 RENAME TO tick;", err) < 0 ||
                 store_db_exec(db, tick_sample_view_v8_sql, err) < 0
             ? -1
             : 0;
out:
    sqlite3_finalize(runs);
    sqlite3_finalize(ins);
    tick_fold_sql_finalize(&fs);
    return rc;
}
