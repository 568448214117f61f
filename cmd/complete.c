/* pressmark __complete labels|runs|metrics|pairs: candidates for the
 * shell's Tab (completion/pressmark), and the workload-label pairs the
 * nightly service compares one by one, straight from the database: opened read-only,
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
    /* Labels and runs newest first: what is typed next is most often what
     * just ran. A pair is workload, a tab, label. */
    static const struct { const char *kind, *sql; bool pair; } kinds[] = {
        { "labels", "SELECT label FROM run GROUP BY label ORDER BY max(id) DESC LIMIT 2000", false },
        { "runs", "SELECT id FROM run ORDER BY id DESC LIMIT 2000", false },
        { "metrics", "SELECT DISTINCT name FROM metric ORDER BY name LIMIT 2000", false },
        { "pairs", "SELECT workload || char(9) || label FROM run GROUP BY workload, label ORDER BY min(id)", true },
    };
    const size_t nkinds = sizeof kinds / sizeof kinds[0];
    size_t k = 0;
    while (argc == 2 && k < nkinds && strcmp(argv[1], kinds[k].kind) != 0)
        k++;
    if (argc != 2 || k == nkinds)
        return PM_EXIT_USAGE;
    sqlite3 *h = NULL;
    if (sqlite3_open_v2(pm_db_path(), &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(h);
        return 0;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, kinds[k].sql, -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const unsigned char *v = sqlite3_column_text(st, 0);
            if (!v)
                continue;
            bool clean = true;
            /* A pair's first tab is its separator. */
            bool tab = kinds[k].pair;
            for (const unsigned char *p = v; *p && clean; p++) {
                clean = (*p >= 0x20 && *p != 0x7f) || (*p == '\t' && tab);
                if (*p == '\t')
                    tab = false;
            }
            if (clean)
                printf("%s\n", (const char *)v);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return 0;
}
