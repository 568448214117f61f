/* The server workloads' own parts that no run can make fail on demand:
 * INFO's figures read strictly, a silent server's one deadline (a signal
 * does not start the wait anew), the peer checks, memcached's sign-in,
 * the socket reached only as itself, --dataset's shares. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/cgkill.h"
#include "lib/rmtree.h"
#include "lib/timeutil.h"
#include "tests/tap.h"
#include "workloads/dataset.h"
#include "workloads/kvclient.h"
#include "workloads/kvrun.h"
#include "workloads/kvserver.h"

static void on_alarm(int sig)
{
    (void)sig;
}

static void strict_figures(void)
{
    uint64_t v = 7;
    ok(kv_stat_u64("a:1\r\nkeys:-1\r\n", KV_REDIS, "keys", &v) < 0 && v == 7, "a negative count is no figure");
    ok(kv_stat_u64("keys:18446744073709551615\r\n", KV_REDIS, "keys", &v) == 0 && v == UINT64_MAX,
       "UINT64_MAX is one");
    ok(kv_stat_u64("keys:18446744073709551616\r\n", KV_REDIS, "keys", &v) < 0, "one more is not");
    ok(kv_stat_u64("keys:12abc\r\n", KV_REDIS, "keys", &v) < 0, "digits and more are not");
    const char *end;
    ok(kv_u64("42,x", &end, &v) == 0 && v == 42 && *end == ',', "kv_u64 stops at the comma");
    ok(kv_u64("-1,", &end, &v) < 0, "kv_u64 takes no sign");
    const char *s = "sets 12 errors -1";
    ok(kv_word_u64(&s, "sets", &v) == 0 && v == 12 && strcmp(s, " errors -1") == 0, "a helper's 'sets 12' read");
    s++;
    ok(kv_word_u64(&s, "errors", &v) < 0, "  its 'errors -1' is no count");
    s = "setsx 1";
    ok(kv_word_u64(&s, "sets", &v) < 0, "  nor another word's");
}

/* A server that never answers: the wait ends at the deadline, however
 * many signals (no SA_RESTART) interrupt it. */
static void deadline(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return (void)ok(0, "socketpair");
    struct sigaction sa = { .sa_handler = on_alarm };
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 50000 }, { 0, 50000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    char buf[4096];
    struct pm_err err;
    uint64_t t0 = pm_now_ns();
    struct kv_io io = { .deadline_ns = t0 + 300000000ull };
    int r = kv_stats(sv[0], KV_REDIS, &io, buf, sizeof buf, &err);
    double s = (double)(pm_now_ns() - t0) / 1e9;
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    ok(r < 0 && s >= 0.29 && s < 3, "INFO of a silent server ends at its deadline, signals or not (%.2f s)", s);
    close(sv[0]);
    close(sv[1]);
}

static void peers(void)
{
    int sv[2];
    struct kv_server s;
    struct pm_err err;
    memset(&s, 0, sizeof s);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return (void)ok(0, "socketpair");
    s.pid = getpid();
    s.uid = getuid();
    ok(kv_peer_check(&s, sv[0], 0, &err) == 0, "the socket's other end is the server: accepted");
    s.pid = getpid() + 1;
    ok(kv_peer_check(&s, sv[0], 0, &err) < 0, "another pid: refused (%s)", err.msg);
    s.pid = getpid();
    s.uid = getuid() + 1;
    ok(kv_peer_check(&s, sv[0], 0, &err) < 0, "another uid: refused");
    close(sv[0]);
    close(sv[1]);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    if (l < 0 || bind(l, (void *)&a, sizeof a) < 0 || listen(l, 1) < 0 || getsockname(l, (void *)&a, &al) < 0)
        return (void)ok(0, "a listener");
    unsigned port = ntohs(a.sin_port);
    s.uid = getuid();
    ok(kv_peer_check(&s, -1, port, &err) == 0, "127.0.0.1:%u held by the server: accepted", port);
    s.pid = 1;
    ok(kv_peer_check(&s, -1, port, &err) < 0, "held by another process: refused (%s)", err.msg);
    close(l);
}

/* Signing in to memcached (-Y): a set whose data is "user secret", then
 * STORED; anything else is a refusal. The reply is written first: the
 * socket pair holds it until kv_auth reads. */
