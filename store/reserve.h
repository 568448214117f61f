#ifndef PM_RESERVE_H
#define PM_RESERVE_H
/* Room kept for the end of a run. A run writes its ticks while it goes
 * and its status, metrics and metadata at its end; if the database's
 * filesystem fills up meanwhile, that end could not be written and the
 * run would stay 'running' with no reason. So each run holds a reserve
 * file beside the database (DB.reserve, 1 MiB allocated, less when there
 * is not that much room), released when
 * the database reports a full disk, so the run can still be stored as
 * failed with that reason, the ticks taken before kept. */
#include <stdbool.h>
#include <limits.h>

#define PM_RESERVE_BYTES (1 << 20)

struct db_reserve {
    char path[PATH_MAX];
    bool held;
};

/* Make the reserve beside db_path. Without room for it the run goes on
 * without one (held stays false): it is a safety margin, not a need. */
void db_reserve_take(struct db_reserve *r, const char *db_path);
/* Give the room back (unlink). Safe to call when none is held. */
void db_reserve_release(struct db_reserve *r);

#endif
