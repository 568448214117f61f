#include "store/foreign_db.h"
#include <errno.h>
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

int foreign_db_open(const char *path, struct foreign_db *f, struct pm_err *err)
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
    sqlite3_busy_timeout(ro, 10000);
    int v;
    if (schema_version(ro, &v) < 0) {
        pm_errf(err, "%s: %s", path, sqlite3_errmsg(ro));
        sqlite3_close(ro);
        return -1;
    }
    if (v > PM_SCHEMA_VERSION) {
        sqlite3_close(ro);
        return pm_errf(err, "%s: schema version %d is newer than this pressmark's (%d); upgrade pressmark", path, v,
                       PM_SCHEMA_VERSION);
    }
    if (v == PM_SCHEMA_VERSION) {
        f->db.h = ro;
        return 0;
    }
    /* Older: copy with SQLite's backup API, then migrate the copy. */
    const char *tmp = getenv("TMPDIR");
    snprintf(f->copy, sizeof f->copy, "%s/pressmark-foreign.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int cfd = mkstemp(f->copy);
    if (cfd < 0) {
        sqlite3_close(ro);
        return pm_errf(err, "%s: %s", f->copy, strerror(errno));
    }
    close(cfd);
    sqlite3 *dst;
    int rc = sqlite3_open_v2(f->copy, &dst, SQLITE_OPEN_READWRITE, NULL);
    sqlite3_backup *b = rc == SQLITE_OK ? sqlite3_backup_init(dst, "main", ro, "main") : NULL;
    if (b) {
        sqlite3_backup_step(b, -1);
        sqlite3_backup_finish(b);
    }
    rc = b ? sqlite3_errcode(dst) : SQLITE_ERROR;
    sqlite3_close(dst);
    sqlite3_close(ro);
    if (rc != SQLITE_OK) {
        unlink(f->copy);
        return pm_errf(err, "%s: cannot copy it to migrate its schema", path);
    }
    if (pm_db_open(&f->db, f->copy, false, err) < 0) {
        unlink(f->copy);
        f->copy[0] = '\0';
        return -1;
    }
    snprintf(f->db.path, sizeof f->db.path, "%s", path);
    return 0;
}

void foreign_db_close(struct foreign_db *f)
{
    if (f->db.h)
        sqlite3_close(f->db.h);
    f->db.h = NULL;
    if (f->copy[0]) {
        char side[4200];
        unlink(f->copy);
        snprintf(side, sizeof side, "%s-wal", f->copy);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", f->copy);
        unlink(side);
        f->copy[0] = '\0';
    }
}
