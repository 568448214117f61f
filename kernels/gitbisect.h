#ifndef PM_KERNELS_GITBISECT_H
#define PM_KERNELS_GITBISECT_H
/* The git side of a bisection: a kernel tree's commits, a private clone
 * of it where git bisect moves (never the user's repository: no entry in
 * its worktrees, no hook of its run as root, nothing written into it),
 * and the build command that turns a checkout into a kernel. The clone
 * lives in a journalled pressmark-build-* directory of the kernel cache,
 * so a pressmark killed at any point has it removed by the next one. */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "lib/err.h"

/* Is s a full commit id (40 lowercase hex digits, nothing after)? */
bool git_is_sha(const char *s);
/* The repository is one git lets root read: its directory (and its .git)
 * owned by the user pressmark runs as. git refuses another's repository
 * (its safe.directory check, and upload-pack's for a clone), and
 * pressmark does not override that: -1 with err naming the repository,
 * its owner and what is accepted. */
int git_repo_check(const char *repo, struct pm_err *err);
/* Full commit id of rev in repo (read only). */
int git_resolve(const char *repo, const char *rev, char *sha, size_t len, struct pm_err *err);
/* Is a an ancestor of b (and not b itself)? -1 when git cannot say. */
int git_before(const char *repo, const char *a, const char *b, struct pm_err *err);
/* The commits after good up to bad, oldest first, bad last; *v allocated
 * (each 41 bytes). */
int git_commits(const char *repo, const char *good, const char *bad, char (**v)[41], size_t *n, struct pm_err *err);

struct git_clone {
    char dir[PATH_MAX];         /* the journalled scratch directory */
    char tree[PATH_MAX + 8];    /* the clone's work tree in it */
    int undo_id;
    int builds;
};
/* Clone repo into a new scratch directory of cache. */
int git_clone_open(const char *cache, const char *repo, struct git_clone *g, struct pm_err *err);
/* Only the scratch directory, for builds in a checkout of the user's
 * (git bisect run's step). */
int git_scratch_open(const char *cache, struct git_clone *g, struct pm_err *err);
void git_clone_close(struct git_clone *g);
/* Check out a commit (detached). */
int git_checkout(const struct git_clone *g, const char *sha, struct pm_err *err);
/* git bisect start BAD GOOD, or git bisect good|bad|skip SHA: *done set
 * (and first_bad) when git names the first bad commit, *ambiguous when
 * only skipped commits are left. */
int git_bisect(const struct git_clone *g, const char *what, const char *a, const char *b, bool *done,
               bool *ambiguous, char *first_bad, size_t len, struct pm_err *err);
int git_head(const char *tree, char *sha, size_t len, struct pm_err *err);

/* The build command's program is one that can run: absolute, relative to
 * repo, or found in PATH. -1 with err saying which it is not. */
int git_build_check(const char *repo, const char *cmd, struct pm_err *err);
/* Run the build command in dir (no shell: split on blanks and quotes),
 * with PRESSMARK_BISECT_OUT naming an empty private directory and
 * PRESSMARK_BISECT_COMMIT the commit; its last line on standard output
 * names the kernel it built, BZIMAGE[@MODULES] or PATH.deb (relative to
 * dir), into spec. A build that fails: 1, with reason holding its log's
 * last lines; interrupted: 128 + the signal; -1 with err when it could
 * not be run at all. */
int git_build(struct git_clone *g, const char *dir, const char *cmd, const char *sha, char *spec, size_t speclen,
              char *reason, size_t rlen, struct pm_err *err);

#endif
