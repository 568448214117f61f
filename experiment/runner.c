#include "experiment/suite.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "experiment/backend.h"
#include "experiment/cell.h"
#include "experiment/runner.h"
#include "harness/run.h"
#include "lib/json.h"
#include "lib/timeutil.h"
#include "stats/stats.h"

unsigned suite_ci_looks(const struct suite_plan *p)
{
    return p->target_ci > 0 && p->runs_max >= p->runs_min ? p->runs_max - p->runs_min + 1 : 1;
}

double suite_ci_confidence(const struct suite_plan *p)
{
    return 1 - 0.05 / suite_ci_looks(p);
}

void suite_cell_states(const struct suite_plan *p, const struct suite_slot *slots, size_t nslots,
                       struct cell_state *cs)
{
    double conf = suite_ci_confidence(p);
    for (size_t c = 0; c < p->ncells; c++)
        memset(&cs[c], 0, sizeof cs[c]);
    for (size_t i = 0; i < nslots; i++) {
        const struct suite_slot *s = &slots[i];
        if (s->cell < 0 || (size_t)s->cell >= p->ncells)
            continue;
        struct cell_state *c = &cs[s->cell];
        c->planned++;
        bool ok = strcmp(s->status, "ok") == 0;
        if (ok || strcmp(s->status, "failed") == 0 || strcmp(s->status, "oom") == 0) {
            c->finished++;
            c->failed += !ok;
        }
        if (ok && s->has_value) {
            double *nv = realloc(c->values, (c->nvalues + 1) * sizeof *nv);
            if (nv) {
                c->values = nv;
                c->values[c->nvalues++] = s->value;
            }
        }
    }
    for (size_t i = 0; i < p->ncells; i++) {
        struct cell_state *c = &cs[i];
        if (stats_mean_ci_conf(c->values, c->nvalues, conf, &c->mean, &c->ci_pct) < 0)
            c->ci_pct = NAN;
        c->at_max = (unsigned)c->finished >= p->runs_max;
        c->converged = p->target_ci > 0 && (unsigned)c->finished >= p->runs_min && !isnan(c->ci_pct) &&
                       c->ci_pct <= p->target_ci * 100;
    }
}

void suite_cell_states_free(struct cell_state *cs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(cs[i].values);
        cs[i].values = NULL;
    }
}

bool suite_cell_wants_run(const struct suite_plan *p, const struct cell_state *c)
{
    if ((unsigned)c->finished < p->runs_min)
        return true;
    if ((unsigned)c->finished >= p->runs_max)
        return false;
    return p->target_ci > 0 && !c->converged;
}

int suite_next_group(const struct suite_plan *p, const struct cell_state *cs, const bool *running)
{
    int fallback = -1;
    for (size_t g = 0; g < p->ngroups; g++) {
        bool wants = false;
        for (size_t c = 0; c < p->ncells; c++)
            wants |= p->cells[c].group == (int)g && suite_cell_wants_run(p, &cs[c]);
        if (!wants)
            continue;
        if (!running[g])
            return (int)g;
        if (fallback < 0)
            fallback = (int)g;
    }
    return fallback;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void suite_shuffle(uint64_t seed, int round, int *cells, size_t n)
{
    /* Fisher-Yates from the suite's seed and the round: the same suite
     * gives the same order again, each round another. */
    uint64_t x = seed ^ ((uint64_t)round * 0xd1b54a32d192ed03ull);
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(splitmix(&x) % i);
        int t = cells[i - 1];
        cells[i - 1] = cells[j];
        cells[j] = t;
    }
}

int runner_reload(struct runner *r, struct pm_err *err)
{
    free(r->slots);
    r->slots = NULL;
    if (suites_slots(&r->rs.db, r->suite.id, &r->slots, &r->nslots, err) < 0)
        return -1;
    suite_cell_states_free(r->cs, r->p->ncells);
    suite_cell_states(r->p, r->slots, r->nslots, r->cs);
    return 0;
}

static bool in_group(const struct runner *r, int cell, int group)
{
    return cell >= 0 && (size_t)cell < r->p->ncells && r->p->cells[cell].group == group;
}

static const struct suite_slot *pending(const struct runner *r, int group)
{
    for (size_t i = 0; i < r->nslots; i++)
        if (in_group(r, r->slots[i].cell, group) &&
            (r->slots[i].run_id == 0 || strcmp(r->slots[i].status, "aborted") == 0 ||
             strcmp(r->slots[i].status, "running") == 0))
            return &r->slots[i];
    return NULL;
}

bool runner_group_done(const struct runner *r, int group)
{
    if (pending(r, group))
        return false;
    for (size_t c = 0; c < r->p->ncells; c++)
        if (r->p->cells[c].group == group && suite_cell_wants_run(r->p, &r->cs[c]))
            return false;
    return true;
}

/* Plan the group's next round (interleaved) or the next cell's runs
 * (sequential). Returns how many slots were added; 0 when the group is
 * complete. */
