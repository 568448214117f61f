/* run postgres's own parts that no run can make fail on demand: the
 * sizes (pgbench's scale, threads, shared_buffers), the directories a
 * cluster can live below, its configuration's text and command line, the
 * protocol's messages read strictly, pgbench's logs read only as
 * pgbench's and never past the bound, the server's System V segment. */
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "figures/figures.h"
#include "lib/fileio.h"
#include "lib/timeutil.h"
#include "tests/tap.h"
#include "workloads/pgconf.h"
#include "workloads/pglogs.h"
#include "workloads/pgserver.h"
#include "workloads/pgwire.h"

#define MIB (1ull << 20)

static void sizes(void)
{
    ok(pg_scale_of(0) == 0 && pg_scale_of(PG_SCALE_BYTES / 2 - 1) == 0, "less than half a unit is no scale");
    ok(pg_scale_of(PG_SCALE_BYTES / 2) == 1, "half a unit is one");
    is_num(pg_scale_of(96 * MIB), 6, 0, "150%% of a 64M cap: scale 6 (96 MiB / 15 MiB = 6.4)");
    is_num(pg_scale_of(256 * MIB), 17, 0, "256M without a cap: scale 17");
    is_num(pg_jobs_of(0, 8, 2), 2, 0, "--jobs 0: one a CPU when the clients are more");
    is_num(pg_jobs_of(0, 1, 2), 1, 0, "  one a client when the CPUs are more");
    is_num(pg_jobs_of(0, 4, -1), 1, 0, "  one when the CPUs are unknown");
    is_num(pg_jobs_of(3, 8, 2), 3, 0, "--jobs 3 as asked");
    is_num(pg_jobs_of(0, 5000, 1024), 256, 0, "  at most 256 threads, one log each, whatever the CPUs");
    is_num(pg_jobs_of(0, 300, 300), 256, 0, "  also when the clients are as many as the CPUs");
    is_num(pg_shared_buffers_of(0, 64 * MIB), 16 * MIB, 0, "shared_buffers: a quarter of the cap");
    is_num(pg_shared_buffers_of(0, 0), 128 * MIB, 0, "  PostgreSQL's 128M without a cap");
    is_num(pg_shared_buffers_of(MIB + 5, 0), MIB, 0, "  whole 8 kB buffers");
    is_num(pg_shared_buffers_of(0, 100000), 16 * 8192, 0, "  at least 16 buffers of 8 kB");
}

static void parents(void)
{
    struct pm_err err;
    char p[128];
    ok(pg_parent_check("/var/tmp", 0, &err) == 0, "/var/tmp can hold a cluster");
    ok(pg_parent_check("/a'b", 0, &err) < 0, "a quote cannot (%s)", err.msg);
    ok(pg_parent_check("/a,b", 0, &err) < 0 && pg_parent_check("/a\\b", 0, &err) < 0, "  nor a comma or a backslash");
    ok(pg_parent_check("/a\nb", 0, &err) < 0 && strstr(err.msg, "/a\\x0ab"), "  nor a newline, shown escaped");
    /* 26 + 14 + 14 bytes follow the parent: the socket's 107 leave 53. */
    memset(p, 'x', sizeof p);
    p[0] = '/';
    p[53] = '\0';
    ok(pg_parent_check(p, 0, &err) == 0, "a parent of 53 bytes leaves the socket 107");
    p[53] = 'x';
    p[54] = '\0';
    ok(pg_parent_check(p, 0, &err) < 0 && strstr(err.msg, "(108 bytes of at most 107; accepted: a directory of at "
                                                          "most 53 bytes)"), "  54 do not (%s)", err.msg);
    p[53] = '\0';
    ok(pg_parent_check(p, 65535, &err) < 0, "  nor 53 with a five-digit port");
}

/* The settings the postgres user must not change, as postgres -c words:
 * each of them, exactly, in this order. */
