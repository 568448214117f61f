#ifndef PM_SPAWN_H
#define PM_SPAWN_H
/* Every process pressmark starts goes through here (as git's run-command.h
 * serves git): posix_spawn with an argv, never a shell on user strings,
 * never fork in a threaded process. The child starts with an empty signal
 * mask and default dispositions, whatever pressmark blocks or ignores. */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
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

/* What a wait's stop hook answers (struct pm_wait_opts). */
enum pm_wait_ask {
    PM_WAIT_GO_ON = 0,         /* let it run */
    PM_WAIT_STOP,              /* end it as at the deadline: first_sig, SIGKILL after the grace */
    PM_WAIT_KILL,              /* SIGKILL now, grace or not (a second Ctrl-C) */
};

/* How pm_wait_deadline waits for a child and ends it. Zero is every
 * field's default: no deadline, SIGKILL at once, the child alone, no
 * stop hook, sleeps of 100 ms. */
struct pm_wait_opts {
    uint64_t deadline_ns;      /* CLOCK_MONOTONIC (pm_now_ns) when it is ended; 0: none */
    int first_sig;             /* sent at the deadline or a stop (SIGTERM); 0: SIGKILL straight away */
    uint64_t grace_ns;         /* from first_sig to SIGKILL */
    bool group;                /* signal its process group (the child alone when it has none); a
                                * group it signalled is SIGKILLed whole before the child is reaped */
    bool sweep;                /* with group: that SIGKILL even when the child ended by itself */
    uint64_t poll_ns;          /* the longest sleep between two looks at the child; 0: 100 ms */
    /* Signals, blocked by the caller, that end a sleep at once and are
     * taken (sigtimedwait): SIGCHLD among them for the child's end. NULL:
     * plain sleeps, and once SIGKILL is sent a wait that blocks. */
    const sigset_t *wake;
    /* Asked at every look while the child runs, and with every signal a
     * sleep took but SIGCHLD (sig; else 0) even when the child is then
     * found ended, so that no signal taken is lost: a pm_wait_ask. NULL:
     * nothing stops it but the deadline. */
    int (*stop)(void *arg, int sig);
    void *arg;
};

struct pm_wait_result {
    int status;                /* its wait status */
    struct rusage ru;          /* its and its reaped descendants' (wait4) */
    bool timed_out;            /* the deadline came before any stop */
    bool stopped;              /* the hook asked for a stop or a kill */
};

/* Wait for the child pid, ending it at the deadline or when stop asks
 * (first_sig, the grace, SIGKILL: git's finish_command with a clock),
 * and reap it. 0 with *out filled, -1 with err when it cannot be waited
 * for. */
int pm_wait_deadline(pid_t pid, const struct pm_wait_opts *w, struct pm_wait_result *out, struct pm_err *err);

/* Has the child pid ended? It is left unreaped (WNOWAIT), for whoever
 * waits for it and its figures. */
bool pm_child_ended(pid_t pid);

#endif
