/* The run's private PostgreSQL server (pgserver.h). Root writes only in
 * its own directory (0711): the configuration, the password file initdb
 * reads, the logs. What is in the server's directory is the server
 * user's, and root reads nothing there but through a checked socket. */
#include "workloads/pgserver.h"
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "pressure/undo.h"
#include "workloads/kvrun.h"
#include "workloads/kvuser.h"
#include "workloads/pgclient.h"
#include "workloads/pgconf.h"
#include "workloads/pgwire.h"

/* How long the server may take to take a session: initdb's cluster needs
 * no recovery, but under a small cap with swap its start pages. */
#define READY_NS 30000000000ull
/* How long a session's start-up may take once connected. */
#define PROBE_NS 5000000000ull
#define STOP_WAIT_NS 10000000000ull

/* A file of root's in its directory, for the server's user to read and
 * nobody to change (mode, and the owner given; a password file is the
 * server user's, 0400: nobody else may read it). A short write is said as
 * one, not with whatever errno an earlier call left. */
static int write_file(const struct kv_server *s, const char *name, const char *text, bool secret, char *path,
                      size_t len, struct pm_err *err)
{
    int fd = kv_file_create(s, name, path, len, err);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int r = 0;
    if (w < 0)
        r = pm_errf(err, "%s: %s", path, strerror(errno));
    else if ((size_t)w != n)
        r = pm_errf(err, "%s: a short write (%zd of %zu bytes)", path, w, n);
    else if (secret ? fchown(fd, s->uid, s->gid) < 0 || fchmod(fd, 0400) < 0 : fchmod(fd, 0444) < 0)
        r = pm_errf(err, "%s: %s", path, strerror(errno));
    close(fd);
    return r;
}

int pg_initdb(struct run_ctx *rc, struct kv_server *s, const struct pg_plan *p, struct pm_err *err)
{
    char pw[PATH_MAX] = "", line[64];
    snprintf(line, sizeof line, "%s\n", s->secret);
    /* Role postgres's password, for --port's SCRAM alone: in a file for
     * initdb (never on a command line), removed once it has been read. */
    if (p->port && write_file(s, "password", line, true, pw, sizeof pw, err) < 0)
        return -1;
    struct kv_argv a = { .n = 0 };
    kv_arg(&a, "%s/initdb", p->bindir);
    kv_arg(&a, "--pgdata=%s/data", s->srv);
    kv_arg(&a, "--username=postgres");
    kv_arg(&a, "--encoding=UTF8");
    kv_arg(&a, "--locale=C");
    /* Its own pg_hba.conf is never read (pg_server_up's is); these match
     * that one and keep initdb from warning about trust. */
    kv_arg(&a, "--auth-local=peer");
    kv_arg(&a, "--auth-host=scram-sha-256");
    /* The cluster is thrown away with the run: a crash loses nothing
     * worth the seconds fsync takes. */
    kv_arg(&a, "--no-sync");
    kv_arg(&a, "--no-instructions");
    if (pw[0])
        kv_arg(&a, "--pwfile=%s", pw);
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: initdb's command line is too long");
    char out[4096];
    pid_t pid;
    int r = pg_client(rc, s, a.v, false, "initdb", "initdb.log", p->client_timeout_ns, out, sizeof out, &pid, err);
    if (pw[0] && unlink(pw) < 0 && r == 0)
        return pm_errf(err, "%s: %s", pw, strerror(errno));
    return r;
}

void pg_socket_path(const struct kv_server *s, unsigned port, char *sock, size_t len)
{
    snprintf(sock, len, "%s/.s.PGSQL.%u", s->srv, port ? port : PG_SOCKET_PORT);
}

/* The three files, and the configuration's text in the run's record. */
static int write_config(struct run_ctx *rc, const struct kv_server *s, const struct pg_plan *p, char *conf,
                        size_t len, struct pm_err *err)
{
    struct passwd *pw = getpwuid(geteuid());
    const struct pg_conf c = { .dir = s->dir, .srv = s->srv, .port = p->port, .shared_buffers = p->shared_buffers,
                               .max_connections = p->clients + PG_SPARE_CONNECTIONS, .fsync = p->fsync };
    char text[4096], path[PATH_MAX];
    if (pg_ident_text(pw ? pw->pw_name : "", s->user, text, sizeof text, err) < 0 ||
        write_file(s, "ident.conf", text, false, path, sizeof path, err) < 0)
        return -1;
    if (pg_hba_text(p->port != 0, text, sizeof text, err) < 0 ||
        write_file(s, "hba.conf", text, false, path, sizeof path, err) < 0)
        return -1;
    if (pg_conf_text(&c, text, sizeof text, err) < 0 ||
        write_file(s, "postgresql.conf", text, false, conf, len, err) < 0)
        return -1;
    run_meta(rc, "postgres.config", text);
    return 0;
}

/* What kv_server_ready's probe needs. */
struct probe_ctx {
    const struct kv_server *s;
    char sock[PATH_MAX];
    unsigned port;
};

/* A session on the socket, its peer the server; with a port, the
 * listener there the server's own too. The descriptor, or -1. Each try
 * first marks the server's System V segment for removal as soon as it is
 * there: a SIGKILL of pressmark while the server starts (a slow start
 * under the cap) must not leave it behind either. */
