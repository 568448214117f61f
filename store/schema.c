#include "store/schema.h"
#include <stdio.h>
#include <string.h>
#include "store/tick_migrate.h"

/* Each entry moves the schema from version i to i + 1. Never edit a released
 * entry: add a new one, so every older database migrates the same way. */
static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE machine ("
    "  id INTEGER PRIMARY KEY,"
    "  hostname TEXT NOT NULL, kernel TEXT NOT NULL, proc_version TEXT NOT NULL,"
    "  cmdline TEXT NOT NULL, cpu_model TEXT NOT NULL, cpus INTEGER NOT NULL,"
    "  mem_total_kb INTEGER NOT NULL, page_size INTEGER NOT NULL,"
    "  UNIQUE (hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size));"
    "CREATE TABLE run ("
    "  id INTEGER PRIMARY KEY,"
    "  uuid TEXT NOT NULL UNIQUE,"
    "  machine_id INTEGER NOT NULL REFERENCES machine(id),"
    "  label TEXT NOT NULL, workload TEXT NOT NULL, params TEXT NOT NULL,"
    "  started_ns INTEGER NOT NULL, ended_ns INTEGER,"
    "  interval_ns INTEGER NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('running','ok','failed','oom','aborted')),"
    "  reason TEXT);"
    "CREATE INDEX run_label ON run(label, workload);"
    "CREATE TABLE run_meta ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, key)) WITHOUT ROWID;"
    "CREATE TABLE metric ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL,"
    "  direction TEXT NOT NULL CHECK (direction IN ('higher','lower','none')),"
    "  PRIMARY KEY (run_id, name)) WITHOUT ROWID;"
    "CREATE TABLE run_source ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  source TEXT NOT NULL, path TEXT NOT NULL, ticks INTEGER NOT NULL, note TEXT,"
    "  PRIMARY KEY (run_id, path)) WITHOUT ROWID;"
    /* Samples: one row per tick, position i of its values holding the
     * run's series i (tick_series maps positions to names). Schema 5 changed
     * the encoding from a JSON array to changes only (tick_migrate.c); the
     * sample view gives the (name, value) rows back to SQL either way.
     * t_ns counts from the run's first tick on CLOCK_MONOTONIC. */
    "CREATE TABLE tick_series ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, name TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, idx), UNIQUE (run_id, name));"
    "CREATE TABLE tick ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL, t_ns INTEGER NOT NULL, data TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
    "CREATE VIEW sample AS"
    "  SELECT t.run_id AS run_id, t.seq AS seq, t.t_ns AS t_ns, s.name AS name, j.value AS value"
    "  FROM tick t, json_each(t.data) j"
    "  JOIN tick_series s ON s.run_id = t.run_id AND s.idx = j.key"
    "  WHERE j.type != 'null';",
    /* 1 -> 2: a run's kernel profile (--profile), its top symbols. */
    "CREATE TABLE profile ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  rank INTEGER NOT NULL, symbol TEXT NOT NULL, samples INTEGER NOT NULL,"
    "  pct_kernel REAL NOT NULL, pct_all REAL NOT NULL,"
    "  PRIMARY KEY (run_id, rank)) WITHOUT ROWID;",
    /* 2 -> 3: which runs reached which time-series database (push). A run
     * without a row for a URL is still queued for it. */
    "CREATE TABLE pushed ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  url TEXT NOT NULL, pushed_ns INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, url)) WITHOUT ROWID;",
    /* 3 -> 4: suites (pressmark suite run FILE): the file as run, its cells
     * (the product of its axes) and its planned runs in execution order,
     * each linked to its run once started, so an interrupted suite resumes
     * where it stopped. The runs themselves carry suite.* and axis.* meta,
     * so reports group them by cell also after a merge. */
    "CREATE TABLE suite ("
    "  id INTEGER PRIMARY KEY,"
    "  uuid TEXT NOT NULL UNIQUE, name TEXT NOT NULL, path TEXT NOT NULL,"
    "  digest TEXT NOT NULL, text TEXT NOT NULL, created_ns INTEGER NOT NULL,"
    "  seed INTEGER NOT NULL,"
    "  state TEXT NOT NULL CHECK (state IN ('running','complete')));"
    "CREATE INDEX suite_name ON suite(name);"
    "CREATE TABLE suite_cell ("
    "  suite_id INTEGER NOT NULL REFERENCES suite(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, label TEXT NOT NULL, workload TEXT NOT NULL,"
    "  headline TEXT NOT NULL, axes TEXT NOT NULL,"
    "  PRIMARY KEY (suite_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE suite_run ("
    "  suite_id INTEGER NOT NULL REFERENCES suite(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL, round INTEGER NOT NULL, cell INTEGER NOT NULL,"
    "  run_id INTEGER REFERENCES run(id),"
    "  PRIMARY KEY (suite_id, seq)) WITHOUT ROWID;",
    /* 4 -> 5: ticks hold only what changed, as varints (tick_migrate.c). */
    NULL,
    /* 5 -> 6: latency histograms (reclaim stalls traced, chat messages):
     * each non-empty bucket [lo, hi] in ns with its count. */
    "CREATE TABLE latency_hist ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL, lo INTEGER NOT NULL, hi INTEGER NOT NULL, count INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, name, lo)) WITHOUT ROWID;",
    /* 6 -> 7: the sample view, the same rows at a linear cost. */
    tick_sample_view_v7_sql,
    /* 7 -> 8: ticks in blocks of per-series pieces SQL reads one series
     * of one run at a time (tick_migrate.c). */
    NULL,
    /* 8 -> 9: bisections (pressmark bisect): what was asked (the suite as
     * read, its cell, the metric, the kind of candidates, the endpoints),
     * the candidates in order, and each step's verdict once it has one, so
     * an interrupted bisection resumes without repeating a finished step.
     * A step's runs are suites of their own (bisect_batch: one a boot),
     * keyed by the cell and the kernel they measured, so any bisection of
     * that cell and kernel reuses them. */
    "CREATE TABLE bisect ("
    "  id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, key TEXT NOT NULL,"
    "  suite_path TEXT NOT NULL, suite_text TEXT NOT NULL, cell TEXT NOT NULL, metric TEXT NOT NULL,"
    "  kind TEXT NOT NULL CHECK (kind IN ('packages','debs','git')),"
    "  good TEXT NOT NULL, bad TEXT NOT NULL, repo TEXT NOT NULL, build TEXT NOT NULL,"
    "  runs INTEGER NOT NULL, max_runs INTEGER NOT NULL, alpha REAL NOT NULL, created_ns INTEGER NOT NULL,"
    "  state TEXT NOT NULL CHECK (state IN ('running','done','no-difference','failed')),"
    "  first_bad TEXT, reason TEXT);"
    "CREATE INDEX bisect_key ON bisect(key);"
    "CREATE TABLE bisect_candidate ("
    "  bisect_id INTEGER NOT NULL REFERENCES bisect(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, kernel TEXT NOT NULL, version TEXT NOT NULL,"
    "  PRIMARY KEY (bisect_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE bisect_step ("
    "  bisect_id INTEGER NOT NULL REFERENCES bisect(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL, role TEXT NOT NULL CHECK (role IN ('good','bad','step')),"
    "  candidate INTEGER NOT NULL, kernel TEXT NOT NULL, kernel_key TEXT NOT NULL,"
    "  runs INTEGER NOT NULL, mean REAL,"
    "  verdict TEXT CHECK (verdict IN ('good','bad','skip','cannot-tell')),"
    "  p_good REAL, p_bad REAL, boots INTEGER NOT NULL, reason TEXT,"
    "  PRIMARY KEY (bisect_id, seq)) WITHOUT ROWID;"
    "CREATE TABLE bisect_batch ("
    "  kernel_key TEXT NOT NULL, n INTEGER NOT NULL, suite_name TEXT NOT NULL UNIQUE, text TEXT NOT NULL,"
    "  PRIMARY KEY (kernel_key, n)) WITHOUT ROWID;",
    /* 9 -> 10: a suite's kernels as jobs of a LAVA lab (backend lava):
     * each group's job as it was made (its definition, where its guest
     * puts the results), its id once submitted and how it ended, so a
     * suite killed while its jobs run resumes by waiting for them. */
    "CREATE TABLE lava_job ("
    "  suite_id INTEGER NOT NULL REFERENCES suite(id) ON DELETE CASCADE,"
    "  grp INTEGER NOT NULL, attempt INTEGER NOT NULL, lab TEXT NOT NULL, definition TEXT NOT NULL,"
    "  results_url TEXT NOT NULL, job_id INTEGER, created_ns INTEGER NOT NULL,"
    "  state TEXT NOT NULL CHECK (state IN ('made','submitted','collected','failed')), reason TEXT,"
    "  PRIMARY KEY (suite_id, grp, attempt)) WITHOUT ROWID;",
    /* 10 -> 11: the texts a recorded command left (record --figures): its
     * standard output and error, the file its figures were read from, its
     * logs, each as zlib compressed it, with its size as kept and whether
     * it was cut there (store/texts.h). A rowid table: its rows are large. */
    "CREATE TABLE run_text ("
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, what TEXT NOT NULL, size INTEGER NOT NULL, cut INTEGER NOT NULL,"
    "  data BLOB NOT NULL,"
    "  UNIQUE (run_id, idx));",
};

