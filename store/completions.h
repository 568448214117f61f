#ifndef PM_STORE_COMPLETIONS_H
#define PM_STORE_COMPLETIONS_H
/* What the shell's Tab offers (completion/pressmark, through pressmark
 * __complete) and the workload-label pairs the nightly service compares
 * one by one, straight from a database: opened read-only, one prepared
 * query, nothing migrated or written, so completing never creates,
 * changes or waits on a database. */
#include "lib/err.h"

enum completions_kind {
    COMPLETIONS_LABELS,   /* newest first, at most 2000: what is typed next is most often what just ran */
    COMPLETIONS_RUNS,     /* run ids, newest first, at most 2000 */
    COMPLETIONS_METRICS,  /* metric names, sorted, at most 2000 */
    COMPLETIONS_PAIRS,    /* workload, a tab, label; each pair's first run first */
};

/* Each candidate of kind in the database at path handed to fn, in order
 * (a NULL is none). 0; or -1 with err when the database cannot be opened
 * or read (a missing or foreign file), after the candidates read so far. */
int completions_each(const char *path, enum completions_kind kind, void (*fn)(void *ctx, const char *text), void *ctx,
                     struct pm_err *err);

#endif
