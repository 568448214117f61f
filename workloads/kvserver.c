/* A key-value server's private instance (kvserver.h). The directories
 * are two: root's own (0711, so the server's user may pass through it but
 * not list or change it) and, inside it, the server's (0700, its user's),
 * where it makes its socket and port file. What root removes there cannot
 * be moved under it: srv's name lives in root's directory, and unlink
 * never follows a link the server might leave. */
#include "workloads/kvserver.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/cgkill.h"
#include "lib/fileio.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "pressure/undo.h"
#include "workloads/kvuser.h"

/* The server's files in srv and root's in dir all begin so: the undo
 * journal removes exactly those (UNDO_SCRATCH's prefix). */
#define KV_PREFIX "pm-"
#define STOP_WAIT_NS 10000000000ull

int kv_need_programs(const char *const *progs, const char *pkgs, struct pm_err *err)
{
    for (size_t i = 0; progs[i]; i++)
        if (!pm_in_path(progs[i]))
            return pm_errf(err, "%s is not installed (apt-get install %s)", progs[i], pkgs);
    return 0;
}

int kv_port_free(unsigned port, struct pm_err *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return pm_errf(err, "socket: %s", strerror(errno));
    int one = 1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int r = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ? -1 : bind(fd, (void *)&a, sizeof a);
    int e = errno;
    close(fd);
    if (r < 0)
        return pm_errf(err, "'%u': 127.0.0.1:%u cannot be listened on (%s; accepted: a free port, %u to 65535)", port,
                       port, strerror(e), KV_PORT_MIN);
    return 0;
}

/* Who the server runs as: as root, the first of users this machine has
 * (the package's own user); else whoever runs pressmark. */
static int pick_user(struct kv_server *s, const char *const *users, struct pm_err *err)
{
    if (geteuid() != 0) {
        struct passwd *pw = getpwuid(geteuid());
        s->uid = geteuid();
        s->gid = getegid();
        snprintf(s->user, sizeof s->user, "%s", pw ? pw->pw_name : "self");
        return 0;
    }
    for (size_t i = 0; users[i]; i++) {
        struct passwd *pw = getpwnam(users[i]);
        if (pw && pw->pw_uid != 0 && pw->pw_gid != 0) {
            s->uid = pw->pw_uid;
            s->gid = pw->pw_gid;
            snprintf(s->user, sizeof s->user, "%s", pw->pw_name);
            return 0;
        }
    }
    return pm_errf(err, "there is no user %s to run the server as", users[0]);
}

/* A user of uid 0 is root; one of group 0 would run the server with
 * root's group, whose files (0640 root:root, /etc/shadow's kind) it could
 * then read: neither is another user. */
int kv_need_user(const char *user, const char *pkg, struct pm_err *err)
{
    struct passwd *pw = geteuid() == 0 ? getpwnam(user) : NULL;
    if (geteuid() == 0 && (!pw || pw->pw_uid == 0))
        return pm_errf(err, "there is no user %s to run the server as (apt-get install %s makes it)", user, pkg);
    if (pw && pw->pw_gid == 0)
        return pm_errf(err, "the user %s has group 0, root's: the server would run with root's group (accepted: a "
                       "user whose group is not root's)", user);
    return 0;
}

/* pressmark's password at the server: 16 random bytes in hex. */
static int make_secret(struct kv_server *s, struct pm_err *err)
{
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        return pm_errf(err, "getrandom: %s", strerror(errno));
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(s->secret + 2 * i, 3, "%02x", r[i]);
    return 0;
}

int kv_dirs_make(struct kv_server *s, const char *name, const char *const *users, struct pm_err *err)
{
    const char *tmp = getenv("TMPDIR");
    return kv_dirs_make_in(s, tmp && *tmp == '/' ? tmp : "/tmp", name, users, err);
}

