#ifndef PM_PGCONF_H
#define PM_PGCONF_H
/* What a run of PostgreSQL is made of, worked out before anything runs:
 * pgbench's scale for a data set, its threads, the server's
 * shared_buffers, whether a directory can carry the cluster, and the text
 * of the cluster's three configuration files. Nothing here touches the
 * machine (tests/unit_pg.c holds it to its rules). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"

/* The database pgbench -i makes per unit of scale (-s): 100,000 rows of
 * pgbench_accounts with its primary key, 10 tellers and a branch.
 * Measured here (PostgreSQL 15.18, pg_database_size after -s 1 and after
 * -s 11): 15,680,307 bytes a unit, 15.0 MiB; -s 1's pgbench_accounts with
 * its key is 15 MiB to the byte. The empty database's 7.3 MiB of
 * catalogue comes on top, and is not data. */
#define PG_SCALE_BYTES (15ull << 20)
/* The port that names the socket when there is no --port (PostgreSQL's
 * own default): with listen_addresses = '' it opens no TCP port. */
#define PG_SOCKET_PORT 5432u
/* shared_buffers without a cap: PostgreSQL's own default. */
#define PG_SHARED_BUFFERS_UNCAPPED (128ull << 20)
/* ...and the least it accepts: 16 buffers of 8 kB. */
#define PG_SHARED_BUFFERS_MIN (128ull << 10)
/* Connections beyond pgbench's: pressmark's own (the counters, the probe)
 * and room for a look by hand. */
#define PG_SPARE_CONNECTIONS 10u

/* The largest file a process of the run's as the postgres user may write
 * (prlimit --fsize): PostgreSQL splits a relation into files of 1 GiB
 * (RELSEG_SIZE, Debian's build: SHOW segment_size) and its WAL into 16 MiB
 * ones, so its cluster needs no larger; the 16 MiB the key-value servers
 * get (KV_FILE_MAX) would fail a data set's table past it (EFBIG).
 * pgbench's per-transaction logs past 64 MiB in all are not read
 * (pglogs.h), and are bounded here too. */
#define PG_FILE_MAX (1ull << 30)

/* pgbench's threads at most: one log each, which pglogs reads (its
 * array's size), whatever the CPUs a default of one a CPU would give. */
#define PG_JOBS_MAX 256u

/* pgbench's scale for a data set of bytes: the nearest whole number of
 * units; 0 when that is none (less than half a unit). */
uint64_t pg_scale_of(uint64_t bytes);
/* pgbench's threads (-j): jobs, or with 0 one per client up to the CPUs
 * and PG_JOBS_MAX. */
unsigned pg_jobs_of(unsigned jobs, unsigned clients, long cpus);
/* shared_buffers: asked (0: a quarter of the cap, the usual advice for a
 * machine's memory; without a cap PostgreSQL's 128M), in whole 8 kB
 * buffers and at least PostgreSQL's least. */
uint64_t pg_shared_buffers_of(uint64_t asked, uint64_t cap);

/* Can the run's directory be made in parent (absolute, links resolved)?
 * Its path goes into the configuration as a quoted string and into
 * unix_socket_directories, a list: no quote, backslash, comma or control
 * character; and the socket's path, parent/pressmark-postgres.XXXXXX/
 * pressmark-srv/.s.PGSQL.PORT, must fit a Unix socket's 107 bytes. -1
 * with err saying which. */
int pg_parent_check(const char *parent, unsigned port, struct pm_err *err);

/* The cluster's postgresql.conf, root's, read-only, in place of the one
 * initdb wrote (postgres -c config_file=). PostgreSQL reads
 * postgresql.auto.conf (ALTER SYSTEM's) from the data directory after it,
 * and that file is the server user's to write: what keeps the cluster
 * private is given again on the command line (pg_conf_locked), which
 * takes precedence over both files. */
struct pg_conf {
    const char *dir;             /* root's directory: the hba and ident files */
    const char *srv;             /* the server's directory: its socket */
    unsigned port;               /* --port on 127.0.0.1; 0: the socket alone */
    unsigned max_connections;
    uint64_t shared_buffers;     /* bytes, whole 8 kB buffers */
    bool fsync;
};
int pg_conf_text(const struct pg_conf *c, char *buf, size_t len, struct pm_err *err);
#define PG_LOCKED 10u
/* The i-th (below PG_LOCKED) of those settings as "NAME=VALUE", a word of
 * postgres -c: listen_addresses, port, unix_socket_directories,
 * unix_socket_permissions, hba_file, ident_file, dynamic_shared_memory_type,
 * restart_after_crash, logging_collector, shared_preload_libraries. -1
 * with err when it does not fit. */
int pg_conf_locked(const struct pg_conf *c, unsigned i, char *buf, size_t len, struct pm_err *err);
/* pg_hba.conf: the role postgres alone, by peer on the socket (mapped by
 * pg_ident), and with tcp by password (SCRAM) on 127.0.0.1 alone. */
int pg_hba_text(bool tcp, char *buf, size_t len, struct pm_err *err);
/* pg_ident.conf's map "pm": the OS users who may be role postgres on the
 * socket, pressmark's (its counters) and the server's (initdb, pgbench). */
int pg_ident_text(const char *pressmark_user, const char *server_user, char *buf, size_t len, struct pm_err *err);

#endif
