#ifndef PM_RESERVE_H
#define PM_RESERVE_H
/* Room kept for the end of a run. A run writes its ticks while it goes
 * and its status, metrics and metadata at its end; if the database's
 * filesystem fills up meanwhile, that end could not be written and the
 * run would stay 'running' with no reason. So each run holds a reserve on
 * the database's filesystem (1 MiB allocated, less when there is not that
 * much room), released when the database reports a full disk, so the run
 * can still be stored as failed with that reason, the ticks taken before
 * kept; or, when the database will not take the end at all, filled with
 * the run's record and given a name in a private directory
 * (store/unstored.h). The reserve is a file without a name (O_TMPFILE) in
 * the database's directory: nothing another user can reach there, and no
 * leftover when pressmark is killed. */
#include <stdbool.h>
#include <stddef.h>

#define PM_RESERVE_BYTES (1 << 20)

struct db_reserve {
    int fd;
    bool held;
};

/* Make the reserve on db_path's filesystem. Without room for it (or a
 * filesystem without O_TMPFILE) the run goes on without one (held stays
 * false): it is a safety margin, not a need. */
void db_reserve_take(struct db_reserve *r, const char *db_path);
/* Give the room back. Safe to call when none is held. */
void db_reserve_release(struct db_reserve *r);
/* Write data into the reserve's blocks (the rest of them freed) and give
 * it the name name in directory dfd (same filesystem): whole or not at
 * all. The reserve is released either way. -1 with errno when not held or
 * it failed. */
int db_reserve_keep(struct db_reserve *r, int dfd, const char *name, const void *data, size_t len);

#endif
