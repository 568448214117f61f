#ifndef PM_PGCLIENT_H
#define PM_PGCLIENT_H
/* PostgreSQL's own programs run for a run (initdb, pgbench): as the
 * server's user, outside the cap in the run's client cgroup, with an
 * environment of their own and no descriptor of pressmark's, their output
 * in a file of root's that they write through the descriptor they are
 * given. What they do is not what is measured: the server under the cap is. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/err.h"
#include "workloads/kvserver.h"
#include "workloads/workload.h"

/* Run argv (argv[0] an absolute path) so, its stdout and stderr into
 * dir/pm-NAME, for at most timeout_ns (0: the run's --timeout alone); the
 * output's text (its end when longer) into out, its pid into *pid. 0 when
 * it exited 0; 1 when it did not, the run's status saying how (what names
 * it) with the last line it wrote; -1 on harness errors. */
int pg_client(struct run_ctx *rc, const struct kv_server *s, char *const argv[], bool password, const char *what,
              const char *name, uint64_t timeout_ns, char *out, size_t len, pid_t *pid, struct pm_err *err);

#endif
