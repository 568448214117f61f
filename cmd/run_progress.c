#include "cmd/run_progress.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stats/stats.h"
#include "reports/summary.h"
#include "store/runinfo.h"

static void on_begin(void *arg, struct pm_db *db, int64_t run_id)
{
    (void)db;
    (void)run_id;
    struct run_progress *rp = arg;
    progress_run_start(&rp->prog, 0);
}

static void on_tick(void *arg, const struct series_table *t, uint64_t t_ns, const struct run_live *live)
{
    progress_tick(&((struct run_progress *)arg)->prog, t, t_ns, live);
}

static void after_store(void *arg, struct pm_db *db, int64_t run_id)
{
    struct run_progress *rp = arg;
    struct run_info ri;
    struct pm_err err;
    bool has = false;
    double v = 0;
    char status[16] = "?";
    if (store_run_info_load(db, run_id, &ri, &err) == 0) {
        snprintf(status, sizeof status, "%s", ri.status);
        const char *title;
        const char *headline = rp->own_headline ? summary_runs_headline(&ri, 1, &title) : rp->headline;
        const struct metric *m = metric_set_find(&ri.metrics, headline);
        if (rp->own_headline && m)
            snprintf(rp->unit_buf, sizeof rp->unit_buf, "%s", title);
        if (m && strcmp(ri.status, "ok") == 0) {
            has = true;
            v = m->value;
            double *nv = realloc(rp->values, (rp->nvalues + 1) * sizeof *nv);
            if (nv) {
                rp->values = nv;
                rp->values[rp->nvalues++] = v;
            }
        }
        if (ri.ended_ns > ri.started_ns)
            rp->secs += (double)(ri.ended_ns - ri.started_ns) / 1e9;
        store_run_info_free(&ri);
    }
    struct progress *p = &rp->prog;
    pthread_mutex_lock(&p->mu);
    struct exp_cell *c = &p->cells[0];
    c->finished++;
    c->failed += strcmp(status, "ok") != 0;
    if (rp->nvalues >= 2 && stats_mean_ci(rp->values, rp->nvalues, &c->mean, &c->ci_pct) == 0)
        c->has_mean = true;
    p->finished_total = c->finished;
    p->run_no = c->finished + 1 > c->planned ? c->planned : c->finished + 1;
    p->eta_s = rp->secs / c->finished * (c->planned - c->finished);
    pthread_mutex_unlock(&p->mu);
    progress_run_end(p, 0, status, has, v, rp->unit);
    if (rp->prev_after)
        rp->prev_after(rp->prev_arg, db, run_id);
}

void progress_attach(struct run_progress *rp, struct run_plan *plan)
{
    memset(rp, 0, sizeof *rp);
    if (plan->quiet || plan->runs < 2 || !isatty(STDERR_FILENO))
        return;
    rp->on = true;
    char title[300];
    snprintf(title, sizeof title, "%s %s", plan->wl->name, plan->label);
    progress_init(&rp->prog, stderr, true, title, 1);
    snprintf(rp->prog.cells[0].label, sizeof rp->prog.cells[0].label, "%s", plan->label);
    rp->prog.cells[0].planned = (int)plan->runs;
    rp->prog.runs_planned = (int)plan->runs;
    rp->prog.run_no = 1;
    rp->headline = plan->wl->headline;
    rp->unit = plan->wl->headline_title;
    /* A record of figures names its own headline, run by run. */
    rp->own_headline = plan->wl->headline_of && plan->wl->headline_of(plan->wl_state);
    if (rp->own_headline)
        rp->unit = rp->unit_buf;
    rp->prev_after = plan->after_store;
    rp->prev_arg = plan->after_store_arg;
    plan->after_store = after_store;
    plan->after_store_arg = rp;
    plan->on_begin = on_begin;
    plan->on_tick = on_tick;
    plan->hook_arg = rp;
    /* The harness's line per run would break the table: the table logs them. */
    plan->quiet = true;
}

void progress_detach(struct run_progress *rp)
{
    if (!rp->on)
        return;
    progress_done(&rp->prog);
    progress_free(&rp->prog);
    free(rp->values);
    rp->on = false;
}
