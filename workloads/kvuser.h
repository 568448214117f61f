#ifndef PM_KVUSER_H
#define PM_KVUSER_H
/* Every process of a server run but pressmark itself runs as the server's
 * user: the server, the loader and the benchmark tool. What that user
 * controls (its directory, the socket in it) then reaches nobody with
 * more rights than its own. Each gets a small environment of its own,
 * never root's, and its program is looked up as root in root's PATH, so
 * the user's PATH (which it does not have) decides nothing. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"
#include "workloads/kvrun.h"

/* The environment a process run as the server's user gets. */
struct kv_env {
    char *v[8];
    char buf[1024];
};

/* The variable the loader takes the server's password from: never on a
 * command line (/proc/PID/cmdline is anyone's to read, environ is not). */
#define KV_AUTH_ENV "PRESSMARK_KV_AUTH"
/* The server's user for pressmark's own connections (INFO, the loader);
 * its password is s->secret. */
#define KV_AUTH_USER "pm"

/* The largest file a process run as the server's user may write: its
 * log or output, in root's directory (RLIMIT_FSIZE). */
#define KV_FILE_MAX (16ull << 20)
/* "setpriv --reuid=U --regid=G --clear-groups --pdeathsig=KILL -- prlimit
 * --fsize=KV_FILE_MAX -- PATH" (the setpriv part only when the server's
 * user is not pressmark's), PATH being prog found in PATH (as it is
 * when it holds a '/'). -1 with err. */
int kv_arg_program(const struct kv_server *s, struct kv_argv *a, const char *prog, struct pm_err *err);
/* The same with a limit of fsize bytes for a server whose data set is
 * its files (PostgreSQL's relations): KV_FILE_MAX would end it. */
int kv_arg_program_fsize(const struct kv_server *s, struct kv_argv *a, const char *prog, uint64_t fsize,
                         struct pm_err *err);
/* PATH, LANG=C and HOME (the server's directory), and with secret_var
 * (KV_AUTH_ENV, PGPASSWORD; NULL: none) the server's password in it. */
void kv_user_env(const struct kv_server *s, const char *secret_var, struct kv_env *e);

#endif