int kv_dirs_make_in(struct kv_server *s, const char *parent, const char *name, const char *const *users,
                    struct pm_err *err)
{
    memset(s, 0, sizeof *s);
    s->undo_dir = s->undo_srv = s->undo_proc = -1;
    if (pick_user(s, users, err) < 0 || make_secret(s, err) < 0)
        return -1;
    if ((size_t)snprintf(s->dir, sizeof s->dir, "%s/pressmark-%s.XXXXXX", parent, name) >= sizeof s->dir)
        return pm_errf(err, "%s: too long a path for the run's directory", parent);
    /* mkdtemp makes it 0700 with O_EXCL's care: nobody's link is followed. */
    if (!mkdtemp(s->dir))
        return pm_errf(err, "%s: %s", s->dir, strerror(errno));
    if ((s->undo_dir = undo_push(UNDO_SCRATCH, s->dir, KV_PREFIX, err)) < 0) {
        rmdir(s->dir);
        s->dir[0] = '\0';
        return -1;
    }
    /* Named so the journal's recovery takes it for pressmark's own
     * scratch directory (undo_place_ours: a pressmark-* base name). */
    snprintf(s->srv, sizeof s->srv, "%s/pressmark-srv", s->dir);
    snprintf(s->log, sizeof s->log, "%s/" KV_PREFIX "server.log", s->dir);
    if ((s->undo_srv = undo_push(UNDO_SCRATCH, s->srv, UNDO_SCRATCH_ALL, err)) < 0)
        return -1;
    if (mkdir(s->srv, 0700) < 0)
        return pm_errf(err, "%s: %s", s->srv, strerror(errno));
    if (lchown(s->srv, s->uid, s->gid) < 0 || (s->uid != geteuid() && chmod(s->dir, 0711) < 0))
        return pm_errf(err, "%s: %s", s->srv, strerror(errno));
    return 0;
}

/* connect, non-blocking: a connection in progress waits at most until
 * until (and at least 1 s), never for as long as the kernel would. */
static int connect_by(int fd, const void *addr, socklen_t len, uint64_t until)
{
    if (connect(fd, addr, len) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return -1;
    uint64_t now = pm_now_ns(), by = until > now + 1000000000ull ? until : now + 1000000000ull;
    struct pollfd p = { .fd = fd, .events = POLLOUT };
    for (; now < by; now = pm_now_ns()) {
        int r = poll(&p, 1, (int)((by - now) / 1000000ull) + 1);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r > 0) {
            int e = 0;
            socklen_t el = sizeof e;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
                return -1;
            errno = e;
            return e ? -1 : 0;
        }
    }
    errno = ETIMEDOUT;
    return -1;
}

/* sock's socket file, never through a link: its last component is the
 * server user's to replace (the directory is that user's), so it is
 * opened O_PATH without following a link and must be a socket of owner's
 * (there is no "anyone's"); the connection then goes to /proc/self/fd/N,
 * the inode that was opened, whatever the name holds by then. Not
 * root's connect(2) to a path the user chose: a link to a socket only
 * root may reach, or a socket of another user's, is refused before any
 * connection is made. The descriptor (its path in via); -1 with errno
 * (ENOENT: not there yet) and err; -2 with err when something else is
 * there, which no retry mends. */
