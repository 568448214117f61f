#ifndef PM_PGLOGS_H
#define PM_PGLOGS_H
/* pgbench's per-transaction logs (-l), read back for the latency
 * percentiles pgbench itself does not print. pgbench runs as the server's
 * user and writes them into that user's directory, PREFIX.PID for its
 * first thread and PREFIX.PID.N for thread N; that user could put
 * anything there instead, so root reads them below its own directory,
 * without following a link, only regular files of that user's with one
 * link, and at most the figures parsers' bound in all. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "lib/err.h"
#include "workloads/kvserver.h"

/* The prefix pgbench is given (--log-prefix), in s's server directory. */
#define PG_LOG_NAME "pm-pgbench-log"

/* The logs of pgbench pid with jobs threads, concatenated, into *text
 * (malloc'd, NUL-terminated; the caller frees it) and *len. When they are
 * over FIGURES_MAX_TEXT together, *text is NULL, *len their size and the
 * return 0: pgbench's summary stands without its percentiles. -1 with err
 * for a log missing or not pgbench's to read. */
int pg_logs_read(const struct kv_server *s, pid_t pid, unsigned jobs, char **text, size_t *len, struct pm_err *err);

#endif
