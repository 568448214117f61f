/* A PostgreSQL run's sizes and configuration text (pgconf.h). */
#include "workloads/pgconf.h"
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include "lib/quote.h"

uint64_t pg_scale_of(uint64_t bytes)
{
    return (bytes + PG_SCALE_BYTES / 2) / PG_SCALE_BYTES;
}

unsigned pg_jobs_of(unsigned jobs, unsigned clients, long cpus)
{
    if (jobs)
        return jobs;
    unsigned most = cpus <= 0 ? 1 : cpus > (long)PG_JOBS_MAX ? PG_JOBS_MAX : (unsigned)cpus;
    return clients < most ? clients : most;
}

uint64_t pg_shared_buffers_of(uint64_t asked, uint64_t cap)
{
    uint64_t b = asked ? asked : cap ? cap / 4 : PG_SHARED_BUFFERS_UNCAPPED;
    b -= b % 8192;
    return b < PG_SHARED_BUFFERS_MIN ? PG_SHARED_BUFFERS_MIN : b;
}

int pg_parent_check(const char *parent, unsigned port, struct pm_err *err)
{
    char q[256];
    quote_terminal(parent, q, sizeof q);
    for (const char *p = parent; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f || strchr("'\"\\,", *p))
            return pm_errf(err, "'%s' has a character PostgreSQL's configuration cannot carry (accepted: a directory "
                           "whose path has no quote, backslash, comma or control character)", q);
    char sock[PATH_MAX + 64];
    int n = snprintf(sock, sizeof sock, "%s/pressmark-postgres.XXXXXX/pressmark-srv/.s.PGSQL.%u", parent,
                     port ? port : PG_SOCKET_PORT);
    size_t most = sizeof ((struct sockaddr_un *)0)->sun_path - 1;
    if (n < 0 || (size_t)n > most)
        return pm_errf(err, "'%s' is too long a path for the server's socket below it (%d bytes of at most %zu; "
                       "accepted: a directory of at most %zu bytes)", q, n, most,
                       most - (size_t)(n - (int)strlen(parent)));
    return 0;
}