static int sock_file(const char *sock, uid_t owner, char *via, size_t len, struct pm_err *err)
{
    int fd = open(sock, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        pm_errf(err, "connecting to %s: %s", sock, strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    const char *bad = fstat(fd, &st) < 0 ? strerror(errno) : S_ISLNK(st.st_mode) ? "a symbolic link" :
                      !S_ISSOCK(st.st_mode) ? "not a socket" : NULL;
    if (!bad && st.st_uid == owner) {
        snprintf(via, len, "/proc/self/fd/%d", fd);
        return fd;
    }
    close(fd);
    if (bad)
        pm_errf(err, "connecting to %s: %s, not the server's socket", sock, bad);
    else
        pm_errf(err, "connecting to %s: a socket of uid %u, not of the server's user (uid %u)", sock,
                (unsigned)st.st_uid, (unsigned)owner);
    return -2;
}

/* One attempt: a connected socket to sock (owner's) or 127.0.0.1:port,
 * non-blocking until connected; -1 with errno, -2 with err when sock is
 * not the server's socket (no attempt will do). */
static int connect_once(const char *sock, uid_t owner, unsigned port, uint64_t until, struct pm_err *err)
{
    struct sockaddr_un un = { .sun_family = AF_UNIX };
    struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int file = sock ? sock_file(sock, owner, un.sun_path, sizeof un.sun_path, err) : -1;
    if (sock && file < 0)
        return file;
    int fd = socket(sock ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int r = fd < 0 ? -1 : sock ? connect_by(fd, &un, sizeof un, until) : connect_by(fd, &in, sizeof in, until);
    /* Blocking again: every later read and write is bounded by poll. */
    int fl = r == 0 ? fcntl(fd, F_GETFL) : -1;
    if (r == 0 && fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0)
        r = fd;
    else if (fd >= 0)
        r = -1;
    int e = errno;
    if (r < 0 && fd >= 0)
        close(fd);
    if (file >= 0)
        close(file);
    errno = e;
    return r;
}

int kv_connect(const char *sock, uid_t owner, unsigned port, int timeout_ms, struct pm_err *err)
{
    if (sock && strlen(sock) >= PATH_MAX)
        return pm_errf(err, "%s: too long a path", sock);
    uint64_t until = pm_now_ns() + (uint64_t)timeout_ms * 1000000ull;
    for (;;) {
        errno = 0;
        int fd = connect_once(sock, owner, port, until, err);
        if (fd >= 0)
            return fd;
        int e = errno;
        if (fd == -2)
            return -1;           /* not the server's socket: err says what it is */
        if (pm_now_ns() >= until || (e != ECONNREFUSED && e != ENOENT && e != EAGAIN))
            return sock ? pm_errf(err, "connecting to %s: %s", sock, strerror(e))
                        : pm_errf(err, "connecting to 127.0.0.1:%u: %s", port, strerror(e));
        struct timespec ts = { 0, 20000000 };
        nanosleep(&ts, NULL);
    }
}

int kv_cgroup_empty(const char *dir)
{
    /* By pidfd, each pid checked to be in dir still (lib/cgkill.h): the
     * server's user has processes of its own elsewhere (a system
     * memcached), which a reused pid must never bring into this. */
    return dir ? pm_cgroup_kill(dir, 500) : 0;
}

void kv_log_tail(const struct kv_server *s, char *buf, size_t len)
{
    buf[0] = '\0';
    int fd = open(s->log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    char tail[1024];
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > (off_t)sizeof tail - 1 ? end - (off_t)sizeof tail + 1 : 0;
    ssize_t n = pread(fd, tail, sizeof tail - 1, from);
    close(fd);
    if (n <= 0)
        return;
    tail[n] = '\0';
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
        tail[--n] = '\0';
    char *line = strrchr(tail, '\n');
    line = line ? line + 1 : tail;
    size_t o = 0;
    for (; *line && o + 1 < len; line++)
        buf[o++] = *line >= 0x20 && *line < 0x7f ? *line : '?';
    buf[o] = '\0';
}

int kv_server_ready(struct kv_server *s, struct run_ctx *rc, uint64_t ready_ns, int (*probe)(void *arg, struct pm_err *err),
                    void *arg, struct pm_err *err)
{
    uint64_t until = pm_now_ns() + ready_ns;
    char tail[512];
    for (;;) {
        struct pm_err cerr;
        int fd = probe(arg, &cerr);
        if (fd >= 0)
            close(fd);
        /* Never trusted once the server has ended: what answered then is
         * not it (a listener of another's on --port). */
        if (fd >= 0 && !pm_child_ended(s->pid))
            return 0;
        if (pm_child_ended(s->pid)) {
            kv_log_tail(s, tail, sizeof tail);
            return pm_errf(err, "the server ended as it started%s%s", tail[0] ? ": " : "", tail);
        }
        if (run_check_abort(rc))
            return pm_errf(err, "interrupted while the server started");
        if (pm_now_ns() >= until) {
            kv_log_tail(s, tail, sizeof tail);
            return pm_errf(err, "the server took no connection in %.0f s (%s)%s%s", (double)ready_ns / 1e9, cerr.msg,
                           tail[0] ? "; its log's last line: " : "", tail);
        }
        struct timespec ts = { 0, 20000000 };
        nanosleep(&ts, NULL);
    }
}

int kv_file_create(const struct kv_server *s, const char *name, char *path, size_t len, struct pm_err *err)
{
    snprintf(path, len, "%s/" KV_PREFIX "%s", s->dir, name);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    return fd;
}

size_t kv_file_read(const char *path, bool tail, char *buf, size_t len)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    off_t from = 0;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    if (tail && st.st_size > (off_t)len - 1)
        from = st.st_size - (off_t)len + 1;
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = pread(fd, buf + n, len - 1 - n, from + (off_t)n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    close(fd);
    return n;
}

int kv_server_start(struct kv_server *s, struct run_ctx *rc, char *const argv[], const char *word,
                    struct pm_err *err)
{
    char path[PATH_MAX];
    int log = kv_file_create(s, "server.log", path, sizeof path, err);
    if (log < 0)
        return -1;
    struct kv_env env;
    kv_user_env(s, NULL, &env);
    int r = run_spawn_env(rc, argv, env.v, false, -1, log, &s->pid, err);
    close(log);
    if (r < 0) {
        s->pid = 0;
        return -1;
    }
    /* In a cgroup of the run's, the server is found by it: the journal's
     * cgroup line (there before the server was) kills what is in it, and
     * nothing else. Never by its pid: after a SIGKILL of pressmark the
     * server dies with it, and its pid may come to a process of the same
     * user outside the run (a system memcached), which a pid and a word
     * of a command line that user can read would not tell from ours.
     * Only a run without a cgroup (not root, the balloon, --cap-method
     * none) journals the pid, with the word, as soon as it is known. */
    if (run_cgroup(rc))
        return 0;
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)s->pid);
    if ((s->undo_proc = undo_push(UNDO_PROCESS, pid, word, err)) < 0) {
        kill(-s->pid, SIGKILL);
        struct run_exit ex;
        struct pm_err werr;
        run_wait(rc, s->pid, &ex, &werr);
        s->pid = 0;
        return -1;
    }
    return 0;
}

int kv_server_stop(struct kv_server *s, struct run_ctx *rc, struct run_exit *ex, struct pm_err *err)
{
    memset(ex, 0, sizeof *ex);
    if (!s->pid)
        return 0;
    /* Ended before it was told to (the OOM killer, a crash): the caller
     * says so in the run's status. */
    bool early = pm_child_ended(s->pid);
    if (!early && kill(-s->pid, SIGTERM) < 0 && errno == ESRCH)
        kill(s->pid, SIGTERM);
    int r = run_wait_until(rc, s->pid, pm_now_ns() + STOP_WAIT_NS, ex, err);
    s->pid = 0;
    undo_done(s->undo_proc);
    s->undo_proc = -1;
    return r < 0 ? -1 : early ? 1 : 0;
}

void kv_dirs_remove(struct kv_server *s)
{
    char said[1024];
    if (s->undo_srv >= 0 && undo_apply(UNDO_SCRATCH, s->srv, UNDO_SCRATCH_ALL, said, sizeof said) == 0)
        undo_done(s->undo_srv);
    if (s->undo_dir >= 0 && undo_apply(UNDO_SCRATCH, s->dir, KV_PREFIX, said, sizeof said) == 0)
        undo_done(s->undo_dir);
    /* What failed stays journalled: the run's undo tries it again and
     * stores why it could not. */
    s->undo_srv = s->undo_dir = -1;
}