static int plan_more(struct runner *r, int group, struct pm_err *err)
{
    const struct suite_plan *p = r->p;
    int64_t seq = r->nslots ? r->slots[r->nslots - 1].seq + 1 : 0;
    int round = 0;
    for (size_t i = 0; i < r->nslots; i++)
        if (in_group(r, r->slots[i].cell, group) && r->slots[i].round > round)
            round = r->slots[i].round;
    int added = 0;
    if (p->order == ORDER_SEQUENTIAL) {
        for (size_t c = 0; c < p->ncells && !added; c++) {
            const struct cell_state *s = &r->cs[c];
            if (p->cells[c].group != group || !suite_cell_wants_run(p, s))
                continue;
            int n = (unsigned)s->finished < p->runs_min ? (int)p->runs_min - s->finished : 1;
            for (int k = 0; k < n; k++, added++)
                if (suites_add_slot(&r->rs.db, r->suite.id, seq++, s->finished + k + 1, (int)c, err) < 0)
                    return -1;
        }
        return added;
    }
    int want[4096];
    size_t n = 0;
    for (size_t c = 0; c < p->ncells && n < 4096; c++)
        if (p->cells[c].group == group && suite_cell_wants_run(p, &r->cs[c]))
            want[n++] = (int)c;
    suite_shuffle(r->suite.seed, round + 1, want, n);
    for (size_t i = 0; i < n; i++, added++)
        if (suites_add_slot(&r->rs.db, r->suite.id, seq++, round + 1, want[i], err) < 0)
            return -1;
    return added;
}

static void link_run(void *arg, struct pm_db *db, int64_t run_id)
{
    struct runner *r = arg;
    struct pm_err err;
    if (suites_link_run(db, r->suite.id, r->linking_seq, run_id, &err) < 0)
        exp_say(r->ev, EXP_LOG, "pressmark suite: %s\n", err.msg);
}

/* A cell's --push (a suite file's push = URL): the run goes out once stored;
 * a failure is told, the run stays queued. */
struct cell_push {
    struct runner *r;
    const struct run_opts *ro;
};

static void push_run(void *arg, struct pm_db *db, int64_t run_id)
{
    const struct cell_push *cp = arg;
    struct pm_err err;
    if (exp_run_opts_push(cp->ro, db, run_id, &err) < 0)
        exp_say(cp->r->ev, EXP_LOG, "pressmark: push: %s; run %lld stays queued for the next 'pressmark push'\n",
                err.msg, (long long)run_id);
}

static void on_tick(void *arg, const struct series_table *t, uint64_t t_ns, const struct run_live *live)
{
    struct runner *r = arg;
    if (r->ev->tick)
        r->ev->tick(r->ev->arg, t, t_ns, live);
}

/* Mean wall time of this suite's finished runs of cell c (or of any cell). */
static double cell_seconds(const struct runner *r, int c)
{
    double sum = 0, all = 0;
    int n = 0, na = 0;
    for (size_t i = 0; i < r->nslots; i++) {
        if (r->slots[i].elapsed_s <= 0)
            continue;
        all += r->slots[i].elapsed_s;
        na++;
        if (r->slots[i].cell == c) {
            sum += r->slots[i].elapsed_s;
            n++;
        }
    }
    return n ? sum / n : na ? all / na : -1;
}

void runner_update_progress(struct runner *r)
{
    const struct suite_plan *p = r->p;
    struct exp_progress view = { .cells = r->view, .ncells = p->ncells }, *pr = &view;
    int total = 0, done = 0;
    double eta = 0;
    bool eta_known = true;
    for (size_t c = 0; c < p->ncells; c++) {
        const struct cell_state *s = &r->cs[c];
        struct exp_cell *pc = &r->view[c];
        snprintf(pc->label, sizeof pc->label, "%s", p->cells[c].label);
        if (r->only_group >= 0 && p->cells[c].group != r->only_group) {
            pc->planned = pc->finished = pc->failed = 0;    /* another kernel's: not this guest's */
            continue;
        }
        pc->finished = s->finished;
        pc->failed = s->failed;
        pc->has_mean = s->nvalues >= 2;
        pc->mean = s->mean;
        pc->ci_pct = s->ci_pct;
        int expect = (int)p->runs_min > s->planned ? (int)p->runs_min : s->planned;
        if (!suite_cell_wants_run(p, s) && s->finished >= (int)p->runs_min)
            expect = s->planned;
        pc->planned = expect;
        pc->state = s->converged ? "converged" : (p->target_ci > 0 && s->at_max) ? "at maximum" : "";
        total += expect;
        done += s->finished;
        int left = expect - s->finished;
        double secs = cell_seconds(r, (int)c);
        if (left > 0) {
            if (secs < 0)
                eta_known = false;
            else
                eta += left * secs;
        }
    }
    pr->runs_planned = total;
    pr->finished_total = done;
    pr->run_no = done + 1 > total ? total : done + 1;
    int round = 0;
    for (size_t i = 0; i < r->nslots; i++)
        if (r->slots[i].round > round)
            round = r->slots[i].round;
    pr->round = round;
    pr->rounds = (int)p->runs_max;
    pr->eta_s = eta_known ? eta : -1;
    if (r->ev->progress)
        r->ev->progress(r->ev->arg, pr);
}