static void mc_auth(void)
{
    const char *replies[] = { "STORED\r\n", "CLIENT_ERROR authentication failure\r\n", "STORED\r\nX" };
    int want[] = { 0, -1, -1 };
    for (size_t i = 0; i < 3; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
            return (void)ok(0, "socketpair");
        struct pm_err err;
        struct kv_io io = { .deadline_ns = pm_now_ns() + 2000000000ull };
        ssize_t w = write(sv[1], replies[i], strlen(replies[i]));
        int r = w == (ssize_t)strlen(replies[i]) ? kv_auth(sv[0], KV_MEMCACHED, "pm", "s3cret", &io, &err) : -2;
        /* What kv_auth sent is there by now, or never: a read that waits
         * would hang the test where kv_auth sent nothing. */
        char sent[128] = "";
        ssize_t n = recv(sv[1], sent, sizeof sent - 1, MSG_DONTWAIT);
        sent[n > 0 ? n : 0] = '\0';
        is_num(r, want[i], 0, "memcached sign-in, reply %zu: %s", i, r < 0 ? err.msg : "signed in");
        if (i == 0)
            is_str(sent, "set pm 0 0 9\r\npm s3cret\r\n", "  sent as a set of 'user secret'");
        close(sv[0]);
        close(sv[1]);
    }
}

/* The server's socket reached only as itself: its directory is the
 * server user's, who could put a link to a socket only root may reach, or
 * a socket of another user's, in its place. */
static void sockets(void)
{
    char dir[] = "/tmp/pressmark-unit-kv.XXXXXX", sock[128], link_to[128], file[128];
    struct pm_err err;
    if (!mkdtemp(dir))
        return (void)ok(0, "mkdtemp");
    snprintf(sock, sizeof sock, "%s/s.sock", dir);
    snprintf(link_to, sizeof link_to, "%s/link.sock", dir);
    snprintf(file, sizeof file, "%s/file.sock", dir);
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
    if (l < 0 || bind(l, (void *)&a, sizeof a) < 0 || listen(l, 4) < 0 || symlink(sock, link_to) < 0 ||
        close(open(file, O_WRONLY | O_CREAT, 0600)) < 0)
        return (void)ok(0, "a listener, a link to it and a file");
    int fd = kv_connect(sock, getuid(), 0, 0, &err);
    ok(fd >= 0, "a socket of the server's user: connected");
    int c = accept(l, NULL, NULL);
    ok(c >= 0, "  to that socket");
    close(c);
    close(fd);
    ok(kv_connect(link_to, getuid(), 0, 0, &err) < 0 &&
       strstr(err.msg, "/link.sock: a symbolic link, not the server's socket"), "a link to it: refused (%s)", err.msg);
    ok(accept(l, NULL, NULL) < 0, "  and the socket it names gets no connection");
    char want[128];
    snprintf(want, sizeof want, "/s.sock: a socket of uid %u, not of the server's user (uid %u)", (unsigned)getuid(),
             (unsigned)getuid() + 1);
    ok(kv_connect(sock, getuid() + 1, 0, 0, &err) < 0 && strstr(err.msg, want), "a socket of another user's: "
       "refused (%s)", err.msg);
    ok(accept(l, NULL, NULL) < 0, "  unconnected");
    ok(kv_connect(file, getuid(), 0, 0, &err) < 0 && strstr(err.msg, "/file.sock: not a socket, not the server's socket"),
       "a file: refused (%s)", err.msg);
    ok(kv_connect("/nonexistent/s.sock", getuid(), 0, 0, &err) < 0 &&
       strcmp(err.msg, "connecting to /nonexistent/s.sock: No such file or directory") == 0,
       "none there: refused once the time is up (%s)", err.msg);
    close(l);
    unlink(sock), unlink(link_to), unlink(file);
    ok(rmdir(dir) == 0, "the test's directory removed");
}

/* A tool's output kept in a run's record is another user's words: its
 * lines stay lines, and nothing else but printable ASCII stays. */
static void printable(void)
{
    char text[] = "tps = 1.5\n\033]0;owned\007\033[2Jx\r\n\xc3\xa9 \x7f~\n";
    kv_printable_lines(text);
    is_str(text, "tps = 1.5\n?]0;owned??[2Jx?\n?? ?~\n", "a tool's output: escapes, CR, DEL, UTF-8 made '?', lines kept");
}

