/* make outside the cap, journalled and interruptible. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "lib/spawn.h"
#include "pressure/undo.h"
#include "workloads/plainmake.h"

#define GRACE_NS 5000000000ull

/* pressmark's environment without its secrets, and without what would
 * change where or how make builds: a make above it (MAKEFLAGS), an output
 * directory of root's (KBUILD_OUTPUT, O). */
static char **make_env(void)
{
    static const char *const drop[] = { "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "KBUILD_OUTPUT=", "O=",
                                        "KCONFIG_CONFIG=", NULL };
    char **env = pm_env_without_secrets();
    size_t o = 0;
    for (size_t i = 0; env && env[i]; i++) {
        bool keep = true;
        for (size_t k = 0; drop[k]; k++)
            if (strncmp(env[i], drop[k], strlen(drop[k])) == 0)
                keep = false;
        if (keep)
            env[o++] = env[i];
    }
    if (env)
        env[o] = NULL;
    return env;
}

/* Stop make's whole group: SIGTERM, then SIGKILL after a grace (make waits
 * for its children, and one that ignores SIGTERM must not hold us). */
static void stop_group(pid_t pid)
{
    kill(-pid, SIGTERM);
    for (uint64_t waited = 0; !pm_child_ended(pid) && waited < GRACE_NS; waited += 50000000ull) {
        struct timespec ts = { 0, 50000000 };
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);
}

int wl_make_plain(char *const argv[], int log, const char *word, const struct wl_stop *stop, struct pm_err *err)
{
    char **env = make_env();
    if (!env)
        return pm_errf(err, "out of memory");
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = log, .err = log, .new_group = true,
                           .die_with_parent = true, .envp = env };
    pid_t pid;
    int sr = pm_spawn(&sp, &pid, err);
    free(env);
    if (sr < 0)
        return -1;
    char pids[16];
    snprintf(pids, sizeof pids, "%d", (int)pid);
    int uid = strlen(word) < 500 ? undo_push(UNDO_PROCESS, pids, word, NULL) : -1;
    bool stopped = false;
    while (!pm_child_ended(pid)) {
        if (stop && stop->fn && stop->fn(stop->arg)) {
            stop_group(pid);
            stopped = true;
            break;
        }
        struct timespec ts = { 0, 50000000 };
        nanosleep(&ts, NULL);
    }
    int ws;
    int w = pm_wait(pid, &ws, err);
    kill(-pid, SIGKILL);        /* whatever of its group outlived it */
    if (uid >= 0)
        undo_done(uid);
    if (stopped)
        return pm_errf(err, "interrupted");
    if (w < 0)
        return -1;
    return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : 1;
}