static void locked_words(const struct pg_conf *c)
{
    static const char *const want[PG_LOCKED] = {
        "listen_addresses=", "port=5432", "unix_socket_directories=/d/pressmark-srv", "unix_socket_permissions=0700",
        "hba_file=/d/pm-hba.conf", "ident_file=/d/pm-ident.conf", "dynamic_shared_memory_type=mmap",
        "restart_after_crash=off", "logging_collector=off", "shared_preload_libraries=",
    };
    char w[256];
    struct pm_err err;
    bool all = true;
    for (unsigned i = 0; i < PG_LOCKED; i++)
        if (pg_conf_locked(c, i, w, sizeof w, &err) < 0 || strcmp(w, want[i]) != 0) {
            tap_diag("#   setting %u: '%s', want '%s'", i, w, want[i]);
            all = false;
        }
    ok(all, "the %u settings that keep the cluster private, as -c words", PG_LOCKED);
    ok(pg_conf_locked(c, PG_LOCKED, w, sizeof w, &err) < 0, "  and no more");
    struct pg_conf tcp = *c;
    tcp.port = 5433;
    ok(pg_conf_locked(&tcp, 0, w, sizeof w, &err) == 0 && strcmp(w, "listen_addresses=127.0.0.1") == 0 &&
       pg_conf_locked(&tcp, 1, w, sizeof w, &err) == 0 && strcmp(w, "port=5433") == 0, "  --port: 127.0.0.1:5433");
    ok(pg_conf_locked(c, 2, w, 20, &err) < 0 && strcmp(err.msg, "internal: -c unix_socket_directories is too long") == 0,
       "  one too long for its buffer: an error (%s)", err.msg);
}

static void texts(void)
{
    char buf[4096];
    struct pm_err err;
    struct pg_conf c = { .dir = "/d", .srv = "/d/pressmark-srv", .max_connections = 18,
                         .shared_buffers = 16 * MIB, .fsync = true };
    ok(pg_conf_text(&c, buf, sizeof buf, &err) == 0, "the configuration's text");
    ok(strstr(buf, "\nlisten_addresses = ''\nport = 5432\nunix_socket_directories = '/d/pressmark-srv'\n") != NULL,
       "  no TCP, the socket in the server's directory");
    ok(strstr(buf, "\nhba_file = '/d/pm-hba.conf'\nident_file = '/d/pm-ident.conf'\n") != NULL,
       "  the access rules root's");
    ok(strstr(buf, "\nmax_connections = 18\nshared_buffers = '16384kB'\nfsync = on\n") != NULL,
       "  connections, buffers and fsync as planned");
    ok(strstr(buf, "\nrestart_after_crash = off\n") && strstr(buf, "\ndynamic_shared_memory_type = mmap\n"),
       "  nothing made anew after a crash, nothing in /dev/shm");
    ok(strstr(buf, "\nunix_socket_permissions = 0700\n") && strstr(buf, "\ncluster_name = 'pressmark'\n") &&
       strstr(buf, "\nlogging_collector = off\n") && strstr(buf, "\nshared_preload_libraries = ''\n"),
       "  the socket its owner's alone, the cluster named pressmark, no collector, no library preloaded");
    locked_words(&c);
    c.port = 5433;
    c.fsync = false;
    ok(pg_conf_text(&c, buf, sizeof buf, &err) == 0 && strstr(buf, "\nlisten_addresses = '127.0.0.1'\nport = 5433\n") &&
       strstr(buf, "\nfsync = off\n"), "--port: 127.0.0.1 alone; fsync off");
    ok(pg_conf_text(&c, buf, 64, &err) < 0, "  a buffer too small is an error, not a cut file");
    c.dir = "/d'x";
    ok(pg_conf_text(&c, buf, sizeof buf, &err) < 0, "  a path with a quote is never written");
    ok(pg_hba_text(false, buf, sizeof buf, &err) == 0 && strstr(buf, "local   all       postgres                "
                                                                "peer map=pm\n") && !strstr(buf, "host"),
       "pg_hba.conf: role postgres by peer on the socket alone");
    ok(pg_hba_text(true, buf, sizeof buf, &err) == 0 && strstr(buf, "host    all       postgres  127.0.0.1/32  "
                                                               "scram-sha-256\n"), "  and by password on 127.0.0.1");
    ok(pg_ident_text("root", "postgres", buf, sizeof buf, &err) == 0 &&
       strstr(buf, "\npm  root  postgres\npm  postgres  postgres\n"), "pg_ident.conf: root and the server's user");
    ok(pg_ident_text("me", "me", buf, sizeof buf, &err) == 0 && strstr(buf, "\npm  me  postgres\n") &&
       !strstr(buf, "me  postgres\npm"), "  one line when they are one user");
    ok(pg_ident_text("a b", "postgres", buf, sizeof buf, &err) < 0, "  a name with a blank is refused (%s)", err.msg);
}

