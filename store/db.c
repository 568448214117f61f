#include "store/db.h"
#include "store/tick_migrate.h"
#include <limits.h>
#include "lib/fileio.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

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
};

/* Migrations that SQL alone cannot do: called where migrations[] is NULL. */
static int migrate_in_c(struct pm_db *db, int v, struct pm_err *err)
{
    switch (v) {
    case 4:
        return tick_migrate_v5(db, err);
    default:
        return pm_errf(err, "%s: no migration from schema %d", db->path, v);
    }
}

int pm_db_default_path(char *buf, size_t len)
{
    const char *env = getenv("PRESSMARK_DB");
    if (env && *env) {
        if ((size_t)snprintf(buf, len, "%s", env) >= len)
            return -1;
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    /* Built in a clone (the binary at the top, or in build/...): beside
     * the binary, as always. Installed: a per-user place. */
    static const char *const up[] = { "", "/..", "/../.." };
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++) {
        char marker[PATH_MAX + 32];
        snprintf(marker, sizeof marker, "%s%s/layering.txt", exe, up[i]);
        if (access(marker, F_OK) == 0)
            return (size_t)snprintf(buf, len, "%s/results.db", exe) >= len ? -1 : 0;
    }
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int w;
    if (xdg && *xdg == '/')
        w = snprintf(buf, len, "%s/pressmark/results.db", xdg);
    else if (geteuid() == 0)
        w = snprintf(buf, len, "/var/lib/pressmark/results.db");
    else if (home && *home == '/')
        w = snprintf(buf, len, "%s/.local/share/pressmark/results.db", home);
    else
        return -1;
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* Whether a failure came from a full filesystem is read at once: the
 * ROLLBACK that follows a failed write resets SQLite's error code.
 * SQLITE_FULL from a write; a WAL index that cannot grow is an I/O error
 * whose system errno says why (SQLite sets that errno only with I/O
 * errors, and keeps it afterwards). Each call of pm_db_exec, prepare and
 * step_done says for itself. */
void pm_db_note_failure(struct pm_db *db)
{
    int ec = sqlite3_extended_errcode(db->h) & 0xff;
    db->full = ec == SQLITE_FULL || (ec == SQLITE_IOERR && sqlite3_system_errno(db->h) == ENOSPC);
}

int pm_db_exec(struct pm_db *db, const char *sql, struct pm_err *err)
{
    char *msg = NULL;
    db->full = false;
    if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        pm_db_note_failure(db);
        pm_errf(err, "%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

void pm_db_rollback(struct pm_db *db)
{
    if (db->h && !sqlite3_get_autocommit(db->h))
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

int pm_db_prepare(struct pm_db *db, sqlite3_stmt **st, const char *sql, struct pm_err *err)
{
    db->full = false;
    if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK) {
        pm_db_note_failure(db);
        return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    }
    return 0;
}

int pm_db_step_done(struct pm_db *db, sqlite3_stmt *st, struct pm_err *err)
{
    db->full = false;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        pm_db_note_failure(db);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    return 0;
}

static int user_version(struct pm_db *db, int *v, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (pm_db_prepare(db, &st, "PRAGMA user_version", err) < 0)
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

static int migrate(struct pm_db *db, struct pm_err *err)
{
    int v;
    if (user_version(db, &v, err) < 0)
        return -1;
    if (v > PM_SCHEMA_VERSION)
        return pm_errf(err, "%s: schema version %d is newer than this pressmark's (%d); upgrade pressmark",
                       db->path, v, PM_SCHEMA_VERSION);
    for (; v < PM_SCHEMA_VERSION; v++) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
        if (pm_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
            return -1;
        int step = migrations[v] ? pm_db_exec(db, migrations[v], err) : migrate_in_c(db, v, err);
        if (step < 0 || pm_db_exec(db, pragma, err) < 0) {
            pm_db_rollback(db);
            return -1;
        }
        if (pm_db_exec(db, "COMMIT", err) < 0)
            return -1;
    }
    return 0;
}

/* A results database pressmark makes is private: its directory, when
 * pressmark makes that too, 0700, the file 0600 (SQLite gives its -wal
 * and -shm the file's mode). Root's own place, /var/lib/pressmark, is made
 * 0700 if an older pressmark left it open. A database that is there
 * already keeps the mode its owner gave it. */
static int make_private(const char *path, struct pm_err *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        mode_t old = umask(077);
        int made = access(dir, F_OK) == 0 ? 0 : pm_mkdirs(dir);
        umask(old);
        if (made < 0)
            return pm_errf(err, "%s: %s", dir, strerror(errno));
        struct stat st;
        if (strcmp(dir, "/var/lib/pressmark") == 0 && geteuid() == 0 && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
            st.st_uid == 0 && (st.st_mode & 077) && chmod(dir, 0700) < 0)
            return pm_errf(err, "%s: %s", dir, strerror(errno));
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct stat st;
    if (fd >= 0)
        close(fd);
    else if (errno != EEXIST)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    /* A link to a database is taken; a link to nothing would have SQLite
     * make its target, not privately. */
    else if (stat(path, &st) < 0)
        return pm_errf(err, "%s: a symbolic link to nothing (%s)", path, strerror(errno));
    return 0;
}

/* Each connection belongs to one thread (the sampler opens its own), so
 * SQLite's per-call mutexes are pure overhead: NOMUTEX. */
int pm_db_open(struct pm_db *db, const char *path, bool create, struct pm_err *err)
{
    memset(db, 0, sizeof *db);
    snprintf(db->path, sizeof db->path, "%s", path);
    if (!create && access(path, F_OK) != 0)
        return pm_errf(err, "%s: no results database here yet (a run command creates it; --db or PRESSMARK_DB choose another)", path);
    if (create && make_private(path, err) < 0)
        return -1;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
        pm_errf(err, "%s: %s", path, db->h ? sqlite3_errmsg(db->h) : "cannot open");
        sqlite3_close(db->h);
        db->h = NULL;
        return -1;
    }
    sqlite3_busy_timeout(db->h, PM_DB_WAIT_MS);
    int v;
    if (user_version(db, &v, err) < 0)
        goto fail;
    /* WAL lets list/show/compare read while a run writes its ticks; NORMAL
     * sync is safe in WAL (a crash loses at most the last transactions). */
    if (pm_db_exec(db, "PRAGMA journal_mode=WAL", err) < 0 ||
        pm_db_exec(db, "PRAGMA synchronous=NORMAL", err) < 0 ||
        pm_db_exec(db, "PRAGMA foreign_keys=ON", err) < 0)
        goto fail;
    if (migrate(db, err) < 0)
        goto fail;
    return 0;
fail:
    sqlite3_close(db->h);
    db->h = NULL;
    return -1;
}

int pm_db_result_wait_ms(void)
{
    const char *t = getenv("PRESSMARK_TEST_RESULT_WAIT_MS");
    char *end;
    long ms = t && *t ? strtol(t, &end, 10) : -1;
    return t && *t && !*end && ms >= 0 && ms <= PM_DB_RESULT_WAIT_MS ? (int)ms : PM_DB_RESULT_WAIT_MS;
}

void pm_db_remove_copy(const char *copy)
{
    static const char *const side[] = { "", "-wal", "-shm", "-journal" };
    char p[PATH_MAX + 16];
    for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
        snprintf(p, sizeof p, "%s%s", copy, side[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s", copy);
    char *slash = strrchr(p, '/');
    if (slash) {
        *slash = '\0';
        rmdir(p);
    }
}

void pm_db_set_wait(struct pm_db *db, int ms)
{
    if (db->h)
        sqlite3_busy_timeout(db->h, ms);
}

void pm_db_close(struct pm_db *db)
{
    if (db->h) {
        sqlite3_close(db->h);
        db->h = NULL;
    }
    if (db->copy[0]) {
        pm_db_remove_copy(db->copy);
        db->copy[0] = '\0';
    }
}

const char *pm_col_text(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : "";
}

bool pm_db_moved(const struct pm_db *db)
{
    int moved = 0;
    return db->h && sqlite3_file_control(db->h, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved;
}

bool pm_db_full(const struct pm_db *db)
{
    return db->h && db->full;
}
