#include "cmd/progress.h"
#include <stdlib.h>
#include <string.h>
#include "lib/quote.h"
#include "lib/timeutil.h"
#include "lib/units.h"

void progress_init(struct progress *p, FILE *out, bool tty, const char *title, size_t ncells)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->tty = tty;
    pthread_mutex_init(&p->mu, NULL);
    quote_terminal(title, p->title, sizeof p->title);
    p->cells = calloc(ncells ? ncells : 1, sizeof *p->cells);
    p->ncells = p->cells ? ncells : 0;
    p->started_ns = pm_now_ns();
    p->eta_s = -1;
    p->current = -1;
}

void progress_free(struct progress *p)
{
    free(p->cells);
    p->cells = NULL;
    pthread_mutex_destroy(&p->mu);
}

static void fmt_secs(char *buf, size_t len, double s)
{
    if (s < 0)
        snprintf(buf, len, "?");
    else
        pm_fmt_elapsed(buf, len, s, false);
}

/* The whole block; the caller holds the mutex. */
static void draw_locked(struct progress *p)
{
    if (!p->tty)
        return;
    if (p->drawn)
        fprintf(p->out, "\033[%dA", p->drawn);
    int lines = 0;
    char el[32], eta[32];
    fmt_secs(el, sizeof el, (double)(pm_now_ns() - p->started_ns) / 1e9);
    fmt_secs(eta, sizeof eta, p->eta_s);
    char round[64] = "";
    if (p->rounds)
        snprintf(round, sizeof round, ", round %d of at most %d", p->round, p->rounds);
    fprintf(p->out, "\r\033[K%s: run %d of %d%s, elapsed %s, ETA %s\n", p->title, p->run_no, p->runs_planned, round,
            el, eta);
    lines++;
    for (size_t i = 0; i < p->ncells; i++) {
        const struct exp_cell *c = &p->cells[i];
        char label[300], mean[96] = "", m[64];
        quote_terminal(c->label, label, sizeof label);
        pm_fmt_number(m, sizeof m, c->mean);
        if (c->has_mean)
            snprintf(mean, sizeof mean, "%s ±%.1f%%", m, c->ci_pct);
        char failed[32] = "";
        if (c->failed)
            snprintf(failed, sizeof failed, "%d failed ", c->failed);
        fprintf(p->out, "\r\033[K  %c %-28s %3d/%-3d %s%-22s %s\n", (int)i == p->current ? '>' : ' ', label,
                c->finished, c->planned, failed, mean, (int)i == p->current ? "running" : c->state ? c->state : "");
        lines++;
    }
    if (p->current >= 0) {
        char t[32];
        fmt_secs(t, sizeof t, (double)(pm_now_ns() - p->run_started_ns) / 1e9);
        char live[64] = "";
        if (p->live_unit[0])
            snprintf(live, sizeof live, "%.0f %s, ", p->live_rate, p->live_unit);
        fprintf(p->out, "\r\033[K  this run: %s, %sswap in %.0f KB/s, out %.0f KB/s, heartbeat late %.1f ms\n", t,
                live, p->swapin_kbs, p->swapout_kbs, p->beat_ms);
    } else {
        fprintf(p->out, "\r\033[K\n");
    }
    lines++;
    fflush(p->out);
    p->drawn = lines;
    p->last_draw_ns = pm_now_ns();
}

void progress_set(struct progress *p, const struct exp_progress *pr)
{
    pthread_mutex_lock(&p->mu);
    for (size_t c = 0; c < pr->ncells && c < p->ncells; c++)
        p->cells[c] = pr->cells[c];
    p->runs_planned = pr->runs_planned;
    p->finished_total = pr->finished_total;
    p->run_no = pr->run_no;
    p->round = pr->round;
    p->rounds = pr->rounds;
    p->eta_s = pr->eta_s;
    pthread_mutex_unlock(&p->mu);
}

void progress_run_start(struct progress *p, int cell)
{
    pthread_mutex_lock(&p->mu);
    p->current = cell;
    p->run_started_ns = pm_now_ns();
    p->swapin_kbs = p->swapout_kbs = p->beat_ms = p->live_rate = 0;
    p->last_count = 0;
    p->live_unit[0] = '\0';
    p->have_prev = false;
    draw_locked(p);
    pthread_mutex_unlock(&p->mu);
}

