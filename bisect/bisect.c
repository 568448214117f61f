/* The bisection's driver: its row found or made, the endpoints measured
 * and held to differ, then the candidates halved until the first bad one
 * is left (packages and package files here; git in bisect_git.c). Every
 * decision is read back from the stored steps, so a bisection resumed
 * after any interruption goes on from its last finished step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bisect/bisect_int.h"
#include "harness/catalogue.h"
#include "kernels/candidates.h"
#include "kernels/gitbisect.h"
#include "lib/debver.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "stats/stats.h"

/* What the stored bisection s (its candidates v) holds other than what
 * the operator gave now (g), or NULL. full: a whole command again, so
 * every field and candidate; else --continue's and --step's words: the
 * suite text and, for git, the repository and the build command. */
static const char *differs(const struct bisect_rec *s, const struct bisect_candidate_rec *v, size_t n,
                           const struct bisect_plan *g, bool full)
{
    const struct bisect_rec *r = &g->rec;
    bool git = strcmp(s->kind, "git") == 0;
    if (!full && git && !r->kind[0])
        return "a git bisection's repository and build command, and none was given";
    if (!full && !git && r->kind[0])
        return "no repository, a bisection of packages or package files, and --git was given";
    if (strcmp(s->suite_text, r->suite_text) != 0)
        return "another suite text than the file's";
    if ((full || git) && strcmp(s->repo, r->repo) != 0)
        return "another repository than the one given";
    if ((full || git) && strcmp(s->build, r->build) != 0)
        return "another build command than the one given";
    if (!full)
        return NULL;
    if (strcmp(s->key, r->key) != 0 || strcmp(s->kind, r->kind) != 0 || strcmp(s->cell, r->cell) != 0 ||
        strcmp(s->metric, r->metric) != 0 || strcmp(s->good, r->good) != 0 || strcmp(s->bad, r->bad) != 0)
        return "another kind, cell, metric or endpoint than the ones given";
    if (s->runs != r->runs || s->max_runs != r->max_runs || s->alpha != r->alpha)
        return "other runs, max-runs or alpha than the ones given";
    bool same = n == g->ncands;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(v[i].kernel, g->cands[i].kernel) == 0 && strcmp(v[i].version, g->cands[i].version) == 0;
    return same ? NULL : "other candidates than these";
}

/* Is the stored kernel k one of its kind: a commit for git, a package of
 * the good one's flavour, or one of the package files the operator gave? */
static bool kernel_ok(const struct bisect_rec *s, const char *k, const char *flavour, const struct bisect_plan *g)
{
    if (strcmp(s->kind, "git") == 0)
        return git_is_sha(k);
    if (strcmp(s->kind, "packages") == 0)
        return kernel_package_name_ok(k, flavour);
    if (strcmp(k, g->rec.good) == 0 || strcmp(k, g->rec.bad) == 0)
        return k[0] != '\0';
    for (size_t i = 0; i < g->ncands; i++)
        if (strcmp(k, g->cands[i].kernel) == 0)
            return true;
    return false;
}

/* Everything stored that the bisection uses, held to what a new one is
 * held to: its kind, numbers within the options' ranges, its metric
 * declared, and each endpoint and candidate of its kind, the bad one
 * last. A database is data: nothing in it is taken on trust. */
