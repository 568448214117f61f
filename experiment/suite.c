/* The scheduler: a suite's plan loaded and checked, its suite opened or
 * continued in results.db, each group run here or by the suite's backend
 * (backend.h), and how it ended said. Progress goes out as events. */
#include "experiment/suite.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "experiment/backend.h"
#include "experiment/kernels.h"
#include "experiment/runner.h"
#include "harness/run.h"
#include "lib/json.h"
#include "lib/timeutil.h"
#include "store/db.h"

static void print_diff(const struct exp_events *ev, const char *old, const char *new)
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
                exp_say(ev, EXP_LOG, "  %c %.*s\n", s ? '+' : '-', (int)n, l);
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
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    if (found && strcmp(old.state, "running") == 0) {
        if (strcmp(old.digest, p->file.digest) == 0 || o->cont) {
            if (strcmp(old.digest, p->file.digest) != 0) {
                if (!same_cells(r, &old, &err)) {
                    exp_say(r->ev, EXP_LOG, "pressmark suite run: --continue: %s has fewer cells than suite %lld had; "
                            "continuing takes changes that keep the cells (runs, target-ci, order, question)\n",
                            path, (long long)old.id);
                    store_suite_rec_free(&old);
                    return 2;
                }
                exp_say(r->ev, EXP_LOG, "pressmark: %s changed since suite %lld started; continuing it (--continue):\n", path,
                        (long long)old.id);
                print_diff(r->ev, old.text, p->file.canonical);
                if (suites_update_file(&r->rs.db, old.id, p->file.digest, p->file.canonical, &err) < 0) {
                    exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
                    store_suite_rec_free(&old);
                    return 2;
                }
            }
            r->suite = old;
            exp_say(r->ev, EXP_LOG, "pressmark: continuing suite %lld (%s)\n", (long long)old.id, old.name);
            return 0;
        }
        exp_say(r->ev, EXP_LOG, "pressmark: %s changed since suite %lld started, so it runs as a new suite "
                "(--continue would continue suite %lld with it):\n", path, (long long)old.id, (long long)old.id);
        print_diff(r->ev, old.text, p->file.canonical);
    } else if (found && strcmp(old.digest, p->file.digest) == 0 && !o->again) {
        exp_say(r->ev, EXP_LOG, "pressmark: suite %lld (%s) is complete; 'pressmark suite status %lld' shows it, "
                "--again runs it anew\n", (long long)old.id, old.name, (long long)old.id);
        r->suite = old;
        *done_already = true;
        return 0;
    }
    if (found)
        store_suite_rec_free(&old);
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
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", r->suite.text ? err.msg : "out of memory");
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
            exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
            return 2;
        }
    }
    exp_say(r->ev, EXP_LOG, "pressmark: suite %lld (%s): %zu cells, %s, order seed %llu\n", (long long)r->suite.id,
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
            pm_kv_set(&r->kernel_meta[o->group], line, eq + 1);
        }
    }
    fclose(f);
    return r->kernel_meta ? 0 : pm_errf(err, "out of memory");
}

/* Which backend runs the groups whose kernel is not the one running: the
 * suite's (backend = NAME), but in a guest and without kernels here. */
static const struct exp_backend *backend_of(const struct suite_plan *p, const struct suite_run_opts *o)
{
    if (o->guest || !p->has_kernels)
        return &exp_backend_local;
    return p->backend;
}

/* Each group in the file's order: the running kernel's here, every other
 * one by the backend. Returns 0, or 2 for a harness error. */
static int run_groups(struct runner *r, const struct exp_backend *b, const struct suite_run_opts *o, int *abort_sig,
                      int *worst)
{
    const struct suite_plan *p = r->p;
    int rc = 0;
    for (size_t g = 0; rc == 0 && !*abort_sig && g < p->ngroups; g++) {
        if (r->only_group >= 0 && (int)g != r->only_group)
            continue;
        /* A backend's own command (o->backend_cmd) deals in its groups
         * only: no cell runs here. */
        if (o->backend_cmd && r->kernels[g].running)
            continue;
        if (b != &exp_backend_local && !r->kernels[g].running) {
            if (runner_group_done(r, (int)g))
                continue;
            rc = b->run_group(r, (int)g, o, abort_sig, worst);
        } else {
            rc = exp_backend_local.run_group(r, (int)g, o, abort_sig, worst);
        }
    }
    return rc;
}

/* The suite's plan, checked, and its kernels found, before anything runs
 * or boots. 0, or 2 after saying why (p freed). */
