#ifndef PM_PGWIRE_H
#define PM_PGWIRE_H
/* The little of PostgreSQL's frontend/backend protocol (3.0) pressmark
 * speaks itself: the start-up of a session as role postgres, and one
 * statement of whole-number columns, for the server's own counters
 * (pg_stat_database) and the probe that says the server is up. The other
 * end is checked before a byte is sent (kv_peer_check: the socket's
 * SO_PEERCRED must be the server's pid and uid), and what it answers is
 * data: every message is bounded in size, every wait by one deadline that
 * Ctrl-C ends too (struct kv_io), and a message of another shape is an
 * error, never a figure. */
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"
#include "workloads/kvclient.h"
#include "workloads/kvserver.h"

/* The most one message may be: a row of counters or an error is a few
 * hundred bytes. */
#define PG_MSG_MAX 8192

struct pg_conn {
    int fd;
    const struct kv_io *io;
    char buf[PG_MSG_MAX + 16];
    size_t have;                 /* bytes in buf */
    size_t pending;              /* of them, the message last read: dropped by the next read */
};

/* Connect to the server's socket sock, check it is the server's, and
 * start a session as role postgres in database postgres (the socket's
 * peer authentication: no password). 0, or -1 with err (the connection
 * closed); a server still starting up answers with an error. */
int pg_connect(struct pg_conn *c, const struct kv_server *s, const char *sock, const struct kv_io *io,
               struct pm_err *err);
/* The session's start-up on c->fd, connected and checked (pg_connect's
 * second half): the start-up message, then the server's messages until
 * ReadyForQuery. -1 with err: an error, a request for a password, a
 * message of another type. */
int pg_startup(struct pg_conn *c, struct pm_err *err);
/* Run sql, one statement without parameters, as a prepared statement
 * (the extended protocol: Parse, Bind, Execute, Sync) and read its one
 * row of n whole numbers into v. -1 with err: the server's error, no row
 * or more than one, another number of columns, a NULL, a value that is
 * not a plain whole number. */
int pg_query_u64(struct pg_conn *c, const char *sql, uint64_t *v, size_t n, struct pm_err *err);
/* End the session (Terminate) and close. */
void pg_close(struct pg_conn *c);

/* A DataRow message's body as n whole numbers (pg_query_u64's check). */
int pg_row_u64(const char *body, size_t len, uint64_t *v, size_t n, struct pm_err *err);
/* An ErrorResponse's severity and message ("FATAL: ..."), printable ASCII
 * only, into out. */
void pg_error_text(const char *body, size_t len, char *out, size_t olen);

#endif