static int check_stored(const struct bisect_rec *s, const struct bisect_candidate_rec *v, size_t n,
                        const struct bisect_plan *g, struct pm_err *err)
{
    const char *unit;
    enum metric_dir dir;
    char flavour[128];
    kernel_flavour(s->good, flavour, sizeof flavour);
    bool kind = strcmp(s->kind, "git") == 0 || strcmp(s->kind, "packages") == 0 || strcmp(s->kind, "debs") == 0;
    if (!kind || s->runs < BISECT_RUNS_MIN || s->runs > BISECT_RUNS_MAX || s->max_runs < s->runs ||
        s->max_runs > BISECT_MAX_RUNS_MAX || !(s->alpha >= BISECT_ALPHA_MIN && s->alpha <= BISECT_ALPHA_MAX) ||
        !catalogue_find(s->metric, &unit, &dir))
        return pm_errf(err, "bisection %lld: its stored kind, runs, max-runs, alpha or metric is not one a bisection "
                       "takes (accepted: a bisection pressmark made)", (long long)s->id);
    const char *bad = !kernel_ok(s, s->good, flavour, g) ? s->good : !kernel_ok(s, s->bad, flavour, g) ? s->bad : NULL;
    for (size_t i = 0; !bad && i < n; i++)
        if (!kernel_ok(s, v[i].kernel, flavour, g) ||
            (strcmp(s->kind, "packages") == 0 && !debver_valid(v[i].version)))
            bad = v[i].kernel;
    if (bad)
        return pm_errf(err, "bisection %lld: its stored kernel '%.300s' is not %s (accepted: %s)", (long long)s->id, bad,
                       strcmp(s->kind, "debs") == 0 ? "one of the package files given" : "one of its kind",
                       strcmp(s->kind, "debs") == 0 ? "every package file of the bisection given again, the --good "
                       "and --bad ones included" : "a bisection pressmark made");
    if (n < 2 || strcmp(v[n - 1].kernel, s->bad) != 0)
        return pm_errf(err, "bisection %lld: its stored candidates do not end with its bad kernel (accepted: a "
                       "bisection pressmark made)", (long long)s->id);
    return 0;
}

/* The stored bisection s matched against what the operator gave (g) and
 * checked, its key too. */
static int match(const struct bisect_rec *s, const struct bisect_candidate_rec *v, size_t n,
                 const struct bisect_plan *g, bool full, struct pm_err *err)
{
    const char *what = differs(s, v, n, g, full);
    if (what)
        return pm_errf(err, "bisection %lld holds %s, so nothing is run (accepted: the suite file%s it was started "
                       "with, as it was then)", (long long)s->id, what,
                       strcmp(s->kind, "git") == 0 ? ", --git REPO and --build CMD" : "");
    char key[sizeof s->key];
    bisect_make_key(s, v, n, key, sizeof key);
    if (strcmp(key, s->key) != 0)
        return pm_errf(err, "bisection %lld: its stored key does not match what it holds (accepted: a bisection "
                       "pressmark made)", (long long)s->id);
    return check_stored(s, v, n, g, err);
}

/* c's bisection: the stored one's identity and state, the operator's
 * suite, repository and build command, and the plan made from that
 * suite text (equal to the stored one's, but taken from the file). */
static int adopt(struct bctx *c, struct bisect_rec *s, const struct bisect_plan *g, struct pm_err *err)
{
    free(s->suite_text);
    s->suite_text = strdup(g->rec.suite_text);
    snprintf(s->suite_path, sizeof s->suite_path, "%s", g->rec.suite_path);
    snprintf(s->repo, sizeof s->repo, "%s", g->rec.repo);
    snprintf(s->build, sizeof s->build, "%s", g->rec.build);
    c->rec = *s;
    if (!c->rec.suite_text)
        return pm_errf(err, "out of memory");
    if (suite_plan_load(c->rec.suite_path, c->rec.suite_text, &c->plan, err) < 0)
        return -1;
    for (size_t i = 0; i < c->plan.ncells && !c->cell; i++)
        if (strcmp(c->plan.cells[i].label, c->rec.cell) == 0)
            c->cell = &c->plan.cells[i];
    if (!c->cell) {
        suite_plan_free(&c->plan);
        c->plan.ncells = 0;
        return pm_errf(err, "bisection %lld: its suite has no cell '%s'", (long long)c->rec.id, c->rec.cell);
    }
    return 0;
}

