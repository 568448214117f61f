/* git bisect in a private clone (kernels/gitbisect.h). git's output is
 * data: only commit ids (40 hex digits) and fixed sentences are taken
 * from it. */
#include "kernels/gitbisect.h"
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels/build_step.h"
#include "lib/alloc.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/spawn.h"

extern char **environ;

/* pressmark's environment without git's own variables: a pressmark run
 * by git bisect run or a hook must not steer the clone's git. */
static char **git_env(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "GIT_", 4) != 0)
            env[k++] = environ[i];
    return env;
}

/* git's last word on its standard error (fd), escaped: its last
 * "fatal:" or "error:" line, else its last line. What a failure says
 * beside "git exited with status 128" (a missing object, an ownership
 * refusal, after which git adds advice lines). */
static void stderr_tail(int fd, char *buf, size_t len)
{
    char text[4096];
    buf[0] = '\0';
    struct stat st;
    off_t at = fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof text - 1 ? st.st_size - (off_t)sizeof text + 1 : 0;
    ssize_t n = pread(fd, text, sizeof text - 1, at);
    if (n <= 0)
        return;
    text[n] = '\0';
    const char *pick = NULL, *last = NULL;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        l[strcspn(l, "\r")] = '\0';
        if (!l[strspn(l, " \t")])
            continue;
        last = l;
        if (strncmp(l, "fatal: ", 7) == 0 || strncmp(l, "error: ", 7) == 0)
            pick = l;
    }
    if (pick || last)
        quote_terminal(pick ? pick : last, buf, len);
}

/* git -C DIR ARGS...: its standard output in out. No safe.directory is
 * set: git reads only repositories of the user pressmark runs as
 * (git_repo_check says so first), so the repository's configuration is
 * that user's own. */
static int git(const char *dir, char *const *args, char *out, size_t len, struct pm_err *err)
{
    char *argv[24] = { "git", "-C", (char *)dir };
    size_t n = 3;
    for (size_t i = 0; args[i] && n + 1 < sizeof argv / sizeof argv[0]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    char **env = git_env();
    char sink[256];
    int efd = memfd_create("pressmark-git-stderr", MFD_CLOEXEC);
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .err = efd >= 0 ? efd : PM_FD_NULL, .envp = env,
                           .missing_hint = "(Debian's git)" };
    int rc = env ? pm_spawn_capture(&sp, out ? out : sink, out ? len : sizeof sink, err)
                 : pm_errf(err, "out of memory");
    free(env);
    if (rc < 0 && efd >= 0) {
        char tail[300], was[sizeof err->msg];
        stderr_tail(efd, tail, sizeof tail);
        snprintf(was, sizeof was, "%s", err->msg);
        if (tail[0])
            pm_errf(err, "%s (%s)", was, tail);
    }
    if (efd >= 0)
        close(efd);
    return rc;
}

static bool is_sha(const char *s)
{
    return strspn(s, "0123456789abcdef") == 40;
}

bool git_is_sha(const char *s)
{
    return is_sha(s) && s[40] == '\0';
}

/* A uid as its user's name, or its number. */
static void user_name(uid_t uid, char *buf, size_t len)
{
    struct passwd pw, *res = NULL;
    char tmp[1024];
    if (getpwuid_r(uid, &pw, tmp, sizeof tmp, &res) == 0 && res)
        snprintf(buf, len, "%s", res->pw_name);
    else
        snprintf(buf, len, "uid %u", (unsigned)uid);
}

int git_repo_check(const char *repo, struct pm_err *err)
{
    struct stat st, gst;
    char dotgit[PATH_MAX + 8];
    bool inner = false;
    if (stat(repo, &st) < 0)
        return pm_errf(err, "--git '%s': %s (accepted: a git repository of a kernel tree)", repo, strerror(errno));
    snprintf(dotgit, sizeof dotgit, "%s/.git", repo);
    if (st.st_uid == geteuid() && lstat(dotgit, &gst) == 0) {
        st = gst;
        inner = true;
    }
    if (st.st_uid == geteuid())
        return 0;
    char owner[64], me[64];
    user_name(st.st_uid, owner, sizeof owner);
    user_name(geteuid(), me, sizeof me);
    return pm_errf(err, "--git '%s'%s is owned by %s, not %s, and git reads no other user's repository as %s "
                   "(accepted: a repository owned by %s: clone it as %s first, e.g. git clone %s /var/tmp/linux)",
                   repo, inner ? ": its .git" : "", owner, me, me, me, me, repo);
}

