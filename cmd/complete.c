/* pressmark __complete labels|runs: candidates for the shell's Tab
 * (completion/pressmark), straight from the database: opened read-only,
 * one prepared query, nothing migrated or written; a missing or foreign
 * database completes nothing. Labels with control characters are left
 * out (they would reach the terminal). */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/complete.h"

int cmd_complete(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "labels") != 0 && strcmp(argv[1], "runs") != 0))
        return PM_EXIT_USAGE;
    bool labels = strcmp(argv[1], "labels") == 0;
    sqlite3 *h = NULL;
    if (sqlite3_open_v2(pm_db_path(), &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(h);
        return 0;
    }
    /* The newest first: what is typed next is most often what just ran. */
    const char *sql = labels ? "SELECT label FROM run GROUP BY label ORDER BY max(id) DESC LIMIT 2000"
                             : "SELECT id FROM run ORDER BY id DESC LIMIT 2000";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const unsigned char *v = sqlite3_column_text(st, 0);
            if (!v)
                continue;
            bool clean = true;
            for (const unsigned char *p = v; *p && clean; p++)
                clean = *p >= 0x20 && *p != 0x7f;
            if (clean)
                printf("%s\n", (const char *)v);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return 0;
}
