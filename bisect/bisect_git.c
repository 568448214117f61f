/* Bisecting a git range: the endpoints built and measured, then git
 * bisect, in a private clone, names each commit to build and measure and
 * is told good, bad or skip, until it names the first bad commit. A
 * resumed bisection replays its finished steps' verdicts into a new
 * clone's git bisect, building nothing again. Also the step of git
 * bisect run (bisect_step_here). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bisect/bisect_int.h"
#include "kernels/find.h"
#include "kernels/gitbisect.h"

/* Build the checkout of sha in dir with the bisection's command: 0 and
 * spec, or 1 with reason (a failed build), 128 + N, or -1 (err). */
static int bisect_git_build(struct bctx *c, struct git_clone *g, const char *dir, const char *sha, char *spec,
                            size_t len, char *reason, size_t rlen, struct pm_err *err)
{
    if (!c->quiet)
        bisect_say(c, "pressmark: bisect %lld: building %.12s", (long long)c->rec.id, sha);
    return git_build(g, dir, c->rec.build, sha, spec, len, reason, rlen, err);
}

static int need_clone(struct bctx *c, struct git_clone *g)
{
    char cache[PATH_MAX];
    struct pm_err err;
    if (g->tree[0])
        return 0;
    if (kernel_cache_dir(cache, sizeof cache, &err) < 0 || git_clone_open(cache, c->rec.repo, g, &err) < 0) {
        bisect_say(c, "pressmark bisect: %s", err.msg);
        return 2;
    }
    return 0;
}

/* Does the endpoint (role) have its runs already, by its stored key? */
static bool measured(struct bctx *c, const char *role, const char *sha)
{
    struct bisect_step_rec s = { .kernel_key = "" };
    struct bisect_values v;
    struct pm_err err;
    if (bisect_find_step(c, role, -1, sha, &s) != 0 || !s.kernel_key[0] ||
        bisects_values(&c->rs.db, s.kernel_key, c->rec.metric, &v, &err) < 0)
        return false;
    free(v.v);
    return (int)v.n >= c->rec.runs;
}

/* Build an endpoint in the clone: 0 with spec, else the exit status. */
static int build_endpoint(struct bctx *c, struct git_clone *g, const char *role, const char *sha, char *spec,
                          size_t len)
{
    struct pm_err err;
    char reason[1024];
    int rc = need_clone(c, g);
    if (rc == 0 && git_checkout(g, sha, &err) < 0) {
        bisect_say(c, "pressmark bisect: %s", err.msg);
        rc = 2;
    }
    if (rc == 0)
        rc = bisect_git_build(c, g, g->tree, sha, spec, len, reason, sizeof reason, &err);
    if (rc < 0) {
        bisect_say(c, "pressmark bisect: %s", err.msg);
        return 2;
    }
    if (rc == 1) {
        char why[1200];
        snprintf(why, sizeof why, "the %s commit could not be built: %s", role, reason);
        bisect_say(c, "pressmark: bisect %lld: %s", (long long)c->rec.id, why);
        return bisect_end(c, "failed", "", why, 1);
    }
    return rc;
}

/* The endpoints of a git bisection: built in g (opened when needed). */
static int bisect_git_endpoints(struct bctx *c, struct git_clone *g, char *gspec, char *bspec, size_t len)
{
    bool gm = measured(c, "good", c->rec.good), bm = measured(c, "bad", c->rec.bad);
    int rc = gm ? 0 : build_endpoint(c, g, "good", c->rec.good, gspec, len);
    if (rc == 0 && !bm)
        rc = build_endpoint(c, g, "bad", c->rec.bad, bspec, len);
    return rc ? rc : bisect_endpoints(c, gm ? NULL : gspec, bm ? NULL : bspec);
}

static const char *git_word(const char *verdict)
{
    return strcmp(verdict, "good") == 0 ? "good" : strcmp(verdict, "bad") == 0 ? "bad" : "skip";
}

/* The commit's step: built (a failed build is skipped with its log's
 * last lines) and measured until judged. */
static int git_step(struct bctx *c, struct git_clone *g, const char *dir, const char *sha, struct bisect_step_rec *s)
{
    struct pm_err err;
    char spec[PATH_MAX * 2], reason[1024], label[512];
    memset(s, 0, sizeof *s);
    int rc = bisect_find_step(c, "step", -1, sha, s);
    if (rc != 0 || s->verdict[0])
        return rc;
    bisect_say(c, "pressmark: bisect %lld: step %d: commit %.12s", (long long)c->rec.id, s->seq - 1, sha);
    rc = bisect_git_build(c, g, dir, sha, spec, sizeof spec, reason, sizeof reason, &err);
    if (rc == 0 && bisect_kernel_key(c, spec, s->kernel_key, sizeof s->kernel_key, &err) < 0) {
        snprintf(reason, sizeof reason, "%s", err.msg);
        rc = 1;
    }
    if (rc < 0)
        bisect_say(c, "pressmark bisect: %s", err.msg);
    if (rc != 0 && rc != 1)
        return rc < 0 ? 2 : rc;
    if (rc == 1) {
        snprintf(s->verdict, sizeof s->verdict, "skip");
        snprintf(s->reason, sizeof s->reason, "%s", reason);
        rc = bisects_update_step(&c->rs.db, c->rec.id, s, &err) < 0 ? 2 : 0;
    } else {
        snprintf(label, sizeof label, "%s @ %.12s", c->cell->label, sha);
        rc = bisect_measure(c, s, spec, label);
    }
    if (rc == 0)
        bisect_say(c, "pressmark: bisect %lld: %.12s is %s%s%s", (long long)c->rec.id, sha,
                strcmp(s->verdict, "cannot-tell") == 0 ? "skipped, cannot tell" : strcmp(s->verdict, "skip") == 0 ? "skipped" : s->verdict, s->reason[0] ? ": " : "",
                s->reason);
    return rc;
}

