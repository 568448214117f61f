#ifndef PM_PGSERVER_H
#define PM_PGSERVER_H
/* The run's private PostgreSQL server: its cluster made by initdb in the
 * server's directory (kv_dirs_make_in's pressmark-srv, the server user's,
 * 0700), its configuration in root's directory (read-only: the server's
 * user cannot change it), started with postgres -D directly inside the
 * run's cap, answering only on its own socket (and 127.0.0.1:--port when
 * asked), stopped at once when the run is done. Never a system instance:
 * no pg_ctl, no /etc/postgresql, no /var/run/postgresql, no default port
 * opened. */
#include <stddef.h>
#include "lib/err.h"
#include "workloads/kvserver.h"
#include "workloads/pgrun.h"
#include "workloads/workload.h"

/* The cluster: initdb as the server's user, outside the cap, into
 * s->srv/data, the role postgres with the run's password (s->secret) when
 * the plan has a port. 0, 1 when initdb failed (the run's status says
 * why), -1 on harness errors. */
int pg_initdb(struct run_ctx *rc, struct kv_server *s, const struct pg_plan *p, struct pm_err *err);
/* The server's socket path into sock: .s.PGSQL.PORT in its directory,
 * the port --port's (PostgreSQL names the socket by it) or 5432's. */
void pg_socket_path(const struct kv_server *s, unsigned port, char *sock, size_t len);
/* Its configuration written, the server started inside the cap and
 * journalled, then up: a session on its socket (the peer checked) and,
 * with a port, the listener of 127.0.0.1:port its own. 0, 1 when it did
 * not come up (the run's status says why), -1 on harness errors. */
int pg_server_up(struct run_ctx *rc, struct kv_server *s, const struct pg_plan *p, struct pm_err *err);
/* Is the server still up and, with a port, the listener on 127.0.0.1:port
 * still its own? Checked before each pgbench, which sends the password
 * there: the server may have ended since and another user taken the
 * port. -1 with err saying which (the log's last line when it ended). */
int pg_server_alive(const struct kv_server *s, unsigned port, struct pm_err *err);
/* An immediate shutdown (SIGQUIT to the postmaster, which ends its
 * children), waited for, SIGKILL after the grace; its wait4 figures in
 * ex. 0, or 1 when it had ended before (ex says how); 0 when it never
 * started. */
int pg_server_stop(struct kv_server *s, struct run_ctx *rc, struct run_exit *ex, struct pm_err *err);
/* The System V shared memory segments the server made (creator pid and
 * uid its), marked for removal: the kernel frees them when its processes
 * have let go, so none outlives a SIGKILL. How many were marked. */
int pg_shm_release(const struct kv_server *s);

#endif
