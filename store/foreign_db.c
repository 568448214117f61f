#include "store/foreign_db.h"
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int schema_version(sqlite3 *h, int *v)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    if (rc == 0)
        *v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return rc;
}

/* One query's single integer, or -1 when it fails. */
static int64_t count_of(sqlite3 *h, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return n;
}

/* The primary key's columns of table t, in order ("run_id,blk,idx"), into
 * buf; "" when it has none (or no such table). */
static void key_of(sqlite3 *h, const char *t, char *buf, size_t len)
{
    sqlite3_stmt *st;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(h, "SELECT group_concat(name) FROM (SELECT ii.name AS name FROM pragma_index_list(?1) il,"
                              " pragma_index_info(il.name) ii WHERE il.origin = 'pk' ORDER BY ii.seqno)", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* The samples' tables keyed as pressmark keys them, where the file has
 * them: every read of them seeks by that key, and a table without it (a
 * file made to be slow) would make each seek a scan. */
static int verify_keys(sqlite3 *h, const char *path, struct pm_err *err)
{
    static const char *const keys[][2] = {
        { "tick", "run_id,seq" }, { "tick_series", "run_id,idx" }, { "tick_open", "run_id,seq" },
        { "tick_block", "run_id,blk" }, { "tick_piece", "run_id,blk,idx" },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char sql[160], got[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_schema WHERE name = '%s' AND type = 'table'", keys[i][0]);
        if (count_of(h, sql) != 1)
            continue;
        key_of(h, keys[i][0], got, sizeof got);
        if (strcmp(got, keys[i][1]) != 0)
            return pm_errf(err, "%s: its table %s is not keyed by (%s) (not a pressmark results file)", path, keys[i][0],
                           keys[i][1]);
    }
    return 0;
}

/* A database from elsewhere is read only after its shape is ours: the
 * tables pressmark reads are tables (a view or trigger in their place could
 * run anything SQLite can, or never end), with the columns pressmark reads,
 * and the run rows hold no NULL or oversized value where text belongs. */
static int verify_schema(sqlite3 *h, const char *path, struct pm_err *err)
{
    if (count_of(h, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'") != 0)
        return pm_errf(err, "%s has triggers (not a pressmark results file)", path);
    /* pressmark's tables compare text byte for byte and compute nothing: a
     * collation (NOCASE would let 'SUITE.CELL_INDEX' stand for
     * 'suite.cell_index') or a generated column is another file's. */
    if (count_of(h, "SELECT count(*) FROM sqlite_schema WHERE type IN ('table', 'index') AND (upper(sql) LIKE '%COLLATE%'"
                    " OR upper(sql) LIKE '%GENERATED%' OR upper(sql) LIKE '% AS (%' OR upper(sql) LIKE '% AS(%')") != 0)
        return pm_errf(err, "%s declares collations or generated columns (not a pressmark results file)", path);
    /* A virtual table is a module's code run on every read, whatever
     * name it takes: pressmark makes none. SQLite writes every table it
     * makes as "CREATE TABLE ...", but it parses a schema row with its
     * tokenizer, so "CREATE  VIRTUAL", "CREATE\tVIRTUAL" or
     * "CREATE/ * * /VIRTUAL" written with writable_schema is a virtual table
     * too: any table row not spelt as SQLite spells one is refused. (Not
     * pragma_table_list: it connects each virtual table to count its
     * columns, running the module.) */
    if (count_of(h, "SELECT count(*) FROM sqlite_schema WHERE upper(sql) LIKE 'CREATE VIRTUAL%'"
                    " OR (type = 'table' AND (sql IS NULL OR sql NOT LIKE 'CREATE TABLE %'))") != 0)
        return pm_errf(err, "%s has virtual tables (not a pressmark results file)", path);
    static const char *const tables[] = { "machine", "run", "run_meta", "metric", "run_source", "tick_series", "tick" };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_schema WHERE name = '%s' AND type = 'table'", tables[i]);
        if (count_of(h, sql) != 1)
            return pm_errf(err, "%s: '%s' is not a table there (not a pressmark results file)", path, tables[i]);
    }
    /* Schema 8's block tables, where the file has them (older ones gain
     * them in the migrated copy). */
    if (count_of(h, "SELECT count(*) FROM sqlite_schema WHERE name IN ('tick_open', 'tick_block', 'tick_piece')"
                    " AND type != 'table'") != 0)
        return pm_errf(err, "%s: its tick blocks are not tables (not a pressmark results file)", path);
    if (verify_keys(h, path, err) < 0)
        return -1;
    if (count_of(h, "SELECT count(*) FROM sqlite_schema WHERE type = 'view' AND name != 'sample'") != 0)
        return pm_errf(err, "%s has views pressmark did not make (not a pressmark results file)", path);
    static const char *const run_cols =
        "SELECT count(*) FROM pragma_table_info('run') WHERE name IN"
        " ('id','uuid','machine_id','label','workload','params','started_ns','ended_ns','interval_ns','status','reason')";
    if (count_of(h, run_cols) != 11)
        return pm_errf(err, "%s: its run table lacks columns pressmark reads (not a pressmark results file)", path);
    int64_t bad = count_of(h, "SELECT count(*) FROM run WHERE uuid IS NULL OR label IS NULL OR workload IS NULL"
                              " OR status IS NULL OR typeof(label) != 'text' OR length(uuid) > 64 OR length(label) > 255"
                              " OR length(workload) > 63 OR length(status) > 15 OR length(params) > 2047"
                              " OR length(reason) > 1023");
    if (bad != 0)
        return pm_errf(err, "%s: %lld run%s with a NULL or oversized uuid, label, workload, status, params or reason "
                       "(not a pressmark results file)", path, (long long)bad, bad == 1 ? "" : "s");
    return 0;
}

/* The migrated copy: the original copied with SQLite's backup API into a
 * database of SQLite's own ("" as the name), then migrated there. SQLite
 * keeps such a database in its page cache and lets it spill only into a
 * file it unlinks the moment it opens it (O_EXCL, O_NOFOLLOW, 0600), as its
 * journal: the copy has no name, so no signal, not even SIGKILL, can leave
 * it behind, and nobody can open or replace it meanwhile. */
static int migrated_copy(sqlite3 *ro, const char *path, struct pm_db *db, struct pm_err *err)
{
    memset(db, 0, sizeof *db);
    snprintf(db->path, sizeof db->path, "%s", path);
    if (sqlite3_open_v2("", &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        pm_errf(err, "%s: cannot make a copy to migrate its schema: %s", path,
                db->h ? sqlite3_errmsg(db->h) : "out of memory");
        store_db_close(db);
        return -1;
    }
    sqlite3_db_config(db->h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(db->h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_backup *b = sqlite3_backup_init(db->h, "main", ro, "main");
    int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
    if (b && sqlite3_backup_finish(b) != SQLITE_OK && rc == SQLITE_DONE)
        rc = SQLITE_ERROR;
    if (rc != SQLITE_DONE) {
        pm_errf(err, "%s: cannot copy it to migrate its schema: %s", path, sqlite3_errmsg(db->h));
        store_db_close(db);
        return -1;
    }
    /* As store_db_open migrates a database of its own. */
    if (store_db_exec(db, "PRAGMA foreign_keys=ON", err) < 0 || store_schema_migrate(db, err) < 0) {
        store_db_close(db);
        return -1;
    }
    return 0;
}

static int open_foreign(const char *path, struct foreign_db *f, bool snapshot, struct pm_err *err)
{
    memset(f, 0, sizeof *f);
    snprintf(f->db.path, sizeof f->db.path, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    char magic[16];
    ssize_t n = read(fd, magic, sizeof magic);
    close(fd);
    if (n != 16 || memcmp(magic, "SQLite format 3", 16) != 0)
        return pm_errf(err, "%s is not an SQLite database (not a pressmark results file)", path);
    sqlite3 *ro;
    if (sqlite3_open_v2(path, &ro, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        pm_errf(err, "%s: %s", path, ro ? sqlite3_errmsg(ro) : "cannot open");
        sqlite3_close(ro);
        return -1;
    }
    sqlite3_busy_timeout(ro, PM_DB_WAIT_MS);
    /* Defensive: no writes to the schema through SQL, no functions with
     * side effects called from the file's own schema. */
    sqlite3_db_config(ro, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(ro, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    /* A snapshot: one read transaction from the first check to the last
     * read, so what is checked is what is read. */
    int v;
    if ((snapshot && sqlite3_exec(ro, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) || schema_version(ro, &v) < 0) {
        pm_errf(err, "%s: %s", path, sqlite3_errmsg(ro));
        sqlite3_close(ro);
        return -1;
    }
    if (v > PM_SCHEMA_VERSION) {
        sqlite3_close(ro);
        return pm_errf(err, "%s: schema version %d is newer than this pressmark's (%d); upgrade pressmark", path, v,
                       PM_SCHEMA_VERSION);
    }
    if (verify_schema(ro, path, err) < 0) {
        sqlite3_close(ro);
        return -1;
    }
    /* The current schema is read as it is; an older one whose newer
     * schemas only add tables is read with those tables added in TEMP;
     * only one whose rows a migration rewrites is copied. */
    f->db.h = ro;
    if (v == PM_SCHEMA_VERSION || (!snapshot && store_schema_overlay(&f->db, v, NULL) == 1))
        return 0;
    f->db.h = NULL;
    int rc = migrated_copy(ro, path, &f->db, err);
    sqlite3_close(ro);
    if (rc < 0)
        return -1;
    /* What was checked is the original as it was read; the copy is what
     * is used from now on, so it is checked again. */
    if (snapshot && verify_schema(f->db.h, path, err) < 0) {
        store_db_close(&f->db);
        return -1;
    }
    return 0;
}

int foreign_db_open(const char *path, struct foreign_db *f, struct pm_err *err)
{
    return open_foreign(path, f, false, err);
}

int foreign_db_open_snapshot(const char *path, struct foreign_db *f, struct pm_err *err)
{
    return open_foreign(path, f, true, err);
}

void foreign_db_close(struct foreign_db *f)
{
    store_db_close(&f->db);
}
