/* Merging another results database into this one (pressmark merge): runs
 * are identified by their UUID, so merging twice adds nothing twice; each
 * keeps its machine and kernel; the other database is read as one checked
 * snapshot (an older one migrated in a copy first: foreign_db), never
 * changed itself. */
#include "store/merge.h"
#include <stdio.h>
#include <string.h>
#include "store/foreign_db.h"
#include <zlib.h>
#include "store/runs.h"
#include "store/texts.h"
#include "store/ticks.h"
#include "store/tickcodec.h"
#include "lib/quote.h"

/* Every table that hangs off a run, copied for the new runs only. */
static const char *const child_copies[] = {
    "INSERT INTO run_meta(run_id, key, value) SELECT n.id, c.key, c.value FROM other.run_meta c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO metric(run_id, name, value, unit, direction) SELECT n.id, c.name, c.value, c.unit, c.direction"
    " FROM other.metric c JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid"
    " JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO run_source(run_id, source, path, ticks, note) SELECT n.id, c.source, c.path, c.ticks, c.note"
    " FROM other.run_source c JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid"
    " JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO tick_series(run_id, idx, name, real, since, const_value)"
    " SELECT n.id, c.idx, c.name, c.real, c.since, c.const_value"
    " FROM other.tick_series c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO tick(run_id, seq, t_ns) SELECT n.id, c.seq, c.t_ns FROM other.tick c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO tick_open(run_id, seq, vals) SELECT n.id, c.seq, c.vals FROM other.tick_open c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO tick_block(run_id, blk, n) SELECT n.id, c.blk, c.n FROM other.tick_block c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO tick_piece(run_id, blk, idx, off, width, base, scale, vals, runs)"
    " SELECT n.id, c.blk, c.idx, c.off, c.width, c.base, c.scale, c.vals, c.runs FROM other.tick_piece c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO latency_hist(run_id, name, lo, hi, count) SELECT n.id, c.name, c.lo, c.hi, c.count"
    " FROM other.latency_hist c JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid"
    " JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO profile(run_id, rank, symbol, samples, pct_kernel, pct_all)"
    " SELECT n.id, c.rank, c.symbol, c.samples, c.pct_kernel, c.pct_all FROM other.profile c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO run_text(run_id, idx, what, size, cut, data) SELECT n.id, c.idx, c.what, c.size, c.cut, c.data"
    " FROM other.run_text c JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid"
    " JOIN main.run n ON n.uuid = o.uuid",
};

/* Labels arrive here from other machines and guests: the rule --label
 * has (store_run_label_ok) holds for them too, or nothing is merged. A label
 * that starts with '-' would be taken for an option where a script passes
 * it on (the nightly's compare). */
static int check_labels(struct pm_db *f, const char *path, struct pm_err *err)
{
    sqlite3_stmt *st;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*), min(label) FROM run WHERE status != 'running' AND"
                              " (length(CAST(label AS BLOB)) NOT BETWEEN 1 AND %d OR substr(label, 1, 1) = '-')",
             RUN_LABEL_MAX);
    if (store_db_prepare(f, &st, sql, err) < 0)
        return -1;
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        char q[4 * RUN_LABEL_MAX + 8];
        quote_terminal(store_col_text(st, 1), q, sizeof q);
        long long n = sqlite3_column_int64(st, 0);
        rc = pm_errf(err, "%s: %lld run%s with a label --label would refuse (empty, over %d bytes or starting with "
                     "'-'; e.g. '%s'): nothing merged", path, n, n == 1 ? "" : "s", RUN_LABEL_MAX, q);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Refuse the foreign database when sql (one count) finds rows pressmark
 * never writes: "PATH: N WHAT WHY: nothing merged". */