void progress_tick(struct progress *p, const struct series_table *t, uint64_t t_ns, const struct run_live *live)
{
    double in = 0, out = 0;
    const struct series *si = series_table_find(t, "vmstat.pswpin"), *so = series_table_find(t, "vmstat.pswpout");
    const struct series *hb = series_table_find(t, "heartbeat.late_max_us");
    if (si)
        in = pm_value_as_double(si->last);
    if (so)
        out = pm_value_as_double(so->last);
    pthread_mutex_lock(&p->mu);
    if (p->have_prev && t_ns > p->last_tick_ns) {
        double dt = (double)(t_ns - p->last_tick_ns) / 1e9;
        /* pswpin/pswpout count pages of 4 KiB. */
        p->swapin_kbs = (in - p->last_in) * 4 / dt;
        p->swapout_kbs = (out - p->last_out) * 4 / dt;
    }
    /* The workload reports its count on its own clock (chat: twice a
     * second), the sampler ticks on another: the rate is taken between
     * changes of the count, and falls to 0 when it stops moving. */
    if (live) {
        if (!p->live_unit[0] || live->count < p->last_count) {
            p->last_count = live->count;
            p->last_count_ns = t_ns;
        } else if (live->count != p->last_count && t_ns > p->last_count_ns) {
            p->live_rate = (double)(live->count - p->last_count) / ((double)(t_ns - p->last_count_ns) / 1e9);
            p->last_count = live->count;
            p->last_count_ns = t_ns;
        } else if (t_ns - p->last_count_ns > 2000000000ull) {
            p->live_rate = 0;
        }
        snprintf(p->live_unit, sizeof p->live_unit, "%s", live->unit);
    }
    /* The heartbeat's worst lateness in this tick: the system's stalls, live. */
    if (hb)
        p->beat_ms = pm_value_as_double(hb->last) / 1000;
    p->last_in = in;
    p->last_out = out;
    p->last_tick_ns = t_ns;
    p->have_prev = true;
    if (pm_now_ns() - p->last_draw_ns > 500000000ull)
        draw_locked(p);
    pthread_mutex_unlock(&p->mu);
}

void progress_run_end(struct progress *p, int cell, const char *status, bool has_value, double value, const char *unit)
{
    pthread_mutex_lock(&p->mu);
    p->current = -1;
    if (cell >= 0 && (size_t)cell < p->ncells) {
        const struct exp_cell *c = &p->cells[cell];
        char label[300], el[32], eta[32], v[96] = "", mean[128] = "", q[64], m[64];
        quote_terminal(c->label, label, sizeof label);
        fmt_secs(el, sizeof el, (double)(pm_now_ns() - p->started_ns) / 1e9);
        fmt_secs(eta, sizeof eta, p->eta_s);
        pm_fmt_quantity(q, sizeof q, value, unit);
        pm_fmt_number(m, sizeof m, c->mean);
        if (has_value)
            snprintf(v, sizeof v, " %s", q);
        if (c->has_mean)
            snprintf(mean, sizeof mean, ", cell mean %s ±%.1f%% after %d", m, c->ci_pct, c->finished - c->failed);
        const char *state = !c->state || !c->state[0] ? "" : strcmp(c->state, "converged") == 0 ? " (converged)"
                          : " (at maximum)";
        /* On a terminal the finished run goes above the table, which is
         * drawn again under it: a log of runs with the live state below. */
        if (p->tty && p->drawn)
            fprintf(p->out, "\033[%dA\r\033[J", p->drawn);
        p->drawn = 0;
        char round[32] = "";
        if (p->rounds)
            snprintf(round, sizeof round, " (round %d)", p->round);
        fprintf(p->out, "%s: run %d of %d%s: %s %s%s%s%s, elapsed %s, ETA %s\n", p->title, p->finished_total,
                p->runs_planned, round, label, status, v, mean, state, el, eta);
    }
    draw_locked(p);
    fflush(p->out);
    pthread_mutex_unlock(&p->mu);
}

void progress_done(struct progress *p)
{
    pthread_mutex_lock(&p->mu);
    p->current = -1;
    draw_locked(p);
    p->drawn = 0;
    pthread_mutex_unlock(&p->mu);
}