/* A DataRow's body: its columns as given, NULL for a SQL NULL. */
static size_t row(char *out, const char *const *cols, size_t n)
{
    size_t o = 2;
    out[0] = 0;
    out[1] = (char)n;
    for (size_t i = 0; i < n; i++) {
        uint32_t l = cols[i] ? (uint32_t)strlen(cols[i]) : 0xffffffffu;
        out[o++] = (char)(l >> 24), out[o++] = (char)(l >> 16), out[o++] = (char)(l >> 8), out[o++] = (char)l;
        if (cols[i])
            memcpy(out + o, cols[i], strlen(cols[i])), o += strlen(cols[i]);
    }
    return o;
}

/* pg_row_u64 of one column's text: 0, or -1 with err.msg. */
static int one(const char *col, struct pm_err *err)
{
    char b[64];
    uint64_t v;
    const char *cols[] = { col };
    return pg_row_u64(b, row(b, cols, 1), &v, 1, err);
}

static void rows(void)
{
    char b[256];
    uint64_t v[3];
    struct pm_err err;
    const char *good[] = { "12", "0", "18446744073709551615" };
    ok(pg_row_u64(b, row(b, good, 3), v, 3, &err) == 0 && v[0] == 12 && v[1] == 0 && v[2] == UINT64_MAX,
       "a row of whole numbers, UINT64_MAX the largest");
    ok(pg_row_u64(b, row(b, good, 3), v, 2, &err) < 0, "  three columns where two were asked for: refused");
    is_str(err.msg, "a row of 3 columns where 2 were asked for", "  so said");
    size_t n = row(b, good, 2);
    ok(pg_row_u64(b, n + 1, v, 2, &err) < 0, "  a byte beyond the columns: refused");
    is_str(err.msg, "a row longer than its columns", "  so said");
    ok(pg_row_u64(b, n - 1, v, 2, &err) < 0, "  a column cut short: refused");
    is_str(err.msg, "column 2 is not a whole number (beyond the row)", "  so said");
    ok(pg_row_u64(b, 5, v, 2, &err) < 0, "  a column's length cut short: refused");
    is_str(err.msg, "a row shorter than its columns", "  so said");
    const char *null[] = { "1", NULL };
    ok(pg_row_u64(b, row(b, null, 2), v, 2, &err) < 0, "  a NULL is no number");
    is_str(err.msg, "column 2 is NULL, not a number", "  so said");
    static const struct { const char *col, *msg; } bad[] = {
        { "-1", "column 1 is not a whole number: '-1'" },
        { "1.5", "column 1 is not a whole number: '1.5'" },
        { "18446744073709551616", "column 1 is not a whole number: '18446744073709551616'" },
        { "", "column 1 is not a whole number (empty)" },
        { "+5", "column 1 is not a whole number: '+5'" },
        { " 5", "column 1 is not a whole number: ' 5'" },
        { "5 ", "column 1 is not a whole number: '5 '" },
        { "000000000000000000001", "column 1 is not a whole number (over 20 characters)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int r = one(bad[i].col, &err);
        ok(r < 0 && strcmp(err.msg, bad[i].msg) == 0, "  nor '%s' (%s)", bad[i].col, r < 0 ? err.msg : "taken");
    }
    ok(one("00000000000000000001", &err) == 0, "  20 digits are read");
    /* The severity: V (untranslated, 9.6 and later) over S (translated). */
    static const char e[] = "SFEHLER\0VFATAL\0C28000\0Mrole \"x\" does not\x1b[2J exist\0\0";
    char text[128];
    pg_error_text(e, sizeof e - 1, text, sizeof text);
    is_str(text, "FATAL: role \"x\" does not?[2J exist", "an ErrorResponse's severity (V over S) and message, printable only");
    static const char e2[] = "VFATAL\0SFEHLER\0Mgone\0\0";
    pg_error_text(e2, sizeof e2 - 1, text, sizeof text);
    is_str(text, "FATAL: gone", "  V first: S does not replace it");
    static const char e3[] = "SERROR\0Monly S\0\0";
    pg_error_text(e3, sizeof e3 - 1, text, sizeof text);
    is_str(text, "ERROR: only S", "  S alone (a server before 9.6)");
    pg_error_text("Mcut", 4, text, sizeof text);
    is_str(text, "", "  a field without its NUL is not read");
}

/* The server's side of the socket, written before the client reads. */
static void say(int fd, char type, const char *body, size_t len)
{
    char h[5] = { type, (char)((len + 4) >> 24), (char)((len + 4) >> 16), (char)((len + 4) >> 8), (char)(len + 4) };
    if (write(fd, h, 5) != 5 || (len && write(fd, body, len) != (ssize_t)len))
        ok(0, "the test's socket");
}

/* What the client sent, all of it that is there: compared byte for byte. */
static size_t sent(int fd, char *buf, size_t len)
{
    size_t n = 0;
    ssize_t r;
    while (n < len && (r = recv(fd, buf + n, len - n, MSG_DONTWAIT)) > 0)
        n += (size_t)r;
    return n;
}

/* The extended protocol's four messages for sql, as the protocol's
 * documentation lays them out (Parse, Bind, Execute, Sync). */
static size_t expected(const char *sql, char *out)
{
    size_t q = strlen(sql), o = 0;
    uint32_t pl = (uint32_t)(4 + 1 + q + 1 + 2);
    char p[] = { 'P', (char)(pl >> 24), (char)(pl >> 16), (char)(pl >> 8), (char)pl, 0 };
    memcpy(out + o, p, sizeof p), o += sizeof p;
    memcpy(out + o, sql, q + 1), o += q + 1;
    out[o++] = 0, out[o++] = 0;                                 /* no parameter types */
    static const char b[] = { 'B', 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0 };   /* portal, statement, 3 counts */
    static const char x[] = { 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0 };             /* portal, every row */
    static const char sy[] = { 'S', 0, 0, 0, 4 };
    memcpy(out + o, b, sizeof b), o += sizeof b;
    memcpy(out + o, x, sizeof x), o += sizeof x;
    memcpy(out + o, sy, sizeof sy), o += sizeof sy;
    return o;
}

static void queries(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return (void)ok(0, "socketpair");
    struct kv_io io = { .deadline_ns = pm_now_ns() + 2000000000ull };
    struct pg_conn c = { .fd = sv[0], .io = &io };
    struct pm_err err;
    char b[64], got[256], want[256];
    const char *cols[] = { "7", "8" };
    uint64_t v[2] = { 0, 0 };
    say(sv[1], '1', NULL, 0), say(sv[1], '2', NULL, 0), say(sv[1], 'D', b, row(b, cols, 2));
    say(sv[1], 'C', "SELECT 1", 9), say(sv[1], 'Z', "I", 1);
    ok(pg_query_u64(&c, "SELECT 7, 8", v, 2, &err) == 0 && v[0] == 7 && v[1] == 8, "a statement's one row");
    size_t gn = sent(sv[1], got, sizeof got), wn = expected("SELECT 7, 8", want);
    ok(gn == wn && memcmp(got, want, wn) == 0, "  sent as Parse, Bind, Execute and Sync, byte for byte (%zu of %zu)",
       gn, wn);
    static const char fatal[] = "SERROR\0Mno such table\0";
    say(sv[1], 'E', fatal, sizeof fatal), say(sv[1], 'Z', "I", 1);
    ok(pg_query_u64(&c, "SELECT 1", v, 1, &err) < 0 && strcmp(err.msg, "ERROR: no such table") == 0,
       "  the server's error, as it said it (%s)", err.msg);
    say(sv[1], 'D', b, row(b, cols, 2)), say(sv[1], 'D', b, row(b, cols, 2)), say(sv[1], 'Z', "I", 1);
    ok(pg_query_u64(&c, "SELECT 1", v, 2, &err) < 0 && strcmp(err.msg, "2 rows where one was asked for") == 0,
       "  two rows are no figure");
    say(sv[1], 'Z', "I", 1);
    ok(pg_query_u64(&c, "SELECT 1", v, 2, &err) < 0 && strcmp(err.msg, "0 rows where one was asked for") == 0,
       "  nor none (%s)", err.msg);
    say(sv[1], 'A', "x", 1);
    ok(pg_query_u64(&c, "SELECT 1", v, 2, &err) < 0 &&
       strcmp(err.msg, "a message of type 0x41 in reply to a statement") == 0, "  nor a message of another type (%s)",
       err.msg);
    sent(sv[1], got, sizeof got);
    char big[5] = { 'D', 0, 1, 0, 0 };
    if (write(sv[1], big, 5) != 5)
        ok(0, "the test's socket");
    ok(pg_query_u64(&c, "SELECT 1", v, 2, &err) < 0 &&
       strcmp(err.msg, "a message of 65536 bytes from the server (at most 8192 are read)") == 0,
       "  nor a message of 64 KiB (%s)", err.msg);
    close(sv[0]);
    close(sv[1]);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return (void)ok(0, "socketpair");
    io.deadline_ns = pm_now_ns() + 300000000ull;
    c = (struct pg_conn){ .fd = sv[0], .io = &io };
    int r = pg_query_u64(&c, "SELECT 1", v, 1, &err);
    ok(r < 0 && strcmp(err.msg, "the server did not answer in time") == 0,
       "a silent server: the statement ends at its deadline (%s)", r < 0 ? err.msg : "answered");
    close(sv[0]);
    close(sv[1]);
}

/* The start-up's answers, each on a fresh pair: the session, a password
 * asked for, an error, a message of another type. */
static int startup_with(const char *const *types, const char *const *bodies, const size_t *lens, size_t n,
                        char *got, size_t *gn, struct pm_err *err)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return pm_errf(err, "socketpair");
    for (size_t i = 0; i < n; i++)
        say(sv[1], types[i][0], bodies[i], lens[i]);
    struct kv_io io = { .deadline_ns = pm_now_ns() + 2000000000ull };
    struct pg_conn c = { .fd = sv[0], .io = &io };
    int r = pg_startup(&c, err);
    *gn = sent(sv[1], got, 256);
    close(sv[0]);
    close(sv[1]);
    return r;
}

