#ifndef PM_PGBIN_H
#define PM_PGBIN_H
/* Where PostgreSQL's programs are: postgres, initdb and pgbench from one
 * directory, so the server, its cluster and its benchmark are one version.
 * Debian keeps them out of PATH, in /usr/lib/postgresql/VERSION/bin; its
 * /usr/bin/pgbench is pg_wrapper, which picks a version by the machine's
 * own clusters, and a run never asks the system's instance anything. */
#include <stddef.h>
#include "lib/err.h"

/* The first absolute directory of PATH that holds all three programs
 * (one built by hand, or a test's), else the newest
 * /usr/lib/postgresql/N/bin that does, into out. -1 with err naming the
 * first program missing there and the package: "postgres is not
 * installed (apt-get install postgresql)". */
int pg_find_bindir(char *out, size_t len, struct pm_err *err);

#endif