/* Migrations that SQL alone cannot do: called where migrations[] is NULL. */
static int migrate_in_c(struct pm_db *db, int v, struct pm_err *err)
{
    switch (v) {
    case 4:
        return tick_migrate_v5(db, err);
    case 7:
        return tick_migrate_v8(db, err);
    default:
        return pm_errf(err, "%s: no migration from schema %d", db->path, v);
    }
}

int store_schema_version(struct pm_db *db, int *v, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "PRAGMA user_version", err) < 0)
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        /* A file that is not a database fails here, at the first real read. */
        pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
        sqlite3_finalize(st);
        return -1;
    }
    *v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return 0;
}

int store_schema_migrate(struct pm_db *db, struct pm_err *err)
{
    int v;
    if (store_schema_version(db, &v, err) < 0)
        return -1;
    if (v > PM_SCHEMA_VERSION)
        return pm_errf(err, "%s: schema version %d is newer than this pressmark's (%d); upgrade pressmark",
                       db->path, v, PM_SCHEMA_VERSION);
    for (; v < PM_SCHEMA_VERSION; v++) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
        if (store_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
            return -1;
        int step = migrations[v] ? store_db_exec(db, migrations[v], err) : migrate_in_c(db, v, err);
        if (step < 0 || store_db_exec(db, pragma, err) < 0) {
            store_db_rollback(db);
            return -1;
        }
        if (store_db_exec(db, "COMMIT", err) < 0)
            return -1;
    }
    return 0;
}