static int refuse_counted(struct pm_db *f, const char *sql, const char *path, const char *one, const char *many,
                          const char *why, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(f, &st, sql, err) < 0)
        return -1;
    int rc = 0;
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = pm_errf(err, "%s: %s", path, sqlite3_errmsg(f->h));
    } else {
        long long n = sqlite3_column_int64(st, 0);
        if (n > 0)
            rc = pm_errf(err, "%s: %lld %s %s: nothing merged", path, n, n == 1 ? one : many, why);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Blocks and pieces as pressmark writes them, all of them (the reader
 * checks those it reaches; these are also the ones it never would: after a
 * run's last tick, or under ticks that have open rows): blocks of 1 to
 * TICK_BLOCK_MAX ticks that do not overlap, pieces in a block that is
 * there, starting inside it, of a width pressmark writes, in one form. */
static int check_blocks(struct pm_db *f, const char *path, struct pm_err *err)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT (SELECT count(*) FROM tick_block WHERE blk < 0 OR blk > %lld OR n NOT BETWEEN 1 AND %d)"
             " + (SELECT count(*) FROM (SELECT blk, lag(blk + n) OVER (PARTITION BY run_id ORDER BY blk) AS prev"
             "    FROM tick_block WHERE blk BETWEEN 0 AND %lld) WHERE blk < prev)"
             " + (SELECT count(*) FROM tick_piece p WHERE p.off NOT BETWEEN 0 AND %d OR p.scale < 1"
             "    OR p.width NOT IN (0, 1, 2, 3, 4, 8, 12) OR (p.vals IS NOT NULL AND p.runs IS NOT NULL)"
             "    OR NOT EXISTS (SELECT 1 FROM tick_block b WHERE b.run_id = p.run_id AND b.blk = p.blk AND p.off < b.n))",
             (long long)(INT64_MAX / 2), TICK_BLOCK_MAX, (long long)(INT64_MAX / 2), TICK_BLOCK_MAX - 1);
    return refuse_counted(f, sql, path, "block or piece", "blocks or pieces", "not as pressmark writes them", err);
}

/* What a run of pressmark's could hold, at most: open ticks of
 * TICK_MAX_BYTES, pieces of a few TICK_PIECE_MAX, TICK_MAX_SERIES series
 * at positions 0 to n - 1. A database beyond it is refused whole, so what
 * merging costs, and what reading the merged runs costs later, is what
 * runs could make; then every run is read through as reports would
 * (check_runs). */
static int check_sizes(struct pm_db *f, const char *path, struct pm_err *err)
{
    sqlite3_stmt *st;
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM tick_open WHERE length(CAST(vals AS BLOB)) > %u)"
                              " + (SELECT count(*) FROM tick_piece WHERE length(CAST(vals AS BLOB)) > %d"
                              "    OR length(CAST(runs AS BLOB)) > %d),"
                              " (SELECT count(*) FROM (SELECT run_id FROM tick_series GROUP BY run_id"
                              "   HAVING count(*) > %d OR max(idx) + 1 != count(*) OR min(idx) != 0))",
             TICK_MAX_BYTES, 4 * TICK_PIECE_MAX, 4 * TICK_PIECE_MAX, TICK_MAX_SERIES);
    if (store_db_prepare(f, &st, sql, err) < 0)
        return -1;
    int rc = 0;
    if (sqlite3_step(st) != SQLITE_ROW)
        rc = pm_errf(err, "%s: %s", path, sqlite3_errmsg(f->h));
    else if (sqlite3_column_int64(st, 0) > 0)
        rc = pm_errf(err, "%s: %lld tick%s or block piece%s larger than a run writes: nothing merged", path,
                     (long long)sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 0) == 1 ? "" : "s",
                     sqlite3_column_int64(st, 0) == 1 ? "" : "s");
    else if (sqlite3_column_int64(st, 1) > 0)
        rc = pm_errf(err, "%s: %lld run%s whose series positions are not 0 to n - 1 (at most %d series): nothing "
                     "merged", path, (long long)sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 1) == 1 ? "" : "s",
                     TICK_MAX_SERIES);
    sqlite3_finalize(st);
    return rc < 0 ? rc : check_blocks(f, path, err);
}