#define MSG(lit) { lit, sizeof lit - 1 }
struct msg {
    const char *body;
    size_t len;
};

static int startup_of(const char *types, const struct msg *m, char *got, size_t *gn, struct pm_err *err)
{
    const char *t[8], *b[8];
    size_t l[8], n = strlen(types);
    for (size_t i = 0; i < n; i++)
        t[i] = types + i, b[i] = m[i].body, l[i] = m[i].len;
    return startup_with(t, b, l, n, got, gn, err);
}

static void startups(void)
{
    static const char params[] = "user\0postgres\0database\0postgres\0application_name\0pressmark\0";
    char want[256] = { 0, 0, 0, (char)(8 + sizeof params), 0, 3, 0, 0 }, got[256];
    memcpy(want + 8, params, sizeof params);
    size_t gn;
    struct pm_err err;
    const struct msg m1[] = { MSG("\0\0\0\0"), MSG("a\0b\0"), MSG("\0\0\0\1\0\0\0\2"), MSG("SNOTICE\0Mhi\0\0"),
                              MSG("I") };
    ok(startup_of("RSKNZ", m1, got, &gn, &err) == 0, "start-up: authentication ok, parameters, key, a notice, ready");
    ok(gn == 8 + sizeof params && memcmp(got, want, gn) == 0,
       "  the start-up message byte for byte: protocol 3.0, user and database postgres (%zu bytes)", gn);
    const struct msg m2[] = { MSG("\0\0\0\3") };
    ok(startup_of("R", m2, got, &gn, &err) < 0 &&
       strcmp(err.msg, "the server asks for a password (authentication request 3), which this cluster's pg_hba.conf "
              "never does on its socket") == 0, "  a request for a password is refused (%s)", err.msg);
    const struct msg m3[] = { MSG("SFATAL\0VFATAL\0Mthe database system is starting up\0\0") };
    ok(startup_of("E", m3, got, &gn, &err) < 0 && strcmp(err.msg, "FATAL: the database system is starting up") == 0,
       "  an error during start-up is said as the server said it (%s)", err.msg);
    const struct msg m4[] = { MSG("\0\0\0\0"), MSG("?") };
    ok(startup_of("Rx", m4, got, &gn, &err) < 0 && strcmp(err.msg, "a message of type 0x78 while the session started") == 0,
       "  a message of another type is refused (%s)", err.msg);
}