int bisect_load(struct bctx *c, int64_t id, const struct bisect_plan *given, bool full)
{
    struct pm_err err;
    struct bisect_rec s;
    int found = bisects_get(&c->rs.db, id, &s, &err);
    if (found <= 0) {
        bisect_say(c, "pressmark bisect: %s", found < 0 ? err.msg : "no such bisection");
        return 2;
    }
    int rc = bisects_candidates(&c->rs.db, id, &c->cands, &c->ncands, &err);
    if (rc == 0)
        rc = match(&s, c->cands, c->ncands, given, full, &err);
    if (rc == 0)
        rc = adopt(c, &s, given, &err);
    else
        store_bisect_rec_free(&s);
    if (rc < 0) {
        bisect_say(c, "pressmark bisect: %s", err.msg);
        return 2;
    }
    return 0;
}

int bisect_open(struct bctx *c, const struct exp_events *ev, bool quiet)
{
    memset(c, 0, sizeof *c);
    c->ev = ev;
    c->quiet = quiet;
    harness_block_signals();
    /* The harness's lines are the bisection's log; c->rs.say keeps the
     * stream for bisect_close, even when the session does not open. */
    struct pm_err err;
    if (harness_session_open(&c->rs, store_db_path(), "bisect", exp_say_file(ev), &err) < 0) {
        exp_say(ev, EXP_LOG, "pressmark: %s\n", err.msg);
        return 2;
    }
    return 0;
}

int bisect_latest_id(struct bctx *c, bool unfinished, bool git, const char *what, const char *none, int64_t *id)
{
    struct bisect_rec r;
    struct pm_err err;
    int found = bisects_latest(&c->rs.db, unfinished, git, &r, &err);
    if (found <= 0) {
        bisect_say(c, "pressmark bisect %s: %s", what, found < 0 ? err.msg : none);
        return 2;
    }
    *id = r.id;
    store_bisect_rec_free(&r);
    return 0;
}

void bisect_close(struct bctx *c)
{
    free(c->cands);
    free(c->good.v);
    free(c->bad.v);
    if (c->cell || c->plan.ncells)
        suite_plan_free(&c->plan);
    store_bisect_rec_free(&c->rec);
    harness_session_close(&c->rs);
    if (c->rs.say)
        fclose(c->rs.say);
    c->rs.say = NULL;
}

int bisect_find_step(struct bctx *c, const char *role, int candidate, const char *kernel, struct bisect_step_rec *s)
{
    struct pm_err err;
    struct bisect_step_rec *v;
    size_t n;
    char key[24];
    snprintf(key, sizeof key, "%s", s->kernel_key);
    if (bisects_steps(&c->rs.db, c->rec.id, &v, &n, &err) < 0)
        goto fail;
    bool found = false;
    for (size_t i = 0; i < n && !found; i++)
        if (strcmp(v[i].role, role) == 0 && v[i].candidate == candidate && strcmp(v[i].kernel, kernel) == 0) {
            *s = v[i];
            found = true;
        }
    free(v);
    if (!found) {
        memset(s, 0, sizeof *s);
        snprintf(s->role, sizeof s->role, "%s", role);
        s->candidate = candidate;
        snprintf(s->kernel, sizeof s->kernel, "%s", kernel);
        s->p_good = s->p_bad = s->mean = NAN;
        if (bisects_add_step(&c->rs.db, c->rec.id, s, &err) < 0)
            goto fail;
    }
    if (key[0])
        snprintf(s->kernel_key, sizeof s->kernel_key, "%s", key);
    return 0;
fail:
    bisect_say(c, "pressmark bisect: %s", err.msg);
    return 2;
}