/* A run's kept texts as pressmark keeps them: at most RUN_TEXT_MAX bytes
 * each, compressed to no more than zlib's bound for that (a row beyond
 * it is no text of pressmark's, and reading it would cost what it says). */
static int check_text_rows(struct pm_db *f, const char *path, struct pm_err *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM run_text WHERE size NOT BETWEEN 0 AND %u OR cut NOT IN (0, 1)"
                              " OR length(CAST(data AS BLOB)) > %lu", RUN_TEXT_MAX,
             (unsigned long)compressBound(RUN_TEXT_MAX));
    return refuse_counted(f, sql, path, "kept text", "kept texts", "larger than a run keeps", err);
}

/* And a run's texts together: many rows each within the bound would make
 * show --output of the merged run inflate them all (RUN_TEXTS_MAX_TOTAL
 * and RUN_TEXTS_MAX_ROWS, the writer's bounds). */
static int check_texts(struct pm_db *f, const char *path, struct pm_err *err)
{
    if (check_text_rows(f, path, err) < 0)
        return -1;
    sqlite3_stmt *st;
    char sql[320];
    snprintf(sql, sizeof sql, "SELECT coalesce(r.uuid, t.run_id), count(*), total(t.size) FROM run_text t"
                              " LEFT JOIN run r ON r.id = t.run_id GROUP BY t.run_id"
                              " HAVING count(*) > %u OR total(t.size) > %u LIMIT 1",
             RUN_TEXTS_MAX_ROWS, RUN_TEXTS_MAX_TOTAL);
    if (store_db_prepare(f, &st, sql, err) < 0)
        return -1;
    int rc = 0, s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        char uuid[96];
        quote_terminal(store_col_text(st, 0), uuid, sizeof uuid);
        rc = pm_errf(err, "%s: run %s keeps %lld texts of %.0f bytes (at most %u texts of %u MiB together): nothing "
                     "merged", path, uuid, (long long)sqlite3_column_int64(st, 1), sqlite3_column_double(st, 2),
                     RUN_TEXTS_MAX_ROWS, RUN_TEXTS_MAX_TOTAL >> 20);
    } else if (s != SQLITE_DONE) {
        rc = pm_errf(err, "%s: %s", path, sqlite3_errmsg(f->h));
    }
    sqlite3_finalize(st);
    return rc;
}

/* Every finished run's ticks read through, as reports read them: a run
 * that does not hold together (a piece past its series, a block longer
 * than pressmark writes, text that is not a piece) is refused here, not
 * in a report later. The cost is the bytes read. */
static int check_runs(struct pm_db *f, const char *path, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(f, &st, "SELECT id FROM run WHERE status != 'running' ORDER BY id", err) < 0)
        return -1;
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        struct tick_reader r;
        struct pm_err rerr = { "" };
        int more = tick_reader_open(&r, f, sqlite3_column_int64(st, 0), &rerr) < 0 ? -1 : 1;
        while (more == 1)
            more = tick_reader_next(&r, &rerr);
        tick_reader_close(&r);
        if (more < 0)
            rc = pm_errf(err, "%s: %s: nothing merged", path, rerr.msg);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The UUIDs a merge may take, in a temporary table of db's connection. */
