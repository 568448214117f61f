/* The bisection's driver: its row found or made, the endpoints measured
 * and held to differ, then the candidates halved until the first bad one
 * is left (packages and package files here; git in bisect_git.c). Every
 * decision is read back from the stored steps, so a bisection resumed
 * after any interruption goes on from its last finished step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "experiment/bisect_int.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "reports/stats.h"

int bisect_load(struct bctx *c, int64_t id)
{
    struct pm_err err;
    int found = bisects_get(&c->rs.db, id, &c->rec, &err);
    if (found <= 0) {
        exp_say(c->ev, EXP_LOG, "pressmark bisect: %s\n", found < 0 ? err.msg : "no such bisection");
        return 2;
    }
    if (suite_plan_load(c->rec.suite_path, c->rec.suite_text, &c->plan, &err) < 0) {
        exp_say(c->ev, EXP_LOG, "pressmark bisect: %s\n", err.msg);
        return 2;
    }
    for (size_t i = 0; i < c->plan.ncells && !c->cell; i++)
        if (strcmp(c->plan.cells[i].label, c->rec.cell) == 0)
            c->cell = &c->plan.cells[i];
    if (!c->cell) {
        exp_say(c->ev, EXP_LOG, "pressmark bisect: bisection %lld: its suite has no cell '%s'\n", (long long)id,
                c->rec.cell);
        return 2;
    }
    return 0;
}

int bisect_open(struct bctx *c, int64_t id, const struct exp_events *ev, bool quiet)
{
    memset(c, 0, sizeof *c);
    c->ev = ev;
    c->quiet = quiet;
    run_block_signals();
    int rc = run_session_open(&c->rs, pm_db_path(), "bisect");
    if (rc == 0 && id > 0)
        rc = bisect_load(c, id);
    return rc;
}

void bisect_close(struct bctx *c)
{
    free(c->good.v);
    free(c->bad.v);
    if (c->cell || c->plan.ncells)
        suite_plan_free(&c->plan);
    bisect_rec_free(&c->rec);
    run_session_close(&c->rs);
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
    exp_say(c->ev, EXP_LOG, "pressmark bisect: %s\n", err.msg);
    return 2;
}

int bisect_end(struct bctx *c, const char *state, const char *first_bad, const char *reason, int status)
{
    struct pm_err err;
    if (bisects_finish(&c->rs.db, c->rec.id, state, first_bad, reason, &err) < 0) {
        exp_say(c->ev, EXP_LOG, "pressmark bisect: %s\n", err.msg);
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
        exp_say(c->ev, EXP_LOG, "pressmark bisect: the %s kernel: %s\n", role, err.msg);
        return bisect_end(c, "failed", "", err.msg, 1);
    }
    int rc = bisect_find_step(c, role, -1, kernel, s);
    char label[512], q[1100];
    bisect_label(c, kernel, label, sizeof label);
    quote_terminal(kernel, q, sizeof q);
    if (rc == 0 && !c->quiet)
        exp_say(c->ev, EXP_LOG, "pressmark: bisect %lld: the %s kernel, %s\n", (long long)c->rec.id, role, q);
    if (rc == 0 && !s->kernel_key[0]) {
        exp_say(c->ev, EXP_LOG, "pressmark bisect: the %s kernel has no build\n", role);
        rc = 2;
    }
    if (rc == 0)
        rc = bisect_measure(c, s, spec, label);
    if (rc == 1) {
        char why[1200];
        snprintf(why, sizeof why, "the %s kernel %s could not be measured: %s", role, kernel, s->reason);
        exp_say(c->ev, EXP_LOG, "pressmark: bisect %lld: %s\n", (long long)c->rec.id, why);
        return bisect_end(c, "failed", "", why, 1);
    }
    if (rc == 0 && bisects_values(&c->rs.db, s->kernel_key, c->rec.metric, vals, &err) < 0) {
        exp_say(c->ev, EXP_LOG, "pressmark bisect: %s\n", err.msg);
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
    exp_say(c->ev, EXP_LOG, "pressmark: bisect %lld: %s\n", (long long)c->rec.id, why);
    return bisect_end(c, "no-difference", "", why, 1);
}