int bisect_end(struct bctx *c, const char *state, const char *first_bad, const char *reason, int status)
{
    struct pm_err err;
    /* The reason holds kernels' names and builds' and runs' words: stored
     * as shown, escaped. */
    char q[4 * 1024 + 8];
    quote_terminal(reason, q, sizeof q);
    if (bisects_finish(&c->rs.db, c->rec.id, state, first_bad, q, &err) < 0) {
        bisect_say(c, "pressmark bisect: %s", err.msg);
        return 2;
    }
    snprintf(c->rec.state, sizeof c->rec.state, "%s", state);
    return status;
}

/* One endpoint measured: its runs, or why it has none. */
static int measure_endpoint(struct bctx *c, const char *role, const char *kernel, const char *spec,
                            struct bisect_step_rec *s, struct bisect_values *vals)
{
    struct pm_err err;
    memset(s, 0, sizeof *s);
    /* A git endpoint measured before is not built again: its key is stored. */
    if (spec && bisect_kernel_key(c, spec, s->kernel_key, sizeof s->kernel_key, &err) < 0) {
        bisect_say(c, "pressmark bisect: the %s kernel: %s", role, err.msg);
        return bisect_end(c, "failed", "", err.msg, 1);
    }
    int rc = bisect_find_step(c, role, -1, kernel, s);
    char label[512];
    bisect_label(c, kernel, label, sizeof label);
    if (rc == 0 && !c->quiet)
        bisect_say(c, "pressmark: bisect %lld: the %s kernel, %s", (long long)c->rec.id, role, kernel);
    if (rc == 0 && !s->kernel_key[0]) {
        bisect_say(c, "pressmark bisect: the %s kernel has no build", role);
        rc = 2;
    }
    if (rc == 0)
        rc = bisect_measure(c, s, spec, label);
    if (rc == 1) {
        char why[1200];
        snprintf(why, sizeof why, "the %s kernel %s could not be measured: %s", role, kernel, s->reason);
        bisect_say(c, "pressmark: bisect %lld: %s", (long long)c->rec.id, why);
        return bisect_end(c, "failed", "", why, 1);
    }
    if (rc == 0 && bisects_values(&c->rs.db, s->kernel_key, c->rec.metric, vals, &err) < 0) {
        bisect_say(c, "pressmark bisect: %s", err.msg);
        return 2;
    }
    return rc;
}

/* "0 in every run" for a constant side, else the mean and its n. */
static void describe_side(const struct bisect_values *v, char *buf, size_t len)
{
    double sum = 0;
    bool constant = true;
    for (size_t i = 0; i < v->n; i++) {
        sum += v->v[i];
        constant &= v->v[i] == v->v[0];
    }
    char m[48];
    pm_fmt_number(m, sizeof m, v->n ? (constant ? v->v[0] : sum / (double)v->n) : NAN);
    snprintf(buf, len, constant && v->n ? "%s in each of %zu runs" : "mean %s over %zu runs", m, v->n);
}

int bisect_endpoints(struct bctx *c, const char *gspec, const char *bspec)
{
    int rc = measure_endpoint(c, "good", c->rec.good, gspec, &c->gstep, &c->good);
    if (rc == 0)
        rc = measure_endpoint(c, "bad", c->rec.bad, bspec, &c->bstep, &c->bad);
    if (rc != 0)
        return rc;
    double p = bisect_p(c->good.v, c->good.n, c->bad.v, c->bad.n);
    if (p < c->rec.alpha)
        return 0;
    char g[128], b[128], ps[48], why[600];
    describe_side(&c->good, g, sizeof g);
    describe_side(&c->bad, b, sizeof b);
    stats_fmt_p(ps, sizeof ps, p, false);
    snprintf(why, sizeof why, "the good and the bad kernel do not differ in %s (good: %s; bad: %s; %s%s, alpha %g): "
             "nothing to bisect", c->rec.metric, g, b, ps, p == 1 && c->good.n ? ", the same constant" : "",
             c->rec.alpha);
    bisect_say(c, "pressmark: bisect %lld: %s", (long long)c->rec.id, why);
    return bisect_end(c, "no-difference", "", why, 1);
}