void runner_cell_meta(const struct runner *r, int cell, struct kv_list *meta)
{
    const struct suite_cell *c = &r->p->cells[cell];
    pm_kv_set(meta, "suite.uuid", r->suite.uuid);
    pm_kv_set(meta, "suite.name", r->suite.name);
    pm_kv_setf(meta, "suite.id", "%lld", (long long)r->suite.id);
    pm_kv_set(meta, "suite.cell", c->label);
    pm_kv_setf(meta, "suite.cell_index", "%d", cell);
    for (size_t i = 0; i < c->axes.n; i++) {
        char key[128];
        snprintf(key, sizeof key, "axis.%s", c->axes.v[i].key);
        pm_kv_set(meta, key, c->axes.v[i].value);
    }
    if (r->kernel_meta)
        for (size_t i = 0; i < r->kernel_meta[c->group].n; i++)
            pm_kv_set(meta, r->kernel_meta[c->group].v[i].key, r->kernel_meta[c->group].v[i].value);
}

static void fill_meta(const struct runner *r, const struct suite_slot *s, struct kv_list *meta)
{
    runner_cell_meta(r, s->cell, meta);
    pm_kv_setf(meta, "suite.round", "%d", s->round);
    pm_kv_setf(meta, "suite.seq", "%lld", (long long)s->seq);
}

/* The title of a slot's headline value: the workload's, or the unit of
 * the figure a record cell follows (its own or its runs'). */
static const char *slot_title(const struct suite_plan *p, const struct suite_slot *s)
{
    const struct suite_cell *c = &p->cells[s->cell];
    bool own = s->own_headline || strcmp(c->headline, c->wl->headline) != 0;
    return own && s->unit[0] ? s->unit : c->wl->headline_title;
}

/* One planned run. Returns the session's status for it. */
static int execute_slot(struct runner *r, const struct suite_slot *s, int *abort_sig)
{
    const struct suite_cell *c = &r->p->cells[s->cell];
    struct cell_run cr;
    struct pm_err err;
    if (suite_cell_prepare(r->p, c, &cr, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite: %s\n", err.msg);
        return 2;
    }
    struct kv_list meta = { 0 };
    fill_meta(r, s, &meta);
    struct run_plan plan = { .wl = c->wl, .wl_state = cr.wl_state };
    exp_run_opts_to_plan(&cr.ro, &plan);
    struct cell_push cp = { r, &cr.ro };
    if (cr.ro.push_url) {
        plan.after_store = push_run;
        plan.after_store_arg = &cp;
    }
    plan.runs = 1;
    plan.quiet = true;
    plan.on_begin = link_run;
    plan.on_tick = on_tick;
    plan.hook_arg = r;
    plan.extra_meta = &meta;
    r->linking_seq = s->seq;
    if (r->ev->run_start)
        r->ev->run_start(r->ev->arg, s->cell);
    struct run_outcome o;
    harness_session_execute(&r->rs, &plan, &o);
    pm_kv_free(&meta);
    suite_cell_release(&cr);
    if (o.error) {
        char line[RUN_OUTCOME_LINE];
        harness_outcome_error(&o, line, sizeof line);
        exp_say(r->ev, EXP_LOG, "pressmark: %s\n", line);
    }
    *abort_sig = o.abort_sig;
    return o.abort_sig ? 128 + o.abort_sig : o.error ? 2 : o.some_failed ? 1 : 0;
}

/* Run the group's cells here, round after round, until it is complete.
 * Returns 0, or 2 for a harness error; *abort_sig, *worst as they came. */
static int runner_run_group(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst)
{
    (void)o;           /* the local backend needs none of the suite run options */
    const struct suite_plan *p = r->p;
    struct pm_err err;
    /* The slots are read again whenever they may have changed: after a
     * run (for its progress line, and then for the next step) and after
     * planning more. */
    bool stale = true;
    for (;;) {
        if (stale && runner_reload(r, &err) < 0) {
            exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
            return 2;
        }
        stale = false;
        const struct suite_slot *s = pending(r, group);
        if (!s) {
            int added = plan_more(r, group, &err);
            if (added < 0) {
                exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
                return 2;
            }
            if (added == 0)
                return 0;
            stale = true;
            continue;
        }
        struct suite_slot slot = *s;
        runner_update_progress(r);
        int one = execute_slot(r, &slot, abort_sig);
        stale = runner_reload(r, &err) < 0;
        if (!stale)
            runner_update_progress(r);
        for (size_t i = 0; i < r->nslots; i++)
            if (r->slots[i].seq == slot.seq && r->ev->run_end)
                r->ev->run_end(r->ev->arg, slot.cell, r->slots[i].status[0] ? r->slots[i].status : "not started",
                                 r->slots[i].has_value, r->slots[i].value, slot_title(p, &r->slots[i]));
        if (*abort_sig)
            return 0;
        if (one == 2)
            return 2;
        if (one > *worst)
            *worst = one;
    }
}

/* Cells run here, on the running kernel. */
const struct exp_backend exp_backend_local = { .name = "local", .run_group = runner_run_group };