static void shares(void)
{
    struct pm_err err;
    ok(wl_dataset_set(NULL, "150%", &err) == 0, "--dataset 150%% is a share of the cap");
    ok(wl_dataset_set(NULL, "1000%", &err) == 0, "  so is 1000%%");
    ok(wl_dataset_set(NULL, "1001%", &err) < 0, "  1001%% is too much");
    is_str(err.msg, "'1001%' is not a size (accepted: a byte count with K, M, G or T, e.g. 64M, or a percentage of "
           "--mem-cap up to 1000% such as 150%)", "  saying what is accepted");
    ok(wl_dataset_set(NULL, "-5%", &err) < 0 && wl_dataset_set(NULL, "0%", &err) < 0, "  none or less is none");
    /* strtod would read each of these as a number before the '%'. */
    const char *const odd[] = { "0x10%", "0x1p3%", "1e3%", "1E1%", " 5%", "+5%", "5.%", ".5%", "5..0%", "inf%",
                                "nan%", "5%%", "5 %" };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        ok(wl_dataset_set(NULL, odd[i], &err) < 0, "--dataset '%s' is not a share of the cap", odd[i]);
    uint64_t b = 0;
    ok(wl_dataset_set(NULL, "12.5%", &err) == 0 && wl_dataset_set(NULL, "1000.0%", &err) == 0 &&
       wl_dataset_resolve("12.5%", 64u << 20, &b, &err) == 0 && b == 8u << 20,
       "  12.5%% (of 64M: 8M) and 1000.0%% are (%llu)", (unsigned long long)b);
    struct kv_common c = { .value_size = 4000 };
    struct wl_limits lim = { .mem_cap = 16u << 20 };
    const char *const progs[] = { "sh", NULL };
    int r = kv_check(&c, &lim, progs, "dash", &err);
    ok(r == 0 && c.dataset_bytes == 24u << 20, "no --dataset under a cap: 150%% of it (%llu)",
       (unsigned long long)c.dataset_bytes);
    /* A privileged port is refused before it is tried: root could bind
     * it, so the check that it is free would pass. */
    c.port = 80;
    r = kv_check(&c, &lim, progs, "dash", &err);
    ok(r < 0 && strcmp(err.msg, "--port: '80' is a privileged port (accepted: 0 for the run's own Unix socket, or a "
                       "free port from 1024 to 65535)") == 0, "--port 80: refused (%s)", r < 0 ? err.msg : "taken");
    c.port = 1023;
    ok(kv_check(&c, &lim, progs, "dash", &err) < 0, "  1023 too");
}

/* A Unix socket in dir, listening; -1 when it cannot be made. */
static int listener(const char *dir, const char *name, char *path, size_t len)
{
    struct sockaddr_un un = { .sun_family = AF_UNIX };
    snprintf(path, len, "%s/%s", dir, name);
    snprintf(un.sun_path, sizeof un.sun_path, "%s", path);
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0 || bind(l, (void *)&un, sizeof un) < 0 || listen(l, 4) < 0) {
        if (l >= 0)
            close(l);
        return -1;
    }
    return l;
}

/* Has the listener l a connection waiting (none: nothing reached it)? */
static bool reached(int l)
{
    struct pollfd p = { .fd = l, .events = POLLIN };
    return poll(&p, 1, 0) > 0;
}

/* pressmark's connections to the server's socket: its name is in the
 * server user's directory, which that user may fill with a link to any
 * socket root can reach. Never followed, and nothing is connected to. */
static void socket_links(const char *dir)
{
    char real[PATH_MAX], other[PATH_MAX], link_path[PATH_MAX];
    struct pm_err err;
    int l = listener(dir, "srv.sock", real, sizeof real), o = listener(dir, "other.sock", other, sizeof other);
    snprintf(link_path, sizeof link_path, "%s/link.sock", dir);
    if (l < 0 || o < 0 || symlink(other, link_path) < 0)
        return (void)ok(0, "listeners and a link in %s", dir);
    int fd = kv_connect(real, getuid(), 0, 1000, &err);
    ok(fd >= 0 && reached(l), "the server's socket, its user's: connected");
    if (fd >= 0)
        close(fd);
    fd = kv_connect(link_path, getuid(), 0, 1000, &err);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "connecting to %s: a symbolic link, not the server's socket", link_path);
    ok(fd < 0 && strcmp(err.msg, want) == 0, "a link to another socket: refused (%s)", fd < 0 ? err.msg : "connected");
    ok(!reached(o), "  and the socket it names was not connected to");
    fd = kv_connect(real, getuid() + 1, 0, 1000, &err);
    ok(fd < 0 && strstr(err.msg, "a socket of uid ") && strstr(err.msg, ", not of the server's user (uid"),
       "a socket of another uid's: refused (%s)", fd < 0 ? err.msg : "connected");
    /* No owner stands for anyone's: (uid_t)-1 is a uid like another. */
    fd = kv_connect(real, (uid_t)-1, 0, 1000, &err);
    ok(fd < 0 && strstr(err.msg, ", not of the server's user (uid 4294967295)"),
       "  owner (uid_t)-1 is no wildcard: refused (%s)", fd < 0 ? err.msg : "connected");
    if (fd >= 0)
        close(fd);
    close(l);
    close(o);
    unlink(real);
    unlink(other);
    unlink(link_path);
}

