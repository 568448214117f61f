/* Bisecting a list (Debian packages in version order, package files in
 * the order given): the candidate in the middle of those still in
 * question, each verdict narrowing the range, a skipped one stepped
 * around (bisect_pick.h chooses); and bisect_run, which starts or
 * resumes any kind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bisect/bisect_int.h"
#include "bisect/bisect_pick.h"
#include "lib/quote.h"

/* No candidate left to test: the first bad one, or the range it is in. */
static int conclude(struct bctx *c, const struct bisect_candidate_rec *cands, int lo, int hi)
{
    char why[2400];
    if (hi - lo == 1) {
        bisect_say(c, "pressmark: bisect %lld: the first bad kernel is %s", (long long)c->rec.id, cands[hi].kernel);
        return bisect_end(c, "done", cands[hi].kernel, "", 0);
    }
    snprintf(why, sizeof why, "only skipped candidates are left: the first bad kernel is one of the %d after %s up to "
             "%s", hi - lo, lo < 0 ? c->rec.good : cands[lo].kernel, cands[hi].kernel);
    bisect_say(c, "pressmark: bisect %lld: %s", (long long)c->rec.id, why);
    return bisect_end(c, "failed", "", why, 1);
}

/* One step: candidate k measured until it is judged. */
static int step(struct bctx *c, const struct bisect_candidate_rec *cands, int k, int lo, int hi)
{
    struct bisect_step_rec s;
    struct pm_err err;
    memset(&s, 0, sizeof s);
    if (bisect_kernel_key(c, cands[k].kernel, s.kernel_key, sizeof s.kernel_key, &err) < 0) {
        snprintf(s.reason, sizeof s.reason, "%s", err.msg);
        snprintf(s.verdict, sizeof s.verdict, "skip");
    }
    int rc = bisect_find_step(c, "step", k, cands[k].kernel, &s);
    if (rc == 0 && s.verdict[0])
        return bisects_update_step(&c->rs.db, c->rec.id, &s, &err) < 0 ? 2 : 0;
    char label[512];
    bisect_label(c, cands[k].kernel, label, sizeof label);
    if (rc == 0)
        bisect_say(c, "pressmark: bisect %lld: step %d: %s (%d of the %d in question)",
                (long long)c->rec.id, s.seq - 1, cands[k].kernel, k - lo, hi - lo - 1);
    if (rc == 0)
        rc = bisect_measure(c, &s, cands[k].kernel, label);
    if (rc == 0)
        bisect_say(c, "pressmark: bisect %lld: %s is %s%s%s", (long long)c->rec.id, cands[k].kernel,
                strcmp(s.verdict, "cannot-tell") == 0 ? "skipped, cannot tell" : strcmp(s.verdict, "skip") == 0 ? "skipped" : s.verdict,
                s.reason[0] ? ": " : "", s.reason);
    return rc;
}

/* The candidates are c's, checked when it was loaded (bisect_load). */
static int list_search(struct bctx *c)
{
    struct pm_err err;
    const struct bisect_candidate_rec *cands = c->cands;
    size_t n = c->ncands;
    bool *skipped = calloc(n, sizeof *skipped);
    int rc = skipped ? 0 : 2;
    while (rc == 0) {
        struct bisect_step_rec *v;
        size_t nv;
        if (bisects_steps(&c->rs.db, c->rec.id, &v, &nv, &err) < 0) {
            bisect_say(c, "pressmark bisect: %s", err.msg);
            rc = 2;
            break;
        }
        struct bisect_range r;
        bisect_list_next(v, nv, n, skipped, &r);
        free(v);
        if (r.next < 0) {
            rc = conclude(c, cands, r.lo, r.hi);
            break;
        }
        rc = step(c, cands, r.next, r.lo, r.hi);
    }
    free(skipped);
    return rc == 3 ? 0 : rc;
}

/* The bisection these arguments started (by its key), or a new one. */
static int open_or_make(struct bctx *c, const struct bisect_plan *bp, int64_t *id)
{
    struct pm_err err;
    struct bisect_rec old;
    int found = bisects_by_key(&c->rs.db, bp->rec.key, &old, &err);
    if (found > 0) {
        *id = old.id;
        store_bisect_rec_free(&old);
        return 0;
    }
    struct bisect_rec r = bp->rec;
    if (found < 0 || bisects_create(&c->rs.db, &r, bp->cands, bp->ncands, &err) < 0) {
        bisect_say(c, "pressmark bisect: %s", err.msg);
        return 2;
    }
    *id = r.id;
    return 0;
}

/* A loaded bisection driven on: a finished one only says so. */
static int drive(struct bctx *c)
{
    int64_t id = c->rec.id;
    int rc;
    if (strcmp(c->rec.state, "running") != 0) {
        bisect_say(c, "pressmark: bisect %lld is finished (%s)", (long long)id, c->rec.state);
        return strcmp(c->rec.state, "done") == 0 ? 0 : 1;
    }
    bisect_say(c, "pressmark: bisect %lld: cell '%s', %s, %s candidates", (long long)id, c->rec.cell, c->rec.metric,
               c->rec.kind);
    if (strcmp(c->rec.kind, "git") == 0)
        rc = bisect_git_search(c);
    else if ((rc = bisect_endpoints(c, c->rec.good, c->rec.bad)) == 0)
        rc = list_search(c);
    if (rc >= 128)
        bisect_say(c, "pressmark: bisect %lld interrupted; the same command again, or 'pressmark bisect --continue' "
                   "with its suite file (and --git, --build or its package files), goes on from its last finished "
                   "step", (long long)id);
    return rc;
}

int bisect_run(const struct bisect_plan *bp, const struct exp_events *ev, bool quiet, int64_t *out_id)
{
    struct bctx c;
    int64_t id = 0;
    int rc = bisect_open(&c, ev, quiet);
    if (rc == 0)
        rc = open_or_make(&c, bp, &id);
    if (rc == 0) {
        *out_id = id;
        rc = bisect_load(&c, id, bp, true);
    }
    if (rc == 0)
        rc = drive(&c);
    bisect_close(&c);
    return rc;
}

int bisect_resume(int64_t id, const struct bisect_plan *given, const struct exp_events *ev, bool quiet,
                  int64_t *out_id)
{
    struct bctx c;
    int rc = bisect_open(&c, ev, quiet);
    if (rc == 0 && !id)
        rc = bisect_latest_id(&c, true, false, "--continue", "no unfinished bisection (accepted: --id N of a "
                              "stored one)", &id);
    if (rc == 0) {
        *out_id = id;
        rc = bisect_load(&c, id, given, false);
    }
    if (rc == 0)
        rc = drive(&c);
    bisect_close(&c);
    return rc;
}