/* A log file of size bytes in dir (sparse), its name given. 0, or -1
 * with errno (EFBIG: a file system without files that large). */
static int make_log(const char *dir, const char *name, const char *text, off_t size)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int r = fd < 0 || (text && write(fd, text, strlen(text)) != (ssize_t)strlen(text)) ||
            (size && ftruncate(fd, size) < 0) ? -1 : 0;
    int e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
    return r;
}

/* A server's directories for pg_logs_read: dir (made) and its srv. */
static int server_dirs(struct kv_server *s, const char *parent)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "%s/pressmark-unit-pg.XXXXXX", parent);
    if (!mkdtemp(s->dir))
        return -1;
    snprintf(s->srv, sizeof s->srv, "%s/pressmark-srv", s->dir);
    s->uid = getuid();
    snprintf(s->user, sizeof s->user, "me");
    return mkdir(s->srv, 0700);
}

/* In place of a thread's log: what pgbench never writes there. */
static void not_logs(struct kv_server *s)
{
    char *text, p[PATH_MAX], q[PATH_MAX];
    size_t len;
    struct pm_err err;
    snprintf(p, sizeof p, "%s/" PG_LOG_NAME ".42.1", s->srv);
    unlink(p);
    if (symlink("/etc/passwd", p) < 0)
        ok(0, "symlink");
    ok(pg_logs_read(s, 42, 2, &text, &len, &err) < 0 && strstr(err.msg, ".42.1: a symbolic link"),
       "  a link in its place is never followed (%s)", err.msg);
    unlink(p);
    snprintf(q, sizeof q, "%s/" PG_LOG_NAME ".42", s->srv);
    if (link(q, p) < 0)
        ok(0, "link");
    ok(pg_logs_read(s, 42, 2, &text, &len, &err) < 0 && strstr(err.msg, ".42: 2 links, where pgbench's log has one"),
       "  nor a second hard link (%s)", err.msg);
    unlink(p);
    if (mkfifo(p, 0600) < 0)
        ok(0, "mkfifo");
    ok(pg_logs_read(s, 42, 2, &text, &len, &err) < 0 && strstr(err.msg, ".42.1: a FIFO, not pgbench's log"),
       "  nor a FIFO, opened without waiting for a writer (%s)", err.msg);
    unlink(p);
    if (mkdir(p, 0700) < 0)
        ok(0, "mkdir");
    ok(pg_logs_read(s, 42, 2, &text, &len, &err) < 0 && strstr(err.msg, ".42.1: a directory, not pgbench's log"),
       "  nor a directory (%s)", err.msg);
    rmdir(p);
    if (make_log(s->srv, PG_LOG_NAME ".42.1", "1 1 200 0 1796589054 450127\n", 0) < 0)
        ok(0, "writing the log");
    s->uid = getuid() + 1;
    char want[128];
    snprintf(want, sizeof want, ".42: owned by uid %u, not by the server's user me (uid %u)", (unsigned)getuid(),
             (unsigned)getuid() + 1);
    ok(pg_logs_read(s, 42, 1, &text, &len, &err) < 0 && strstr(err.msg, want), "  nor a file of another user's (%s)",
       err.msg);
    s->uid = getuid();
}