/* git bisect started anew in the clone, told every finished step. */
static int replay(struct bctx *c, struct git_clone *g, bool *done, bool *amb, char *first, size_t len)
{
    struct pm_err err;
    struct bisect_step_rec *v = NULL;
    size_t n = 0;
    int rc = git_bisect(g, "start", c->rec.bad, c->rec.good, done, amb, first, len, &err) < 0 ||
                     bisects_steps(&c->rs.db, c->rec.id, &v, &n, &err) < 0
                 ? -1 : 0;
    /* A stored step's commit is one argv word of git bisect's: a commit
     * id, as a database is data (not an option, not a range). */
    for (size_t i = 0; rc == 0 && !*done && !*amb && i < n; i++)
        if (strcmp(v[i].role, "step") == 0 && v[i].verdict[0])
            rc = !git_is_sha(v[i].kernel)
                     ? pm_errf(&err, "bisection %lld: stored step %d names no commit (accepted: a bisection "
                               "pressmark made)", (long long)c->rec.id, v[i].seq)
                     : git_bisect(g, git_word(v[i].verdict), v[i].kernel, NULL, done, amb, first, len, &err);
    free(v);
    if (rc < 0)
        bisect_say(c, "pressmark bisect: %s", err.msg);
    return rc < 0 ? 2 : 0;
}

static int git_conclude(struct bctx *c, bool done, const char *first)
{
    if (done) {
        bisect_say(c, "pressmark: bisect %lld: the first bad commit is %s", (long long)c->rec.id, first);
        return bisect_end(c, "done", first, "", 0);
    }
    const char *why = "only skipped commits are left: git bisect names the commits the first bad one may be";
    bisect_say(c, "pressmark: bisect %lld: %s", (long long)c->rec.id, why);
    return bisect_end(c, "failed", "", why, 1);
}

int bisect_git_search(struct bctx *c)
{
    struct git_clone g = { .dir = "" };
    struct pm_err err;
    char gspec[PATH_MAX * 2], bspec[PATH_MAX * 2], first[48] = "", sha[48];
    bool done = false, amb = false;
    int rc = bisect_git_endpoints(c, &g, gspec, bspec, sizeof gspec);
    if (rc == 0)
        rc = need_clone(c, &g);
    if (rc == 0)
        rc = replay(c, &g, &done, &amb, first, sizeof first);
    while (rc == 0 && !done && !amb) {
        struct bisect_step_rec s;
        if (git_head(g.tree, sha, sizeof sha, &err) < 0) {
            bisect_say(c, "pressmark bisect: %s", err.msg);
            rc = 2;
        } else if ((rc = git_step(c, &g, g.tree, sha, &s)) == 0 &&
                   git_bisect(&g, git_word(s.verdict), sha, NULL, &done, &amb, first, sizeof first, &err) < 0) {
            bisect_say(c, "pressmark bisect: %s", err.msg);
            rc = 2;
        }
    }
    if (rc == 0)
        rc = git_conclude(c, done, first);
    git_clone_close(&g);
    return rc == 3 ? 0 : rc;
}

/* git bisect run's exit status for a step that ended with rc. */
static int run_status(int rc, const struct bisect_step_rec *s)
{
    if (rc != 0)
        return 128;
    return strcmp(s->verdict, "good") == 0 ? 0 : strcmp(s->verdict, "bad") == 0 ? 1 : 125;
}

int bisect_step_here(int64_t id, const struct bisect_plan *given, const char *dir, const struct exp_events *ev,
                     bool quiet)
{
    struct bctx c;
    struct pm_err err;
    struct git_clone g = { .dir = "" };
    char gspec[PATH_MAX * 2], bspec[PATH_MAX * 2], sha[48], cache[PATH_MAX];
    struct bisect_step_rec s;
    int rc = bisect_open(&c, ev, quiet);
    if (rc == 0 && !id)
        rc = bisect_latest_id(&c, false, true, "--step", "no git bisection to step (accepted: after 'pressmark "
                              "bisect --git REPO ...' made one)", &id);
    if (rc == 0)
        rc = bisect_load(&c, id, given, false);
    if (rc == 0)
        rc = bisect_git_endpoints(&c, &g, gspec, bspec, sizeof gspec);
    git_clone_close(&g);
    if (rc == 0 && (git_head(dir, sha, sizeof sha, &err) < 0 || kernel_cache_dir(cache, sizeof cache, &err) < 0 ||
                    git_scratch_open(cache, &g, &err) < 0)) {
        bisect_say(&c, "pressmark bisect --step: %s", err.msg);
        rc = 2;
    }
    if (rc == 0)
        rc = git_step(&c, &g, dir, sha, &s);
    git_clone_close(&g);
    bisect_close(&c);
    return run_status(rc, &s);
}