static int only_table(struct pm_db *db, const char *const *only, size_t n, struct pm_err *err)
{
    if (store_db_exec(db, "DROP TABLE IF EXISTS temp.merge_only; CREATE TEMP TABLE merge_only (uuid TEXT PRIMARY KEY)",
                   err) < 0)
        return -1;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "INSERT OR IGNORE INTO temp.merge_only(uuid) VALUES (?)", err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_bind_text(st, 1, only[i], -1, SQLITE_STATIC);
        rc = store_db_step_done(db, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The checked snapshot, copied whole into db as the schema "other": into
 * a database of SQLite's own ('' attached), which has no name anywhere,
 * so a merge killed part way leaves nothing behind. */
static int attach_snapshot(struct pm_db *db, struct pm_db *from, const char *path, struct pm_err *err)
{
    if (store_db_exec(db, "ATTACH DATABASE '' AS other", err) < 0)
        return -1;
    sqlite3_backup *b = sqlite3_backup_init(db->h, "other", from->h, "main");
    int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
    if (b && sqlite3_backup_finish(b) != SQLITE_OK && rc == SQLITE_DONE)
        rc = SQLITE_ERROR;
    if (rc != SQLITE_DONE) {
        pm_errf(err, "%s: cannot copy it in: %s", path, sqlite3_errmsg(db->h));
        store_db_exec(db, "DETACH DATABASE other", NULL);
        return -1;
    }
    return 0;
}

int merge_database(struct pm_db *db, const char *path, const char *const *only, size_t n, int *added, int *present,
                   struct pm_err *err)
{
    struct foreign_db f;
    if (foreign_db_open_snapshot(path, &f, err) < 0)
        return -1;
    int rc = -1;
    if (check_labels(&f.db, path, err) < 0 || check_sizes(&f.db, path, err) < 0 ||
        check_texts(&f.db, path, err) < 0 || check_runs(&f.db, path, err) < 0 ||
        attach_snapshot(db, &f.db, path, err) < 0)
        goto out;
    foreign_db_close(&f);
    sqlite3_stmt *st;
    if (only && only_table(db, only, n, err) < 0)
        goto detach;
    if (store_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
        goto detach;
    if (store_db_exec(db, only ? "CREATE TEMP TABLE new_runs AS SELECT uuid FROM other.run WHERE status != 'running'"
                              " AND uuid NOT IN (SELECT uuid FROM main.run) AND uuid IN (SELECT uuid FROM temp.merge_only)"
                            : "CREATE TEMP TABLE new_runs AS SELECT uuid FROM other.run WHERE status != 'running'"
                              " AND uuid NOT IN (SELECT uuid FROM main.run)", err) < 0)
        goto rollback;
    if (store_db_exec(db,
                   "INSERT OR IGNORE INTO machine(hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size)"
                   " SELECT hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size FROM other.machine;"
                   "INSERT INTO run(uuid, machine_id, label, workload, params, started_ns, ended_ns, interval_ns, status, reason)"
                   " SELECT o.uuid, (SELECT m.id FROM main.machine m WHERE m.hostname = om.hostname AND m.kernel = om.kernel"
                   "   AND m.proc_version = om.proc_version AND m.cmdline = om.cmdline AND m.cpu_model = om.cpu_model"
                   "   AND m.cpus = om.cpus AND m.mem_total_kb = om.mem_total_kb AND m.page_size = om.page_size),"
                   "  o.label, o.workload, o.params, o.started_ns, o.ended_ns, o.interval_ns, o.status, o.reason"
                   " FROM other.run o JOIN other.machine om ON om.id = o.machine_id JOIN new_runs x ON x.uuid = o.uuid"
                   " ORDER BY o.started_ns, o.id;", err) < 0)
        goto rollback;
    for (size_t i = 0; i < sizeof child_copies / sizeof child_copies[0]; i++)
        if (store_db_exec(db, child_copies[i], err) < 0)
            goto rollback;
    if (store_db_prepare(db, &st, "SELECT (SELECT count(*) FROM new_runs), (SELECT count(*) FROM other.run) - (SELECT count(*) FROM new_runs)",
                      err) < 0)
        goto rollback;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *added = sqlite3_column_int(st, 0);
        *present = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    if (store_db_exec(db, "DROP TABLE temp.new_runs; COMMIT", err) < 0)
        goto rollback;
    rc = 0;
    goto detach;
rollback:
    store_db_rollback(db);
    store_db_exec(db, "DROP TABLE IF EXISTS temp.new_runs", NULL);
detach:
    store_db_exec(db, "DROP TABLE IF EXISTS temp.merge_only", NULL);
    store_db_exec(db, "DETACH DATABASE other", NULL);
    return rc;
out:
    foreign_db_close(&f);
    return rc;
}

