/* PostgreSQL's programs as the server's user (pgclient.h). */
#include "workloads/pgclient.h"
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/timeutil.h"
#include "workloads/kvrun.h"
#include "workloads/kvuser.h"
#include "workloads/pgconf.h"

/* A program that did not end well: the run's status says how, with the
 * last line it wrote. */
static void failed(struct run_ctx *rc, const char *what, const struct run_exit *ex, uint64_t timeout_ns,
                   const char *out)
{
    char tail[256];
    kv_last_line(out, tail, sizeof tail);
    if (ex->timed_out && !ex->aborted && timeout_ns)
        run_set_status(rc, "failed", "%s did not finish within %.0f s (--client-timeout, or the run's --timeout)",
                       what, (double)timeout_ns / 1e9);
    else if (ex->timed_out && !ex->aborted)
        run_set_status(rc, "failed", "%s did not finish within the run's --timeout", what);
    else
        run_status_from_exit(rc, what, ex);
    if (tail[0] && strcmp(rc_status(rc), "ok") != 0) {
        char reason[1024];
        snprintf(reason, sizeof reason, "%s: %s", what, tail);
        run_meta(rc, "workload.client_said", reason);
    }
}

int pg_client(struct run_ctx *rc, const struct kv_server *s, char *const argv[], bool password, const char *what,
              const char *name, uint64_t timeout_ns, char *out, size_t len, pid_t *pid, struct pm_err *err)
{
    struct kv_argv a = { .n = 0 };
    if (kv_arg_program_fsize(s, &a, argv[0], PG_FILE_MAX, err) < 0)
        return -1;
    for (int i = 1; argv[i]; i++)
        kv_arg(&a, "%s", argv[i]);
    if (kv_argv_full(&a))
        return pm_errf(err, "internal: %s's command line is too long", what);
    /* HOME is the server's directory: libpq's ~/.pgpass is that user's
     * own; the password goes in the environment (environ is its user's
     * and root's to read, a command line anyone's). */
    struct kv_env env;
    kv_user_env(s, password ? "PGPASSWORD" : NULL, &env);
    char path[PATH_MAX];
    int fd = kv_file_create(s, name, path, sizeof path, err);
    if (fd < 0)
        return -1;
    struct run_exit ex;
    int w = run_spawn_env(rc, a.v, env.v, true, -1, fd, pid, err);
    if (w == 0)
        w = run_wait_until(rc, *pid, timeout_ns ? pm_now_ns() + timeout_ns : 0, &ex, err);
    /* What it left in the clients' cgroup (a child in a session of its
     * own, which its group's kill missed) goes before its output and logs
     * are read and before the next program runs: nothing of the run's
     * writes them meanwhile, nor outlives its phase. */
    bool emptied = kv_cgroup_empty(run_client_cgroup(rc)) == 0;
    close(fd);
    if (w < 0)
        return -1;
    /* Its summary is at the end, after its progress lines. */
    kv_file_read(path, true, out, len);
    if (ex.timed_out || ex.aborted || !WIFEXITED(ex.wstatus) || WEXITSTATUS(ex.wstatus) != 0) {
        failed(rc, what, &ex, timeout_ns, out);
        return 1;
    }
    if (!emptied) {
        run_set_status(rc, "failed", "%s's cgroup still held processes 5 s after they were killed", what);
        return 1;
    }
    return 0;
}
