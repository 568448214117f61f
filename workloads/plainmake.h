#ifndef PM_PLAINMAKE_H
#define PM_PLAINMAKE_H
/* make outside the cap (a build's priming and cleaning, a kernel's
 * configuration): minutes for a kernel, so it stops when pressmark is
 * interrupted, dies with it, and what its process group left after a
 * SIGKILL of pressmark (sub-makes, compilers) is killed by the next
 * pressmark's recovery. */
#include <stdbool.h>
#include "lib/err.h"

/* Asked while make runs: true stops it (pressmark was interrupted); fn
 * NULL: never. */
struct wl_stop {
    bool (*fn)(void *arg);
    void *arg;
};

/* Run argv (make ...) with its output to log, journalled as a process
 * whose group's command lines mention word (a directory of the build's).
 * 0 it succeeded, 1 it failed, -1 harness errors and an interruption
 * (err says "interrupted"). */
int wl_make_plain(char *const argv[], int log, const char *word, const struct wl_stop *stop, struct pm_err *err);

#endif
