#include "store/db.h"
#include "store/schema.h"
#include <limits.h>
#include "lib/fileio.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

/* The path used when neither --db nor PRESSMARK_DB says otherwise:
 * results.db beside the pressmark binary, i.e. at the repository root. */
static int pm_db_default_path(char *buf, size_t len)
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
int store_db_open(struct pm_db *db, const char *path, bool create, struct pm_err *err)
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
    if (store_schema_version(db, &v, err) < 0)
        goto fail;
    /* WAL lets list/show/compare read while a run writes its ticks; NORMAL
     * sync is safe in WAL (a crash loses at most the last transactions). */
    if (store_db_exec(db, "PRAGMA journal_mode=WAL", err) < 0 ||
        store_db_exec(db, "PRAGMA synchronous=NORMAL", err) < 0 ||
        store_db_exec(db, "PRAGMA foreign_keys=ON", err) < 0)
        goto fail;
    if (store_schema_migrate(db, err) < 0)
        goto fail;
    return 0;
fail:
    sqlite3_close(db->h);
    db->h = NULL;
    return -1;
}

int store_db_result_wait_ms(void)
{
    const char *t = getenv("PRESSMARK_TEST_RESULT_WAIT_MS");
    char *end;
    long ms = t && *t ? strtol(t, &end, 10) : -1;
    return t && *t && !*end && ms >= 0 && ms <= PM_DB_RESULT_WAIT_MS ? (int)ms : PM_DB_RESULT_WAIT_MS;
}

void store_db_close(struct pm_db *db)
{
    if (db->h) {
        sqlite3_close(db->h);
        db->h = NULL;
    }
}

void store_db_set_wait(struct pm_db *db, int ms)
{
    if (db->h)
        sqlite3_busy_timeout(db->h, ms);
}

bool store_db_moved(const struct pm_db *db)
{
    int moved = 0;
    return db->h && sqlite3_file_control(db->h, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved;
}

bool store_db_full(const struct pm_db *db)
{
    return db->h && db->full;
}

static char db_path[PATH_MAX];

void store_set_db_path(const char *path)
{
    snprintf(db_path, sizeof db_path, "%s", path);
}

const char *store_db_path(void)
{
    if (!db_path[0] && pm_db_default_path(db_path, sizeof db_path) < 0)
        snprintf(db_path, sizeof db_path, "results.db");
    return db_path;
}