static int probe(void *arg, struct pm_err *err)
{
    struct probe_ctx *pc = arg;
    pg_shm_release(pc->s);
    struct kv_io io = { .deadline_ns = pm_now_ns() + PROBE_NS };
    struct pg_conn c;
    if (pg_connect(&c, pc->s, pc->sock, &io, err) < 0)
        return -1;
    if (pc->port && kv_peer_check(pc->s, -1, pc->port, err) < 0) {
        pg_close(&c);
        return -1;
    }
    return c.fd;
}

/* What keeps the cluster private as -c words: over postgresql.auto.conf,
 * which is the postgres user's to write (pgconf.h). */
static int locked_args(const struct kv_server *s, const struct pg_plan *p, struct kv_argv *a, struct pm_err *err)
{
    const struct pg_conf c = { .dir = s->dir, .srv = s->srv, .port = p->port };
    for (unsigned i = 0; i < PG_LOCKED; i++) {
        char word[PATH_MAX + 64];
        if (pg_conf_locked(&c, i, word, sizeof word, err) < 0)
            return -1;
        kv_arg(a, "-c");
        kv_arg(a, "%s", word);
    }
    return 0;
}

/* Its command line and user, in the run's record. */
static void describe_server(struct run_ctx *rc, const struct kv_server *s, const struct kv_argv *a)
{
    char line[4096] = "";
    size_t o = 0;
    for (int i = 0; i < a->n && o < sizeof line; i++)
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", i ? " " : "", a->v[i]);
    run_meta(rc, "postgres.server_command", line);
    run_meta(rc, "postgres.user", s->user);
}

int pg_server_up(struct run_ctx *rc, struct kv_server *s, const struct pg_plan *p, struct pm_err *err)
{
    char conf[PATH_MAX], prog[PATH_MAX + 16], data[PATH_MAX];
    if (write_config(rc, s, p, conf, sizeof conf, err) < 0)
        return -1;
    snprintf(prog, sizeof prog, "%s/postgres", p->bindir);
    snprintf(data, sizeof data, "%s/data", s->srv);
    /* postgres -D itself, its parent pressmark: pg_ctl would daemonise it
     * away from the run's cgroup (and, in a run without one, from the
     * pid the journal names). */
    struct kv_argv a = { .n = 0 };
    if (kv_arg_program_fsize(s, &a, prog, PG_FILE_MAX, err) < 0)
        return -1;
    kv_arg(&a, "-D");
    kv_arg(&a, "%s", data);
    kv_arg(&a, "-c");
    kv_arg(&a, "config_file=%s", conf);
    if (locked_args(s, p, &a, err) < 0)
        return -1;
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: the server's command line is too long");
    describe_server(rc, s, &a);
    if (kv_server_start(s, rc, a.v, data, err) < 0)
        return -1;
    struct probe_ctx pc = { .s = s, .port = p->port };
    pg_socket_path(s, p->port, pc.sock, sizeof pc.sock);
    struct pm_err rerr;
    if (kv_server_ready(s, rc, READY_NS, probe, &pc, &rerr) < 0) {
        if (!run_check_abort(rc))
            run_set_status(rc, "failed", "postgres: %s", rerr.msg);
        return 1;
    }
    pg_shm_release(s);
    return 0;
}

int pg_server_alive(const struct kv_server *s, unsigned port, struct pm_err *err)
{
    if (pm_child_ended(s->pid)) {
        char tail[512];
        kv_log_tail(s, tail, sizeof tail);
        return pm_errf(err, "the server (pid %d) has ended%s%s", (int)s->pid, tail[0] ? ": " : "", tail);
    }
    return port ? kv_peer_check(s, -1, port, err) : 0;
}

int pg_shm_release(const struct kv_server *s)
{
    FILE *f = fopen("/proc/sysvipc/shm", "re");
    if (!f)
        return 0;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        int id, cpid;
        unsigned cuid;
        struct shmid_ds ds;
        /* key shmid perms size cpid lpid nattch uid gid cuid ...; the
         * header line has no numbers. A segment is the server's only when
         * the kernel says so again by its id. */
        if (sscanf(line, "%*d %d %*o %*u %d %*d %*u %*u %*u %u", &id, &cpid, &cuid) == 3 && cpid == s->pid &&
            cuid == (unsigned)s->uid && shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_cpid == s->pid &&
            ds.shm_perm.cuid == s->uid && shmctl(id, IPC_RMID, NULL) == 0)
            n++;
    }
    fclose(f);
    return n;
}

int pg_server_stop(struct kv_server *s, struct run_ctx *rc, struct run_exit *ex, struct pm_err *err)
{
    memset(ex, 0, sizeof *ex);
    if (!s->pid)
        return 0;
    /* Ended before it was told to (the OOM killer, a crash): the caller
     * says so in the run's status. An immediate shutdown otherwise: the
     * cluster is thrown away, and a shutdown checkpoint would only page
     * swapped-out buffers back in to write what nobody will read. */
    bool early = pm_child_ended(s->pid);
    if (!early)
        kill(s->pid, SIGQUIT);
    int r = run_wait_until(rc, s->pid, pm_now_ns() + STOP_WAIT_NS, ex, err);
    s->pid = 0;
    undo_done(s->undo_proc);
    s->undo_proc = -1;
    return r < 0 ? -1 : early ? 1 : 0;
}