/* A log that shrinks between being measured and read is an error, not a
 * read past its end into what the buffer held. */
static void shrinking(const struct kv_server *s)
{
    struct pg_logs l;
    struct pm_err err;
    char *text, p[PATH_MAX];
    size_t len;
    ok(pg_logs_open(s, 42, 2, &l, &err) == 0 && l.total == 56 && !l.over, "two logs opened, 56 bytes measured");
    snprintf(p, sizeof p, "%s/" PG_LOG_NAME ".42.1", s->srv);
    if (truncate(p, 10) < 0)
        ok(0, "truncate");
    ok(pg_logs_take(&l, &text, &len, &err) < 0 && !text && len == 0 &&
       strcmp(err.msg, "pgbench's log of thread 1: shorter than when it was opened") == 0,
       "  the second shrunk before it was read: an error, nothing kept (%s)", err.msg);
    ok(l.n == 0, "  and both closed");
}

/* Sizes the server's user sets (sparse files) whose sum would wrap:
 * never a small allocation and a read of the sizes into it. tmpfs takes
 * files of 2^63 - 1 bytes; a file system that does not is passed over. */
static void wrapping(void)
{
    struct kv_server s;
    if (server_dirs(&s, "/dev/shm") < 0)
        return (void)ok(0, "the test's directory in /dev/shm");
    const off_t most = (off_t)INT64_MAX;
    if (make_log(s.srv, PG_LOG_NAME ".44", NULL, most) < 0 && errno == EFBIG) {
        pm_remove_all(s.dir);
        return (void)ok(1, "# SKIP /dev/shm takes no file of 2^63 - 1 bytes");
    }
    if (make_log(s.srv, PG_LOG_NAME ".44.1", NULL, most) < 0 || make_log(s.srv, PG_LOG_NAME ".44.2", "x\n", 3) < 0)
        ok(0, "the sparse logs");
    struct pg_logs l;
    struct pm_err err;
    char *text;
    size_t len;
    ok(pg_logs_open(&s, 44, 3, &l, &err) == 0 && l.over && l.total == UINT64_MAX,
       "three logs of 2^63 - 1, 2^63 - 1 and 3 bytes: over the bound, their sum not wrapped");
    ok(pg_logs_take(&l, &text, &len, &err) == 0 && !text && len == SIZE_MAX, "  not read, their size said as all of it");
    make_log(s.srv, PG_LOG_NAME ".45", NULL, (off_t)FIGURES_MAX_TEXT - 1);
    make_log(s.srv, PG_LOG_NAME ".45.1", "xy", 0);
    ok(pg_logs_read(&s, 45, 2, &text, &len, &err) == 0 && !text && len == FIGURES_MAX_TEXT + 1,
       "  the bound exceeded by the second thread's log alone: not read");
    ok(pm_remove_all(s.dir) == 0, "  the test's directory removed");
}