static int load_suite(struct runner *r, struct suite_plan *p, const char *path, const struct suite_run_opts *o)
{
    struct pm_err err;
    if (suite_plan_load(path, o->text, p, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    r->p = p;
    if (o->guest && (o->group < 0 || (size_t)o->group >= p->ngroups)) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: --kernel-group %d: %s has %zu kernel groups (accepted: 0 to %zu)\n",
                o->group, path, p->ngroups, p->ngroups ? p->ngroups - 1 : 0);
        suite_plan_free(p);
        return 2;
    }
    if (o->guest && o->meta_path[0] && load_guest_meta(r, o, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        suite_kernels_free(r);
        suite_plan_free(p);
        return 2;
    }
    /* A backend's own command takes a suite of that backend only. */
    if (o->backend_cmd && strcmp(o->backend_cmd, p->backend->name) != 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s: backend = %s: pressmark %s takes a suite with backend = %s\n",
                path, p->backend->name, o->backend_cmd, o->backend_cmd);
        suite_plan_free(p);
        return 2;
    }
    /* Its groups are kernels': a suite without any has none to submit or
     * collect (and no kernels to look them up in). */
    if (o->backend_cmd && !p->has_kernels) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s: pressmark %s takes a suite with kernels (accepted: a kernel = "
                "key in [global] or a part)\n", path, o->backend_cmd);
        suite_plan_free(p);
        return 2;
    }
    /* What the backend needs ready (a lab, a token), before anything is
     * written. */
    if (p->has_kernels && !o->guest && p->backend->open && p->backend->open(p, o, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        suite_plan_free(p);
        return 2;
    }
    if (p->has_kernels && !o->guest && suite_kernels_check(r, o) < 0) {
        suite_kernels_free(r);
        suite_plan_free(p);
        return 2;
    }
    return 0;
}

/* The suite's end: stored complete when it is, and the line that says how
 * it ended. Returns the exit status. */
static int end_suite(struct runner *r, const struct exp_backend *b, const char *path, const struct suite_run_opts *o,
                     int rc, int abort_sig, int worst)
{
    const struct suite_plan *p = r->p;
    struct pm_err err;
    bool complete = !r->incomplete;
    if (rc == 0 && !abort_sig && complete && !o->guest &&
        suites_set_state(&r->rs.db, r->suite.id, "complete", &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        rc = 2;
    }
    if (r->ev->end)
        r->ev->end(r->ev->arg);
    if (abort_sig) {
        int left = 0;
        for (size_t c = 0; c < p->ncells; c++)
            left += r->view[c].planned - r->view[c].finished;
        exp_say(r->ev, EXP_LOG, "pressmark: suite %lld interrupted by SIG%s with %d runs left; environment restored; "
                "'pressmark suite run %s' continues it\n", (long long)r->suite.id, sigabbrev_np(abort_sig), left, path);
        return 128 + abort_sig;
    }
    if (rc == 0 && complete) {
        exp_say(r->ev, EXP_LOG, "pressmark: suite %lld (%s) complete\n", (long long)r->suite.id, p->name);
        return b->finish && b->finish(r, path, o) < 0 ? 2 : worst;
    }
    if (rc == 0)        /* kernels still to boot, or jobs to wait for */
        return b->next && b->next(r, path, o) < 0 ? 2 : worst;
    return rc;
}

int suite_run(const char *path, const struct suite_run_opts *o, const struct exp_events *ev)
{
    struct suite_plan p;
    struct runner r = { .ev = ev, .only_group = o->guest ? o->group : -1 };
    int rc = load_suite(&r, &p, path, o);
    if (rc != 0)
        return rc;
    harness_block_signals();
    char what[300];
    snprintf(what, sizeof what, "suite %s", p.name);
    /* The harness's lines are the suite's log (closed after the session). */
    FILE *say = exp_say_file(ev);
    struct pm_err oerr;
    if (harness_session_open(&r.rs, store_db_path(), what, say, &oerr) < 0) {
        exp_say(ev, EXP_LOG, "pressmark: %s\n", oerr.msg);
        if (say)
            fclose(say);
        suite_kernels_free(&r);
        suite_plan_free(&p);
        return 2;
    }
    r.cs = calloc(p.ncells, sizeof *r.cs);
    r.view = calloc(p.ncells, sizeof *r.view);
    bool done_already = false;
    rc = !r.cs || !r.view ? 2 : open_suite(&r, path, o, &done_already);
    char title[300];
    snprintf(title, sizeof title, "suite %lld (%s)", (long long)r.suite.id, p.name);
    if (ev->begin)
        ev->begin(ev->arg, title, p.ncells);
    const struct exp_backend *b = backend_of(&p, o);
    int worst = 0, abort_sig = 0;
    struct pm_err err;
    if (rc == 0 && !done_already && runner_reload(&r, &err) < 0) {
        exp_say(ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        rc = 2;
    }
    if (rc == 0 && !done_already)
        rc = run_groups(&r, b, o, &abort_sig, &worst);
    if (!done_already)
        rc = end_suite(&r, b, path, o, rc, abort_sig, worst);
    suite_cell_states_free(r.cs, p.ncells);
    free(r.cs);
    free(r.view);
    free(r.slots);
    store_suite_rec_free(&r.suite);
    harness_session_close(&r.rs);
    fclose(say);
    suite_kernels_free(&r);
    suite_plan_free(&p);
    return rc;
}