/* One statement of a migration, made in the TEMP schema: a table as TEMP
 * (an index goes where its table is). *used: how much of sql it was. */
static int overlay_statement(struct pm_db *db, const char *sql, size_t *used, struct pm_err *err)
{
    static const char table[] = "CREATE TABLE ", temp[] = "CREATE TEMP TABLE ";
    bool is_table = strncmp(sql, table, sizeof table - 1) == 0;
    char *text = sqlite3_mprintf("%s%s", is_table ? temp : "", is_table ? sql + sizeof table - 1 : sql);
    if (!text)
        return pm_errf(err, "%s: out of memory", db->path);
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v2(db->h, text, -1, &st, &tail);
    if (rc == SQLITE_OK && st)
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    if (rc != SQLITE_OK)
        pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    else
        *used = (size_t)(tail - text) - (is_table ? sizeof temp - sizeof table : 0);
    sqlite3_finalize(st);
    sqlite3_free(text);
    return rc == SQLITE_OK ? 0 : -1;
}

int store_schema_overlay(struct pm_db *db, int v, struct pm_err *err)
{
    if (v < 0)
        return 0;
    for (int s = v; s < PM_SCHEMA_VERSION; s++)
        if (!migrations[s])
            return 0;
    for (int s = v; s < PM_SCHEMA_VERSION; s++) {
        for (const char *p = migrations[s];;) {
            p += strspn(p, " \t\n;");
            if (!*p)
                break;
            if (strncmp(p, "CREATE TABLE ", 13) != 0 && strncmp(p, "CREATE INDEX ", 13) != 0)
                return 0;
            size_t used = 0;
            if (overlay_statement(db, p, &used, err) < 0)
                return -1;
            p += used;
        }
    }
    return 1;
}
