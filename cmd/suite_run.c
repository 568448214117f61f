#include "cmd/suite_run.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "cmd/progress.h"
#include "cmd/suite_runner.h"
#include "harness/run.h"
#include "lib/json.h"
#include "lib/timeutil.h"
#include "reports/stats.h"

void suite_cell_states(const struct suite_plan *p, const struct suite_slot *slots, size_t nslots,
                       struct cell_state *cs)
{
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
        if (stats_mean_ci(c->values, c->nvalues, &c->mean, &c->ci_pct) < 0)
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
        fprintf(stderr, "pressmark suite: %s\n", err.msg);
}

static void on_tick(void *arg, const struct series_table *t, uint64_t t_ns, const struct run_live *live)
{
    struct runner *r = arg;
    progress_tick(&r->prog, t, t_ns, live);
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
    struct progress *pr = &r->prog;
    pthread_mutex_lock(&pr->mu);
    int total = 0, done = 0;
    double eta = 0;
    bool eta_known = true;
    for (size_t c = 0; c < p->ncells && c < pr->ncells; c++) {
        const struct cell_state *s = &r->cs[c];
        struct progress_cell *pc = &pr->cells[c];
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
    pthread_mutex_unlock(&pr->mu);
}

void runner_cell_meta(const struct runner *r, int cell, struct kv_list *meta)
{
    const struct suite_cell *c = &r->p->cells[cell];
    kv_set(meta, "suite.uuid", r->suite.uuid);
    kv_set(meta, "suite.name", r->suite.name);
    kv_setf(meta, "suite.id", "%lld", (long long)r->suite.id);
    kv_set(meta, "suite.cell", c->label);
    kv_setf(meta, "suite.cell_index", "%d", cell);
    for (size_t i = 0; i < c->axes.n; i++) {
        char key[128];
        snprintf(key, sizeof key, "axis.%s", c->axes.v[i].key);
        kv_set(meta, key, c->axes.v[i].value);
    }
    if (r->kernel_meta)
        for (size_t i = 0; i < r->kernel_meta[c->group].n; i++)
            kv_set(meta, r->kernel_meta[c->group].v[i].key, r->kernel_meta[c->group].v[i].value);
}

static void fill_meta(const struct runner *r, const struct suite_slot *s, struct kv_list *meta)
{
    runner_cell_meta(r, s->cell, meta);
    kv_setf(meta, "suite.round", "%d", s->round);
    kv_setf(meta, "suite.seq", "%lld", (long long)s->seq);
}

/* One planned run. Returns the session's status for it. */
static int execute_slot(struct runner *r, const struct suite_slot *s, int *abort_sig)
{
    const struct suite_cell *c = &r->p->cells[s->cell];
    struct cell_run cr;
    struct pm_err err;
    if (suite_cell_prepare(r->p, c, &cr, &err) < 0) {
        fprintf(stderr, "pressmark suite: %s\n", err.msg);
        return 2;
    }
    struct kv_list meta = { 0 };
    fill_meta(r, s, &meta);
    struct run_plan plan = { .wl = c->wl, .wl_state = cr.wl_state };
    run_opts_to_plan(&cr.ro, &plan);
    plan.runs = 1;
    plan.quiet = true;
    plan.on_begin = link_run;
    plan.on_tick = on_tick;
    plan.hook_arg = r;
    plan.extra_meta = &meta;
    r->linking_seq = s->seq;
    progress_run_start(&r->prog, s->cell);
    int rc = run_session_execute(&r->rs, &plan, abort_sig);
    kv_free(&meta);
    suite_cell_release(&cr);
    return rc;
}

static void print_diff(const char *old, const char *new)
{
    /* Lines of one not in the other, each way: enough to see what changed
     * in a file of a few dozen lines. */
    const char *sides[2][2] = { { old, new }, { new, old } };
    for (int s = 0; s < 2; s++) {
        const char *a = sides[s][0], *b = sides[s][1];
        for (const char *l = a; *l;) {
            size_t n = strcspn(l, "\n");
            bool found = false;
            for (const char *m = b; *m && !found;) {
                size_t k = strcspn(m, "\n");
                found = k == n && strncmp(l, m, n) == 0;
                m += k + (m[k] ? 1 : 0);
            }
            if (!found)
                fprintf(stderr, "  %c %.*s\n", s ? '+' : '-', (int)n, l);
            l += n + (l[n] ? 1 : 0);
        }
    }
}

/* Every planned run of the stored suite names a cell the new file has. */
static bool same_cells(struct runner *r, const struct suite_rec *old, struct pm_err *err)
{
    struct suite_slot *v;
    size_t n;
    if (suites_slots(&r->rs.db, old->id, &v, &n, err) < 0)
        return false;
    bool same = true;
    for (size_t i = 0; i < n; i++)
        if ((size_t)v[i].cell >= r->p->ncells)
            same = false;
    free(v);
    return same;
}

static int open_suite(struct runner *r, const char *path, const struct suite_run_opts *o, bool *done_already)
{
    const struct suite_plan *p = r->p;
    struct pm_err err;
    *done_already = false;
    struct suite_rec old;
    int found = suites_latest(&r->rs.db, p->name, &old, &err);
    if (found < 0) {
        fprintf(stderr, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    if (found && strcmp(old.state, "running") == 0) {
        if (strcmp(old.digest, p->file.digest) == 0 || o->cont) {
            if (strcmp(old.digest, p->file.digest) != 0) {
                if (!same_cells(r, &old, &err)) {
                    fprintf(stderr, "pressmark suite run: --continue: %s has fewer cells than suite %lld had; "
                            "continuing takes changes that keep the cells (runs, target-ci, order, question)\n",
                            path, (long long)old.id);
                    suite_rec_free(&old);
                    return 2;
                }
                fprintf(stderr, "pressmark: %s changed since suite %lld started; continuing it (--continue):\n", path,
                        (long long)old.id);
                print_diff(old.text, p->file.canonical);
                if (suites_update_file(&r->rs.db, old.id, p->file.digest, p->file.canonical, &err) < 0) {
                    fprintf(stderr, "pressmark suite run: %s\n", err.msg);
                    suite_rec_free(&old);
                    return 2;
                }
            }
            r->suite = old;
            fprintf(stderr, "pressmark: continuing suite %lld (%s)\n", (long long)old.id, old.name);
            return 0;
        }
        fprintf(stderr, "pressmark: %s changed since suite %lld started, so it runs as a new suite "
                "(--continue would continue suite %lld with it):\n", path, (long long)old.id, (long long)old.id);
        print_diff(old.text, p->file.canonical);
    } else if (found && strcmp(old.digest, p->file.digest) == 0 && !o->again) {
        fprintf(stderr, "pressmark: suite %lld (%s) is complete; 'pressmark suite status %lld' shows it, "
                "--again runs it anew\n", (long long)old.id, old.name, (long long)old.id);
        r->suite = old;
        *done_already = true;
        return 0;
    }
    if (found)
        suite_rec_free(&old);
    memset(&r->suite, 0, sizeof r->suite);
    snprintf(r->suite.name, sizeof r->suite.name, "%s", p->name);
    snprintf(r->suite.path, sizeof r->suite.path, "%s", path);
    snprintf(r->suite.digest, sizeof r->suite.digest, "%s", p->file.digest);
    r->suite.text = strdup(p->file.canonical);
    uint64_t seed = p->seed;
    if (o->guest) {
        /* A guest's suite is its host's: the same UUID, the same order. */
        snprintf(r->suite.uuid, sizeof r->suite.uuid, "%s", o->suite_uuid);
        seed = o->seed;
    } else if (!p->has_seed && getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        seed = pm_now_ns();
    }
    /* SQLite integers are signed: the seed is kept below 2^63. */
    r->suite.seed = seed & 0x7fffffffffffffffull;
    if (!r->suite.text || suites_create(&r->rs.db, &r->suite, &err) < 0) {
        fprintf(stderr, "pressmark suite run: %s\n", r->suite.text ? err.msg : "out of memory");
        return 2;
    }
    for (size_t i = 0; i < p->ncells; i++) {
        char *axes = NULL;
        size_t alen;
        FILE *f = open_memstream(&axes, &alen);
        if (!f)
            return 2;
        struct jw j;
        jw_init(&j, f, false);
        jw_object_begin(&j, NULL);
        for (size_t k = 0; k < p->cells[i].axes.n; k++)
            jw_string(&j, p->cells[i].axes.v[k].key, p->cells[i].axes.v[k].value);
        jw_object_end(&j);
        jw_end(&j);
        fclose(f);
        axes[strcspn(axes, "\n")] = '\0';
        int rc = suites_put_cell(&r->rs.db, r->suite.id, (int)i, p->cells[i].label, p->cells[i].wl->name,
                                 p->cells[i].headline, axes, &err);
        free(axes);
        if (rc < 0) {
            fprintf(stderr, "pressmark suite run: %s\n", err.msg);
            return 2;
        }
    }
    fprintf(stderr, "pressmark: suite %lld (%s): %zu cells, %s, order seed %llu\n", (long long)r->suite.id,
            r->suite.name, p->ncells, p->order == ORDER_INTERLEAVED ? "interleaved" : "sequential",
            (unsigned long long)r->suite.seed);
    return 0;
}

/* The metadata the host gave a guest's runs (its kernel, the VM). */
static int load_guest_meta(struct runner *r, const struct suite_run_opts *o, struct pm_err *err)
{
    FILE *f = fopen(o->meta_path, "re");
    if (!f)
        return pm_errf(err, "--guest-meta %s: %s", o->meta_path, strerror(errno));
    r->kernel_meta = calloc(r->p->ngroups, sizeof *r->kernel_meta);
    char line[1024];
    while (r->kernel_meta && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (eq) {
            *eq = '\0';
            kv_set(&r->kernel_meta[o->group], line, eq + 1);
        }
    }
    fclose(f);
    return r->kernel_meta ? 0 : pm_errf(err, "out of memory");
}

/* Run the group's cells here, round after round, until it is complete.
 * Returns 0, or 2 for a harness error; *abort_sig, *worst as they came. */
int runner_run_group(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst)
{
    const struct suite_plan *p = r->p;
    struct pm_err err;
    /* The slots are read again whenever they may have changed: after a
     * run (for its progress line, and then for the next step) and after
     * planning more. */
    bool stale = true;
    for (;;) {
        if (stale && runner_reload(r, &err) < 0) {
            fprintf(stderr, "pressmark suite run: %s\n", err.msg);
            return 2;
        }
        stale = false;
        const struct suite_slot *s = pending(r, group);
        if (!s) {
            int added = plan_more(r, group, &err);
            if (added < 0) {
                fprintf(stderr, "pressmark suite run: %s\n", err.msg);
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
            if (r->slots[i].seq == slot.seq && !o->quiet)
                progress_run_end(&r->prog, slot.cell, r->slots[i].status[0] ? r->slots[i].status : "not started",
                                 r->slots[i].has_value, r->slots[i].value, p->cells[slot.cell].wl->headline_title);
        if (*abort_sig)
            return 0;
        if (one == 2)
            return 2;
        if (one > *worst)
            *worst = one;
    }
}

int suite_run(const char *path, const struct suite_run_opts *o)
{
    struct suite_plan p;
    struct pm_err err;
    if (suite_plan_load(path, NULL, &p, &err) < 0) {
        fprintf(stderr, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    if (o->guest && (o->group < 0 || (size_t)o->group >= p.ngroups)) {
        fprintf(stderr, "pressmark suite run: --kernel-group %d: %s has %zu kernel groups (accepted: 0 to %zu)\n",
                o->group, path, p.ngroups, p.ngroups ? p.ngroups - 1 : 0);
        suite_plan_free(&p);
        return 2;
    }
    struct runner r = { .p = &p, .only_group = o->guest ? o->group : -1 };
    if (o->guest && o->meta_path[0] && load_guest_meta(&r, o, &err) < 0) {
        fprintf(stderr, "pressmark suite run: %s\n", err.msg);
        suite_kernels_free(&r);
        suite_plan_free(&p);
        return 2;
    }
    /* Every kernel is found before anything runs or boots. */
    if (p.has_kernels && !o->guest && suite_kernels_check(&r, o) < 0) {
        suite_kernels_free(&r);
        suite_plan_free(&p);
        return 2;
    }
    run_block_signals();
    char what[300];
    snprintf(what, sizeof what, "suite %s", p.name);
    int rc = run_session_open(&r.rs, pm_db_path(), what);
    if (rc != 0) {
        suite_kernels_free(&r);
        suite_plan_free(&p);
        return rc;
    }
    r.cs = calloc(p.ncells, sizeof *r.cs);
    bool done_already = false;
    if (!r.cs)
        rc = 2;
    else
        rc = open_suite(&r, path, o, &done_already);
    char title[300];
    snprintf(title, sizeof title, "suite %lld (%s)", (long long)r.suite.id, p.name);
    progress_init(&r.prog, stderr, !o->quiet && isatty(STDERR_FILENO), title, p.ncells);
    int worst = 0, abort_sig = 0;
    bool complete = !done_already;
    if (rc == 0 && !done_already && runner_reload(&r, &err) < 0) {
        fprintf(stderr, "pressmark suite run: %s\n", err.msg);
        rc = 2;
    }
    for (size_t g = 0; rc == 0 && !done_already && !abort_sig && g < p.ngroups; g++) {
        if (o->guest && (int)g != o->group)
            continue;
        if (!o->guest && p.has_kernels && !r.kernels[g].running) {
            if (runner_group_done(&r, (int)g))
                continue;
            if (p.backend == BACKEND_HOST) {
                complete = false;   /* its kernel has to be booted first */
                continue;
            }
            rc = suite_vm_group(&r, (int)g, o, &abort_sig, &worst);
        } else {
            rc = runner_run_group(&r, (int)g, o, &abort_sig, &worst);
        }
    }
    if (rc == 0 && !done_already && !abort_sig && complete && !o->guest &&
        suites_set_state(&r.rs.db, r.suite.id, "complete", &err) < 0) {
        fprintf(stderr, "pressmark suite run: %s\n", err.msg);
        rc = 2;
    }
    if (!o->quiet && !done_already)
        progress_done(&r.prog);
    if (abort_sig) {
        int left = 0;
        for (size_t c = 0; c < p.ncells; c++)
            left += r.prog.cells[c].planned - r.prog.cells[c].finished;
        fprintf(stderr, "pressmark: suite %lld interrupted by SIG%s with %d runs left; environment restored; "
                "'pressmark suite run %s' continues it\n", (long long)r.suite.id, sigabbrev_np(abort_sig), left, path);
        rc = 128 + abort_sig;
    } else if (rc == 0 && !done_already && complete) {
        fprintf(stderr, "pressmark: suite %lld (%s) complete\n", (long long)r.suite.id, p.name);
        rc = worst;
        if (!o->guest && p.backend == BACKEND_HOST && p.has_kernels && o->reboot)
            rc = suite_host_finish(&r, path, o) < 0 ? 2 : rc;
    } else if (rc == 0 && !done_already) {
        /* The host backend, with kernels still to boot. */
        rc = suite_host_next(&r, path, o) < 0 ? 2 : worst;
    }
    progress_free(&r.prog);
    suite_cell_states_free(r.cs, p.ncells);
    free(r.cs);
    free(r.slots);
    suite_rec_free(&r.suite);
    run_session_close(&r.rs);
    suite_kernels_free(&r);
    suite_plan_free(&p);
    return rc;
}