static void logs(void)
{
    struct kv_server s;
    if (server_dirs(&s, "/tmp") < 0)
        return (void)ok(0, "the test's directory");
    if (make_log(s.srv, PG_LOG_NAME ".42", "0 1 100 0 1796589054 450126\n", 0) < 0 ||
        make_log(s.srv, PG_LOG_NAME ".42.1", "1 1 200 0 1796589054 450127\n", 0) < 0)
        ok(0, "writing the logs");
    char *text;
    size_t len;
    struct pm_err err;
    ok(pg_logs_read(&s, 42, 2, &text, &len, &err) == 0 && text && len == 56 &&
       strcmp(text, "0 1 100 0 1796589054 450126\n1 1 200 0 1796589054 450127\n") == 0,
       "both threads' logs, one after the other");
    free(text);
    ok(pg_logs_read(&s, 42, 3, &text, &len, &err) < 0 && !text && strstr(err.msg, PG_LOG_NAME ".42.2: No such file"),
       "  a thread's log missing: refused, naming it (%s)", err.msg);
    ok(pg_logs_read(&s, 42, PG_JOBS_MAX + 1, &text, &len, &err) < 0 && strcmp(err.msg, "internal: 257 threads' logs") == 0,
       "  more threads than pglogs reads: refused");
    shrinking(&s);
    not_logs(&s);
    make_log(s.srv, PG_LOG_NAME ".43", NULL, (off_t)FIGURES_MAX_TEXT + 1);
    ok(pg_logs_read(&s, 43, 1, &text, &len, &err) == 0 && !text && len == FIGURES_MAX_TEXT + 1,
       "logs over the parsers' bound: not read, their size said");
    make_log(s.srv, PG_LOG_NAME ".46", NULL, (off_t)FIGURES_MAX_TEXT);
    ok(pg_logs_read(&s, 46, 1, &text, &len, &err) == 0 && text && len == FIGURES_MAX_TEXT,
       "  a log of the bound itself is read");
    free(text);
    ok(pm_remove_all(s.dir) == 0, "the test's directory removed");
    wrapping();
}

