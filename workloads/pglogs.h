#ifndef PM_PGLOGS_H
#define PM_PGLOGS_H
/* pgbench's per-transaction logs (-l), read back for the latency
 * percentiles pgbench itself does not print. pgbench runs as the server's
 * user and writes them into that user's directory, PREFIX.PID for its
 * first thread and PREFIX.PID.N for thread N; that user could put
 * anything there instead, so root reads them below its own directory,
 * without following a link, only regular files of that user's with one
 * link, and at most the figures parsers' bound in all: sizes that user
 * chose (a sparse file of 2^63 - 1 bytes) are summed without wrapping. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/err.h"
#include "workloads/kvserver.h"
#include "workloads/pgconf.h"

/* The prefix pgbench is given (--log-prefix), in s's server directory. */
#define PG_LOG_NAME "pm-pgbench-log"

/* The logs opened and measured, not yet read (pg_logs_read's first half;
 * apart, so that a test can change a file between the two). */
struct pg_logs {
    int fd[PG_JOBS_MAX];
    uint64_t size[PG_JOBS_MAX];
    unsigned n;                  /* opened */
    uint64_t total;              /* their sizes' sum; UINT64_MAX when it is more */
    bool over;                   /* over FIGURES_MAX_TEXT together: not to be read */
};

/* Open and check the logs of pgbench pid with jobs threads. -1 with err
 * (none left open) for a log missing or not pgbench's to read. */
int pg_logs_open(const struct kv_server *s, pid_t pid, unsigned jobs, struct pg_logs *l, struct pm_err *err);
/* Read them, concatenated, into *text (malloc'd, NUL-terminated; the
 * caller frees it) and *len, and close them. When they are over
 * FIGURES_MAX_TEXT together, *text is NULL, *len their size (SIZE_MAX when
 * more) and the return 0: pgbench's summary stands without its
 * percentiles. -1 with err when one is shorter than it was when opened. */
int pg_logs_take(struct pg_logs *l, char **text, size_t *len, struct pm_err *err);
/* Both. */
int pg_logs_read(const struct kv_server *s, pid_t pid, unsigned jobs, char **text, size_t *len, struct pm_err *err);

#endif