/* The server's directory emptied (pm_empty_tree): links never followed,
 * and no deeper than 64 levels (each level holds a descriptor: a tree of
 * the server user's making must not exhaust them, nor the stack). */
static void trees(const char *dir)
{
    char top[PATH_MAX], p[PATH_MAX], keep[PATH_MAX];
    snprintf(top, sizeof top, "%s/tree", dir);
    snprintf(keep, sizeof keep, "%s/keep", dir);
    int made = mkdir(top, 0700) == 0 && mkdir(keep, 0700) == 0 ? 1 : 0;
    snprintf(p, sizeof p, "%s/keep/file", dir);
    made &= close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) == 0;
    snprintf(p, sizeof p, "%s/link", top);
    made &= symlink(keep, p) == 0;
    /* 64 levels below top: taken whole */
    size_t o = (size_t)snprintf(p, sizeof p, "%s", top);
    for (int i = 0; i < 64 && made; i++) {
        o += (size_t)snprintf(p + o, sizeof p - o, "/d");
        made &= mkdir(p, 0700) == 0;
    }
    ok(made && pm_empty_tree(top) == 0 && rmdir(top) == 0, "a tree 64 levels deep, with a link out: emptied");
    snprintf(p, sizeof p, "%s/keep/file", dir);
    ok(access(p, F_OK) == 0, "  what its link named is still there");
    made = mkdir(top, 0700) == 0;
    o = (size_t)snprintf(p, sizeof p, "%s", top);
    for (int i = 0; i < 65 && made; i++) {
        o += (size_t)snprintf(p + o, sizeof p - o, "/d");
        made &= mkdir(p, 0700) == 0;
    }
    errno = 0;
    int r = made ? pm_empty_tree(top) : 0;
    ok(made && r < 0 && errno == ELOOP, "65 levels: refused, ELOOP (%s)", strerror(errno));
    /* (the test's own tree goes level by level from the bottom) */
    for (; o > strlen(top); o -= 2) {
        p[o] = '\0';
        rmdir(p);
    }
    rmdir(top);
    snprintf(p, sizeof p, "%s/keep/file", dir);
    unlink(p);
    rmdir(keep);
}


/* A cgroup's processes killed by pidfd (lib/cgkill.h), on a stand-in
 * directory whose cgroup.procs is a file of the test's (no cgroup.kill,
 * as v1's memory controller has none): the pid listed dies, the process
 * that is not listed, of the same user, lives. */
static void cgroup_kills(const char *dir)
{
    char cg[PATH_MAX], procs[PATH_MAX + 16];
    snprintf(cg, sizeof cg, "%s/cg", dir);
    snprintf(procs, sizeof procs, "%s/cgroup.procs", cg);
    pid_t in = fork();
    if (in == 0) {
        pause();
        _exit(0);
    }
    pid_t out = fork();
    if (out == 0) {
        pause();
        _exit(0);
    }
    FILE *f = in > 0 && out > 0 && mkdir(cg, 0700) == 0 ? fopen(procs, "w") : NULL;
    int listed = f && fprintf(f, "%d\n", (int)in) > 0;
    if (f && fclose(f) != 0)
        listed = 0;
    int r = listed ? pm_cgroup_kill_round(cg) : -2;
    int st = 0;
    pid_t w = in > 0 ? waitpid(in, &st, 0) : -1;
    ok(r == 1 && w == in && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the listed process: SIGKILL (round %d)", r);
    ok(out > 0 && waitpid(out, &st, WNOHANG) == 0, "  the one not listed lives");
    f = fopen(procs, "w");
    ok(f && fclose(f) == 0 && pm_cgroup_kill_round(cg) == 0, "an empty cgroup.procs: nothing to do");
    ok(pm_cgroup_kill_round("/nonexistent/cg") == 0, "  a cgroup that is not there: nothing to do");
    if (out > 0) {
        kill(out, SIGKILL);
        waitpid(out, NULL, 0);
    }
    unlink(procs);
    rmdir(cg);
}

int main(void)
{
    strict_figures();
    deadline();
    peers();
    mc_auth();
    sockets();
    printable();
    shares();
    char dir[] = "/tmp/pm-unit-kv.XXXXXX";
    if (!mkdtemp(dir))
        return ok(0, "mkdtemp"), done_testing();
    socket_links(dir);
    trees(dir);
    cgroup_kills(dir);
    ok(rmdir(dir) == 0, "nothing left in %s", dir);
    return done_testing();
}
