#ifndef PM_KVSERVER_H
#define PM_KVSERVER_H
/* A private instance of a key-value server (redis-server, memcached) for
 * one run: its own directory, socket or port, configuration and user,
 * started inside the run's cap, journalled before it exists and removed
 * after it, also after a SIGKILL of pressmark (the next pressmark's
 * undo_recover). Never a system instance: no default port, no
 * /var/lib/redis, no system configuration file. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/err.h"
#include "workloads/workload.h"

struct kv_server {
    char dir[PATH_MAX];          /* root's, 0711: <tmp>/pressmark-NAME.XXXXXX (its log) */
    char srv[PATH_MAX];          /* the server user's, 0700: dir/pressmark-srv (socket, port file) */
    char log[PATH_MAX];          /* dir/pm-server.log: the server's stdout and stderr */
    uid_t uid;
    gid_t gid;
    char user[64];               /* who the server runs as */
    pid_t pid;                   /* 0: not started, or stopped */
    char secret[33];             /* pressmark's password at the server (hex of getrandom's 16 bytes) */
    int undo_dir, undo_srv, undo_proc;
};

/* Every one of progs in PATH, else the first missing one in words and how
 * to install it: "redis-server is not installed (apt-get install PKGS)". */
int kv_need_programs(const char *const *progs, const char *pkgs, struct pm_err *err);
/* The lowest --port a private instance may have: below it, the ports only
 * root may bind, a system service's. */
#define KV_PORT_MIN 1024
/* Is 127.0.0.1:port free to listen on? -1 with err saying what holds it. */
int kv_port_free(unsigned port, struct pm_err *err);

/* The run's private directories, journalled: dir for root's files, srv
 * owned by user (the first of users that exists; as not root, the caller's
 * own) for the server's; s->secret made. name: "redis" makes pressmark-redis.XXXXXX. */
int kv_dirs_make(struct kv_server *s, const char *name, const char *const *users, struct pm_err *err);
/* The same in parent, a directory the caller chose and checked
 * (kv_dirs_make's is $TMPDIR or /tmp): PostgreSQL's data set belongs on
 * a disk, and /tmp may be memory. */
int kv_dirs_make_in(struct kv_server *s, const char *parent, const char *name, const char *const *users,
                    struct pm_err *err);
/* Start argv inside the run's cap, its output to the log, with the small
 * environment of kv_user_env and no descriptor of pressmark's. The run's
 * cgroup, journalled already, is its journal line; a run without one
 * journals it as a process whose command line has the word word. */
int kv_server_start(struct kv_server *s, struct run_ctx *rc, char *const argv[], const char *word,
                    struct pm_err *err);
/* Wait until probe(arg) connects (returns a descriptor, closed here), at
 * most ready_ns: -1 with err quoting the log's last line if the server
 * ends first or never answers. */
int kv_server_ready(struct kv_server *s, struct run_ctx *rc, uint64_t ready_ns, int (*probe)(void *arg, struct pm_err *err),
                    void *arg, struct pm_err *err);
/* A file of root's in s->dir, name beginning "pm-", made anew (O_EXCL,
 * never through a link); its path in path. The descriptor is write-only
 * and appends: what a child (the server, a client) is handed as its
 * output can neither read the file nor write over what is in it (clearing
 * O_APPEND with fcntl lets it write over its own output, no more). -1
 * with err. */
int kv_file_create(const struct kv_server *s, const char *name, char *path, size_t len, struct pm_err *err);
/* Such a file read back by its path (its name is in root's directory,
 * which nobody else can change; no link followed, no wait on a FIFO):
 * its first len - 1 bytes, or with tail its last. "" when unreadable; the
 * bytes read. */
size_t kv_file_read(const char *path, bool tail, char *buf, size_t len);
/* SIGTERM, and wait for it (SIGKILL after the run's grace); its wait4
 * figures in ex. 0, or 1 when it had ended before (ex says how); nothing
 * (0) when it never started. */
int kv_server_stop(struct kv_server *s, struct run_ctx *rc, struct run_exit *ex, struct pm_err *err);
/* The directories and everything in them (srv's whole tree, links never
 * followed), and the journal's lines. */
void kv_dirs_remove(struct kv_server *s);
/* The log's last line (printable ASCII only), "" when none. */
void kv_log_tail(const struct kv_server *s, char *buf, size_t len);

/* Is the user there to run the server as? Else one line naming it and the
 * package that makes it. Only as root: otherwise pressmark's own user. */
int kv_need_user(const char *user, const char *pkg, struct pm_err *err);
/* Is fd's other end the server itself: for a Unix socket (port 0) its
 * SO_PEERCRED pid and uid, for 127.0.0.1:port the listening socket among
 * the server's descriptors? -1 with err before anything is sent. */
int kv_peer_check(const struct kv_server *s, int fd, unsigned port, struct pm_err *err);
/* Every process left in the cgroup dir (NULL: none; the server's children
 * that left its process group, a client's) killed, and gone, before its
 * directory is removed or its report read: 0, or -1 when some were still
 * there after 5 s. Only processes in dir: never one of the same user
 * elsewhere. */
int kv_cgroup_empty(const char *dir);

/* A connected stream socket to sock (when not NULL) or 127.0.0.1:port,
 * trying for at most timeout_ms (a connect in progress: at most 1 s more);
 * -1 with err. sock must be a socket file of owner's itself, never
 * reached through a link: its directory is the server user's, who could
 * put a link to a socket only root may reach, or a socket of another
 * user's, there; neither is connected to, whatever it names. */
int kv_connect(const char *sock, uid_t owner, unsigned port, int timeout_ms, struct pm_err *err);

#endif
