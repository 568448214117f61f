#ifndef PM_PGRUN_H
#define PM_PGRUN_H
/* One run of PostgreSQL's pgbench against a private server under the
 * cap: a cluster made by initdb as the server's user in the run's own
 * journalled directory; postgres -D started directly inside the run's
 * capped cgroup; pgbench -i at the plan's scale as the load phase
 * (workload.phase 1); pgbench's measured phase (2) from outside the cap;
 * pgbench's own figures from its output and per-transaction logs, the
 * server's own counters from pg_stat_database before and after the
 * measured phase; the server stopped, what it left killed, its directory
 * removed. The phases' figures come back in struct pg_result for the
 * workload to store. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/err.h"
#include "workloads/workload.h"

/* What a run does, every choice made before it starts (postgres.c's check). */
struct pg_plan {
    char parent[PATH_MAX];       /* where the run's directory is made: resolved, checked */
    char bindir[PATH_MAX];       /* postgres, initdb and pgbench (pgbin.h) */
    uint64_t scale;              /* pgbench -i -s */
    uint64_t shared_buffers;     /* bytes */
    uint64_t duration_ns;        /* pgbench -T; 0: transactions */
    uint64_t transactions;       /* pgbench -t, per client */
    uint64_t client_timeout_ns;  /* the most initdb, pgbench -i or pgbench may take */
    unsigned clients, jobs;      /* pgbench -c, -j */
    unsigned port;               /* 127.0.0.1:port for pgbench; 0: the socket */
    bool select_only;            /* pgbench -S; else its TPC-B-like script */
    bool fsync;
};

/* The server's counters of the database (pg_stat_database, and its size). */
enum { PG_BLKS_HIT, PG_BLKS_READ, PG_TEMP_FILES, PG_TEMP_BYTES, PG_XACT_COMMIT, PG_DB_BYTES, PG_COUNTERS };

struct pg_result {
    bool loaded;                 /* load_s and the counters before are there */
    double load_s;
    uint64_t before[PG_COUNTERS];
    bool counted;                /* the counters after are there too */
    uint64_t after[PG_COUNTERS];
};

/* One run. -1 only on harness errors; a server or tool that fails says so
 * in the run's status. */
int pg_run(const struct pg_plan *p, struct run_ctx *rc, struct pg_result *res, struct pm_err *err);

#endif
