#include "store/completions.h"
#include <sqlite3.h>
#include <stddef.h>

static const char *const kind_sql[] = {
    [COMPLETIONS_LABELS] = "SELECT label FROM run GROUP BY label ORDER BY max(id) DESC LIMIT 2000",
    [COMPLETIONS_RUNS] = "SELECT id FROM run ORDER BY id DESC LIMIT 2000",
    [COMPLETIONS_METRICS] = "SELECT DISTINCT name FROM metric ORDER BY name LIMIT 2000",
    [COMPLETIONS_PAIRS] = "SELECT workload || char(9) || label FROM run GROUP BY workload, label ORDER BY min(id)",
};

int completions_each(const char *path, enum completions_kind kind, void (*fn)(void *ctx, const char *text), void *ctx,
                     struct pm_err *err)
{
    if ((size_t)kind >= sizeof kind_sql / sizeof kind_sql[0])
        return pm_errf(err, "no such kind of candidates (%d)", (int)kind);
    sqlite3 *h = NULL;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        pm_errf(err, "%s: %s", path, h ? sqlite3_errmsg(h) : "cannot open");
        sqlite3_close(h);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, kind_sql[kind], -1, &st, NULL);
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *v = sqlite3_column_text(st, 0);
            if (v)
                fn(ctx, (const char *)v);
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        pm_errf(err, "%s: %s", path, sqlite3_errmsg(h));
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rc == SQLITE_OK ? 0 : -1;
}
