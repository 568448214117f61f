#ifndef PM_STORE_GUEST_RUNS_H
#define PM_STORE_GUEST_RUNS_H
/* Which of a guest's runs a boot may bring into the host's database. A
 * guest is not trusted: its database may hold runs of other suites, of
 * cells another kernel's boot runs, under other labels, or more runs
 * than were asked for. Only runs of this suite's cells planned for this
 * boot, with the cell's label and workload, finished, are taken, at most
 * as many per cell as the boot was asked for (the first ones started);
 * every other run is refused with its reason. Its UUID must be one as
 * pressmark makes them, its cell index and round plain numbers; text is
 * compared byte for byte whatever collation the guest's schema declares. */
#include <stdbool.h>
#include <stddef.h>
#include "lib/err.h"

/* What the boot was asked for, per cell of the suite (by cell index). */
struct guest_cell {
    bool planned;               /* a cell of the group this boot ran */
    int max_runs;               /* at most this many of its runs */
    const char *label, *workload;
};

struct guest_refusal {
    char uuid[40], label[256];
    char reason[160];
};

/* A run taken: its UUID, and the cell and round it is adopted as. */
struct guest_run {
    char uuid[40];
    int cell, round;
};

struct guest_selection {
    struct guest_run *runs;     /* the runs taken, the first started first */
    size_t n;
    struct guest_refusal *refused;
    size_t nrefused;
};

/* Read the guest's database at path (as any database from elsewhere:
 * read-only, schema checked) and choose. -1 with err when it cannot be
 * read. */
int store_guest_runs_select(const char *path, const char *suite_uuid, const struct guest_cell *cells, size_t ncells,
                      struct guest_selection *sel, struct pm_err *err);
void store_guest_selection_free(struct guest_selection *sel);

#endif