/* Append to buf[*o..len); -1 once it does not fit. */
static int add(char *buf, size_t len, size_t *o, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int add(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = *o < len ? vsnprintf(buf + *o, len - *o, fmt, ap) : -1;
    va_end(ap);
    if (n < 0 || (size_t)n >= len - *o)
        return -1;
    *o += (size_t)n;
    return 0;
}

/* A path for a quoted string: pg_parent_check refused what would need
 * escaping, and so is it refused here too, never written. */
static bool plain(const char *path)
{
    return !strpbrk(path, "'\"\\,\n\r");
}

/* One of the settings that keep the cluster private: its value as -c
 * takes it, and whether the file quotes it (a string). */
struct locked {
    const char *name;
    char value[PATH_MAX + 32];
    bool quoted;
};

/* The i-th of them. Why each: no TCP unless asked, 127.0.0.1 then, and
 * the port that names the socket; the socket in the server's own
 * directory, its owner's alone; root's access rules (root's own session
 * to the cluster is the counters'); dynamic shared memory in the data
 * directory (posix's /dev/shm segments would outlive a SIGKILL); no
 * restart after a crash, which would make shared memory anew where the
 * run no longer looks (an OOM kill under the cap ends the run, named,
 * instead); no log collector writing files elsewhere, its log being its
 * stderr (pm-server.log); no library loaded into the postmaster. */
static void locked_setting(const struct pg_conf *c, unsigned i, struct locked *l)
{
    static const char *const names[PG_LOCKED] = {
        "listen_addresses", "port", "unix_socket_directories", "unix_socket_permissions", "hba_file", "ident_file",
        "dynamic_shared_memory_type", "restart_after_crash", "logging_collector", "shared_preload_libraries",
    };
    l->name = names[i];
    l->quoted = i == 0 || i == 2 || i == 4 || i == 5 || i == 9;
    const char *v = i == 0 ? (c->port ? "127.0.0.1" : "") : i == 2 ? c->srv : i == 3 ? "0700" : i == 6 ? "mmap" :
                    i == 7 || i == 8 ? "off" : "";
    if (i == 1)
        snprintf(l->value, sizeof l->value, "%u", c->port ? c->port : PG_SOCKET_PORT);
    else if (i == 4 || i == 5)
        snprintf(l->value, sizeof l->value, "%s/pm-%s.conf", c->dir, i == 4 ? "hba" : "ident");
    else
        snprintf(l->value, sizeof l->value, "%s", v);
}

int pg_conf_locked(const struct pg_conf *c, unsigned i, char *buf, size_t len, struct pm_err *err)
{
    struct locked l;
    if (i >= PG_LOCKED || !plain(c->dir) || !plain(c->srv))
        return pm_errf(err, "internal: no setting %u, or a path PostgreSQL's configuration cannot carry", i);
    locked_setting(c, i, &l);
    size_t o = 0;
    return add(buf, len, &o, "%s=%s", l.name, l.value) < 0 ? pm_errf(err, "internal: -c %s is too long", l.name) : 0;
}

int pg_conf_text(const struct pg_conf *c, char *buf, size_t len, struct pm_err *err)
{
    size_t o = 0;
    if (!plain(c->dir) || !plain(c->srv))
        return pm_errf(err, "internal: a path PostgreSQL's configuration cannot carry");
    int r = add(buf, len, &o, "# pressmark run postgres: this run's cluster, written by pressmark (root's, read-only;\n"
                "# the first %u settings are on postgres's command line too, over postgresql.auto.conf)\n", PG_LOCKED);
    for (unsigned i = 0; r == 0 && i < PG_LOCKED; i++) {
        struct locked l;
        locked_setting(c, i, &l);
        r = add(buf, len, &o, l.quoted ? "%s = '%s'\n" : "%s = %s\n", l.name, l.value);
    }
    if (r == 0)
        r = add(buf, len, &o,
                "max_connections = %u\n"
                "shared_buffers = '%llukB'\n"
                "fsync = %s\n"
                "huge_pages = off\n"
                "log_destination = 'stderr'\n"
                "log_min_messages = warning\n"
                "cluster_name = 'pressmark'\n",
                c->max_connections, (unsigned long long)(c->shared_buffers >> 10), c->fsync ? "on" : "off");
    return r < 0 ? pm_errf(err, "internal: the configuration is longer than %zu bytes", len) : 0;
}

int pg_hba_text(bool tcp, char *buf, size_t len, struct pm_err *err)
{
    size_t o = 0;
    int r = add(buf, len, &o, "# TYPE  DATABASE  USER      ADDRESS       METHOD\n"
                "local   all       postgres                peer map=pm\n");
    if (r == 0 && tcp)
        r = add(buf, len, &o, "host    all       postgres  127.0.0.1/32  scram-sha-256\n");
    return r < 0 ? pm_errf(err, "internal: pg_hba.conf is longer than %zu bytes", len) : 0;
}

/* A user name as pg_ident reads one bare: letters, digits, '_', '.', '-'. */
static bool ident_word(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < 64 && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n &&
           s[0] != '-';
}

int pg_ident_text(const char *pressmark_user, const char *server_user, char *buf, size_t len, struct pm_err *err)
{
    const char *bad = !ident_word(pressmark_user) ? pressmark_user : !ident_word(server_user) ? server_user : NULL;
    if (bad)
        return pm_errf(err, "the user name '%.64s' cannot go into pg_ident.conf (accepted: letters, digits, '_', "
                       "'.' and '-')", bad);
    size_t o = 0;
    int r = add(buf, len, &o, "# MAPNAME  SYSTEM-USERNAME  PG-USERNAME\n");
    if (r == 0)
        r = add(buf, len, &o, "pm  %s  postgres\n", pressmark_user);
    if (r == 0 && strcmp(pressmark_user, server_user) != 0)
        r = add(buf, len, &o, "pm  %s  postgres\n", server_user);
    return r < 0 ? pm_errf(err, "internal: pg_ident.conf is longer than %zu bytes", len) : 0;
}
