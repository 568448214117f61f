/* The server workloads' own parts that no run can make fail on demand:
 * INFO's figures read strictly, a silent server's one deadline (a signal
 * does not start the wait anew), the peer checks, the socket reached only
 * as itself, --dataset's shares. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib/timeutil.h"
#include "tests/tap.h"
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

static void shares(void)
{
    struct pm_err err;
    ok(kv_dataset_set(NULL, "150%", &err) == 0, "--dataset 150%% is a share of the cap");
    ok(kv_dataset_set(NULL, "1000%", &err) == 0, "  so is 1000%%");
    ok(kv_dataset_set(NULL, "1001%", &err) < 0, "  1001%% is too much");
    ok(kv_dataset_set(NULL, "-5%", &err) < 0 && kv_dataset_set(NULL, "0%", &err) < 0, "  none or less is none");
    struct kv_common c = { .value_size = 4000 };
    struct wl_limits lim = { .mem_cap = 16u << 20 };
    const char *const progs[] = { "sh", NULL };
    int r = kv_check(&c, &lim, progs, "dash", &err);
    ok(r == 0 && c.dataset_bytes == 24u << 20, "no --dataset under a cap: 150%% of it (%llu)",
       (unsigned long long)c.dataset_bytes);
}

int main(void)
{
    strict_figures();
    deadline();
    peers();
    sockets();
    shares();
    return done_testing();
}