int git_resolve(const char *repo, const char *rev, char *sha, size_t len, struct pm_err *err)
{
    char spec[1100], out[256];
    snprintf(spec, sizeof spec, "%s^{commit}", rev);
    char *args[] = { "rev-parse", "--verify", "-q", "--end-of-options", spec, NULL };
    struct pm_err e;
    if (rev[0] == '-' || git(repo, args, out, sizeof out, &e) < 0 || !is_sha(out))
        return pm_errf(err, "--good/--bad '%s': not a commit of %s (accepted: commits of the --git repository)", rev,
                       repo);
    snprintf(sha, len, "%.40s", out);
    return 0;
}

int git_before(const char *repo, const char *a, const char *b, struct pm_err *err)
{
    if (strcmp(a, b) == 0)
        return 0;
    char *args[] = { "merge-base", "--is-ancestor", (char *)a, (char *)b, NULL };
    struct pm_err e;
    (void)err;
    return git(repo, args, NULL, 0, &e) == 0;
}

int git_commits(const char *repo, const char *good, const char *bad, char (**v)[41], size_t *n, struct pm_err *err)
{
    *v = NULL;
    *n = 0;
    char range[100];
    snprintf(range, sizeof range, "%s..%s", good, bad);
    char *args[] = { "rev-list", "--reverse", range, NULL };
    size_t len = 1u << 22;
    char *out = malloc(len);
    if (!out)
        return pm_errf(err, "out of memory");
    int rc = git(repo, args, out, len, err);
    size_t cap = 0;
    for (char *l = strtok(out, "\n"); rc == 0 && l; l = strtok(NULL, "\n")) {
        if (!is_sha(l))
            continue;
        if (pm_alloc_grow((void **)v, sizeof **v, *n + 1, &cap) < 0)
            rc = pm_errf(err, "out of memory");
        else
            snprintf((*v)[(*n)++], 41, "%.40s", l);
    }
    free(out);
    return rc;
}

int git_clone_open(const char *cache, const char *repo, struct git_clone *g, struct pm_err *err)
{
    memset(g, 0, sizeof *g);
    if (build_dir_make(cache, g->dir, sizeof g->dir, &g->undo_id, err) < 0)
        return -1;
    snprintf(g->tree, sizeof g->tree, "%s/tree", g->dir);
    /* --shared: the objects stay the repository's (read through
     * alternates), so a kernel tree costs its checkout only. */
    char *args[] = { "clone", "-q", "--shared", "--", (char *)repo, g->tree, NULL };
    if (git(repo, args, NULL, 0, err) < 0) {
        build_dir_drop(g->dir, g->undo_id);
        g->dir[0] = '\0';
        return -1;
    }
    return 0;
}

int git_scratch_open(const char *cache, struct git_clone *g, struct pm_err *err)
{
    memset(g, 0, sizeof *g);
    return build_dir_make(cache, g->dir, sizeof g->dir, &g->undo_id, err);
}

void git_clone_close(struct git_clone *g)
{
    if (g->dir[0])
        build_dir_drop(g->dir, g->undo_id);
    g->dir[0] = '\0';
}

int git_checkout(const struct git_clone *g, const char *sha, struct pm_err *err)
{
    char *args[] = { "checkout", "-q", "--detach", (char *)sha, NULL };
    return git(g->tree, args, NULL, 0, err);
}

int git_head(const char *tree, char *sha, size_t len, struct pm_err *err)
{
    char out[128];
    char *args[] = { "rev-parse", "HEAD", NULL };
    if (git(tree, args, out, sizeof out, err) < 0)
        return -1;
    if (!is_sha(out))
        return pm_errf(err, "%s: git rev-parse HEAD named no commit", tree);
    snprintf(sha, len, "%.40s", out);
    return 0;
}

int git_bisect(const struct git_clone *g, const char *what, const char *a, const char *b, bool *done,
               bool *ambiguous, char *first_bad, size_t len, struct pm_err *err)
{
    char *args[] = { "bisect", (char *)what, (char *)a, (char *)b, NULL };
    char out[8192];
    struct pm_err e;
    int rc = git(g->tree, args, out, sizeof out, &e);
    *done = *ambiguous = false;
    for (char *l = out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        if (is_sha(l) && strncmp(l + 40, " is the first bad commit", 24) == 0) {
            *done = true;
            snprintf(first_bad, len, "%.40s", l);
        }
        if (strncmp(l, "There are only 'skip'ped commits left to test.", 46) == 0)
            *ambiguous = true;
    }
    if (rc < 0 && !*ambiguous)
        return pm_errf(err, "git bisect %s in %s: %s", what, g->tree, e.msg);
    return 0;
}
