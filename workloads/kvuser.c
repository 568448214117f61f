/* Processes run as the server's user (kvuser.h). */
#include "workloads/kvuser.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/fileio.h"

/* kv_arg and kv_argv_full are kvrun.h's; here, with the argv they build,
 * so that the files' calls go one way. */
void kv_arg(struct kv_argv *a, const char *fmt, ...)
{
    if (a->n >= (int)(sizeof a->v / sizeof a->v[0]) - 1 || a->used >= sizeof a->buf) {
        a->n = (int)(sizeof a->v / sizeof a->v[0]);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(a->buf + a->used, sizeof a->buf - a->used, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof a->buf - a->used) {
        a->n = (int)(sizeof a->v / sizeof a->v[0]);
        return;
    }
    a->v[a->n++] = a->buf + a->used;
    a->v[a->n] = NULL;
    a->used += (size_t)k + 1;
}

bool kv_argv_full(const struct kv_argv *a)
{
    return a->n >= (int)(sizeof a->v / sizeof a->v[0]);
}

/* name's absolute path in PATH into out (name as it is when it holds a
 * '/'); -1 with err when not there. */
static int kv_which(const char *name, char *out, size_t len, struct pm_err *err)
{
    if (strchr(name, '/'))      /* pressmark's own binary: as it is */
        return (size_t)snprintf(out, len, "%s", name) < len ? 0 : pm_errf(err, "%s: too long a path", name);
    /* An empty or relative entry is pressmark's working directory:
     * never a place to take a program for another user from. */
    if (pm_which(name, true, out, len) == 0)
        return 0;
    return pm_errf(err, "%s is not in PATH", name);
}

int kv_arg_program(const struct kv_server *s, struct kv_argv *a, const char *prog, struct pm_err *err)
{
    return kv_arg_program_fsize(s, a, prog, KV_FILE_MAX, err);
}

int kv_arg_program_fsize(const struct kv_server *s, struct kv_argv *a, const char *prog, uint64_t fsize,
                         struct pm_err *err)
{
    char path[4096], limit[4096];
    if (kv_which(prog, path, sizeof path, err) < 0 || kv_which("prlimit", limit, sizeof limit, err) < 0)
        return -1;
    if (s->uid != geteuid()) {
        kv_arg(a, "setpriv");
        kv_arg(a, "--reuid=%u", (unsigned)s->uid);
        kv_arg(a, "--regid=%u", (unsigned)s->gid);
        kv_arg(a, "--clear-groups");
        kv_arg(a, "--pdeathsig=KILL");
        kv_arg(a, "--");
    }
    /* Its output goes to a file of root's, in root's directory, through
     * the descriptor it is given: the user's process, whatever it is made
     * to do, writes no file larger than fsize (SIGXFSZ), so one file of
     * its cannot fill the file system root's files are on. */
    kv_arg(a, "%s", limit);
    kv_arg(a, "--fsize=%llu", (unsigned long long)fsize);
    kv_arg(a, "--");
    kv_arg(a, "%s", path);
    return 0;
}

void kv_user_env(const struct kv_server *s, const char *secret_var, struct kv_env *e)
{
    size_t o = 0;
    int n = 0;
    const char *name[] = { "PATH", "LANG", "HOME", secret_var };
    const char *value[] = { "/usr/sbin:/usr/bin:/sbin:/bin", "C", s->srv, s->secret };
    for (size_t i = 0; i < (secret_var ? 4u : 3u); i++) {
        int k = snprintf(e->buf + o, sizeof e->buf - o, "%s=%s", name[i], value[i]);
        if (k < 0 || (size_t)k >= sizeof e->buf - o)
            break;
        e->v[n++] = e->buf + o;
        o += (size_t)k + 1;
    }
    e->v[n] = NULL;
}
