/* pressmark __complete labels|runs|metrics|pairs: candidates for the
 * shell's Tab (completion/pressmark), and the workload-label pairs the
 * nightly service compares one by one, straight from the database
 * (store/completions.h: read-only, nothing migrated or written); a missing
 * or foreign database completes nothing. Labels with control characters
 * are left out (they would reach the terminal). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/complete.h"
#include "store/completions.h"

/* One candidate printed, if clean. A pair's first tab is its separator. */
static void print_clean(void *ctx, const char *text)
{
    const bool *pair = ctx;
    const unsigned char *v = (const unsigned char *)text;
    bool clean = true, tab = *pair;
    for (const unsigned char *p = v; *p && clean; p++) {
        clean = (*p >= 0x20 && *p != 0x7f) || (*p == '\t' && tab);
        if (*p == '\t')
            tab = false;
    }
    if (clean)
        printf("%s\n", text);
}

int cmd_complete(int argc, char **argv)
{
    static const struct { const char *kind; enum completions_kind k; bool pair; } kinds[] = {
        { "labels", COMPLETIONS_LABELS, false },
        { "runs", COMPLETIONS_RUNS, false },
        { "metrics", COMPLETIONS_METRICS, false },
        { "pairs", COMPLETIONS_PAIRS, true },
    };
    const size_t nkinds = sizeof kinds / sizeof kinds[0];
    size_t k = 0;
    while (argc == 2 && k < nkinds && strcmp(argv[1], kinds[k].kind) != 0)
        k++;
    if (argc != 2 || k == nkinds)
        return PM_EXIT_USAGE;
    /* Its failure is ignored on purpose: a database that cannot be read
     * completes nothing (past what was printed), silently; the shell's
     * Tab is no place for an error. */
    bool pair = kinds[k].pair;
    (void)completions_each(store_db_path(), kinds[k].k, print_clean, &pair, NULL);
    return 0;
}