/* The server's System V segment (PostgreSQL's interlock) marked for
 * removal by its creator's pid and uid: one of another pid's is left. */
static void segments(void)
{
    struct kv_server s;
    memset(&s, 0, sizeof s);
    s.pid = getpid() + 1;
    s.uid = getuid();
    int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    struct shmid_ds ds;
    if (id < 0)
        return (void)ok(0, "shmget");
    ok(pg_shm_release(&s) == 0 && shmctl(id, IPC_STAT, &ds) == 0, "a segment another pid made is left as it is");
    s.pid = getpid();
    s.uid = getuid() + 1;
    ok(pg_shm_release(&s) == 0 && shmctl(id, IPC_STAT, &ds) == 0, "  one another uid made too");
    s.uid = getuid();
    ok(pg_shm_release(&s) == 1, "the server's is marked for removal");
    ok(shmctl(id, IPC_STAT, &ds) < 0, "  and, nobody attached, gone");
    shmctl(id, IPC_RMID, NULL);             /* (when it failed: the test leaves none) */
}

/* A listener on 127.0.0.1 (port into *port), or -1. */
static int listener(unsigned *port)
{
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    if (l < 0 || bind(l, (void *)&a, sizeof a) < 0 || listen(l, 1) < 0 || getsockname(l, (void *)&a, &al) < 0)
        return -1;
    *port = ntohs(a.sin_port);
    return l;
}

/* Before each pgbench: the server up, and --port's listener its own. The
 * server here is a child holding a listener it inherited. */
static void alive(void)
{
    struct kv_server s;
    struct pm_err err;
    unsigned held, other;
    memset(&s, 0, sizeof s);
    int l1 = listener(&held);
    if (l1 < 0)
        return (void)ok(0, "a listener");
    /* The child holds the first listener (open when it forked), as the
     * server holds its own; the second is made after. */
    s.pid = fork();
    if (s.pid == 0) {
        pause();
        _exit(0);
    }
    int l2 = listener(&other);
    s.uid = getuid();
    ok(pg_server_alive(&s, 0, &err) == 0, "a server that runs, on its socket: up");
    ok(pg_server_alive(&s, held, &err) == 0, "  with the port it listens on: up");
    char want[160];
    snprintf(want, sizeof want, "127.0.0.1:%u is listened on by another process than the server (pid %d)", other,
             (int)s.pid);
    ok(pg_server_alive(&s, other, &err) < 0 && strcmp(err.msg, want) == 0,
       "  a port another process listens on is refused (%s)", err.msg);
    kill(s.pid, SIGKILL);
    siginfo_t si;
    waitid(P_PID, (id_t)s.pid, &si, WEXITED | WNOWAIT);
    snprintf(want, sizeof want, "the server (pid %d) has ended", (int)s.pid);
    ok(pg_server_alive(&s, 0, &err) < 0 && strcmp(err.msg, want) == 0, "a server that ended is said so (%s)", err.msg);
    waitpid(s.pid, NULL, 0);
    close(l1);
    close(l2);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    sizes();
    parents();
    texts();
    rows();
    queries();
    startups();
    logs();
    segments();
    alive();
    return done_testing();
}
