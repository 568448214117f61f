#ifndef PM_SPAWN_H
#define PM_SPAWN_H
/* Every process pressmark starts goes through here (as git's run-command.h
 * serves git): posix_spawn with an argv, never a shell on user strings,
 * never fork in a threaded process. The child starts with an empty signal
 * mask and default dispositions, whatever pressmark blocks or ignores. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "lib/err.h"

/* For in, out and err: 0 (the default of a designated initializer) gives
 * the child pressmark's own descriptor; PM_FD_NULL gives it /dev/null; any
 * other value is a descriptor of pressmark's to dup2 there. */
#define PM_FD_INHERIT 0
#define PM_FD_NULL (-1)

struct pm_fd_map {
    int from, to;              /* pressmark's descriptor from becomes the child's to */
};

struct pm_spawn {
    char *const *argv;         /* argv[0] is looked up in PATH unless path is set */
    const char *path;          /* the file to execute instead (pressmark's own binary) */
    const char *what;          /* how errors name it; NULL: argv[0] */
    const char *dir;           /* working directory; NULL: pressmark's */
    int in, out, err;          /* PM_FD_INHERIT (0), PM_FD_NULL or a descriptor */
    const struct pm_fd_map *map;  /* further descriptors for the child, nmap of them */
    size_t nmap;
    bool new_group;            /* its own process group, signalled as one */
    bool new_session;          /* its own session, also its own process group: no
                                * controlling terminal (a program run as another
                                * user never reaches root's with TIOCSTI) */
    bool die_with_parent;      /* killed when pressmark dies, even by SIGKILL (setpriv --pdeathsig) */
    const char *missing_hint;  /* added to the error when the program is not installed */
    char *const *envp;         /* the child's environment; NULL: pressmark's */
    bool close_others;         /* no descriptor of pressmark's but 0-2 and map's targets: a
                                * lock's flock, a caller's pipe never reach the child */
};

/* pressmark's environment without its secrets (PRESSMARK_PUSH_TOKEN), for
 * the processes it measures; NULL when out of memory. Free with free(). */
char **pm_env_without_secrets(void);
/* argv with the nprefix words of prefix before it (a shell prelude's
 * "sh -c SCRIPT sh ARGS..."), NULL-terminated; the strings are not copied.
 * NULL when out of memory. Free with free(). */
char **pm_argv_prefixed(char *const prefix[], size_t nprefix, char *const argv[]);
/* Start the child. -1 with err naming the program when it cannot start. */
int pm_spawn(const struct pm_spawn *sp, pid_t *pid, struct pm_err *err);
/* Wait for pid (EINTR retried); its wait status in *status. */
int pm_wait(pid_t pid, int *status, struct pm_err *err);
/* Start and wait: 0 when it exited with status 0, else -1 with err saying
 * how it ended ("mkswap exited with status 1"). */
int pm_spawn_run(const struct pm_spawn *sp, struct pm_err *err);
/* Start and wait, its standard output in buf (NUL-terminated, cut at
 * len); 0 when it exited with status 0, as pm_spawn_run. */
int pm_spawn_capture(const struct pm_spawn *sp, char *buf, size_t len, struct pm_err *err);
/* A wait status in words: "exited with status 2", "was killed by SIGKILL". */
void pm_wait_describe(int status, char *buf, size_t len);

/* Has the child pid ended? It is left unreaped (WNOWAIT), for whoever
 * waits for it and its figures. */
bool pm_child_ended(pid_t pid);

#endif
