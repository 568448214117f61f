#ifndef PM_WORKLOADS_SCRATCH_H
#define PM_WORKLOADS_SCRATCH_H
/* A run's private scratch directory in a place the operator names (run
 * fio's --target), for files a workload makes as root: the place is
 * checked first, so that nothing root creates follows another user's
 * symbolic link or lives below a directory another user could change; the
 * directory is journalled before it exists, so a pressmark killed with
 * SIGKILL leaves nothing the next invocation does not remove. */
#include <limits.h>
#include <stddef.h>
#include "lib/err.h"

struct wl_scratch {
    char dir[PATH_MAX];          /* PLACE/pressmark-NAME.XXXXXXXXXXXX; "" when none */
    int undo;                    /* its journal line; -1 when none */
};

/* Where scratch directories go when neither the option nor TMPDIR says
 * (docs/security.md): on the disk, where /tmp may be a tmpfs. */
#define WL_SCRATCH_DEFAULT "/var/tmp"

/* A place checked, and what named it, for what is said about it later. */
struct wl_place {
    char path[PATH_MAX];         /* resolved: absolute, no link, no "." or ".." */
    char said[48];               /* "--target", "TMPDIR" or "--target's default" */
};

/* The place given ("": $TMPDIR when absolute, else WL_SCRATCH_DEFAULT)
 * into p: a directory, not a symbolic link and reached through none,
 * root's or this user's and writable by nobody else unless sticky (as
 * /tmp), and so is every directory above it (pm_trusted_path). -1 with
 * err naming it by what named it (what: the option, "--target"), the
 * operator's words escaped for the terminal. */
int wl_scratch_place(const char *given, const char *what, struct wl_place *p, struct pm_err *err);
/* A new directory place/pressmark-NAME.<12 random hex digits>, 0700,
 * journalled (UNDO_SCRATCH, its whole tree) before mkdir makes it;
 * refused unless the journal's recovery would take its line (an absolute
 * path with no empty component, shorter than a journal field). -1 with
 * err; s->dir is "" then. */
int wl_scratch_make(struct wl_scratch *s, const char *place, const char *name, struct pm_err *err);
/* It and everything in it, no link followed, and its journal line.
 * Where something could not go (something else holds it), the line stays:
 * the run's undo tries again and stores why it could not, as it does for
 * every change a run made. Nothing when there is none. */
void wl_scratch_remove(struct wl_scratch *s);

#endif
