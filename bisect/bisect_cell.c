/* A bisection's kernel measured: its batches (one suite, one boot each:
 * the cell's settings, kernel = the candidate, runs = the runs a boot),
 * run by suite_run with the suite file's backend, and what their runs
 * give judged after each. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bisect/bisect_int.h"
#include "experiment/backend.h"
#include "experiment/suite.h"
#include "kernels/find.h"
#include "kernels/spec.h"
#include "lib/hash.h"
#include "store/runs.h"
#include "store/suites.h"

/* One "key = value" line; a value with a comma is quoted, as a list
 * item would be. -1 for a value a suite file cannot hold. */
static int put(FILE *f, const char *key, const char *value)
{
    if (strchr(value, '\n') || (strchr(value, ',') && strchr(value, '"')))
        return -1;
    fprintf(f, strchr(value, ',') ? "%s = \"%s\"\n" : "%s = %s\n", key, value);
    return 0;
}

/* The cell as a batch's suite has it, but its name, runs, kernel and
 * label: the suite-wide keys that decide where it runs ([global]) and
 * the part's settings. What a kernel's key digests. */
static char *cell_text(const struct suite_plan *p, const struct suite_cell *c, bool global)
{
    char *t = NULL;
    size_t len;
    FILE *f = open_memstream(&t, &len);
    if (!f)
        return NULL;
    const struct suite_group *g = &p->groups[c->group];
    int bad = 0;
    if (global) {
        fprintf(f, "backend = %s\n", p->backend->name);
        bad |= exp_backend_keys_text(p, f);
        fprintf(f, "vm-timeout = %.0fs\n", p->vm_timeout_s);
    } else {
        fprintf(f, "workload = %s\nvm-memory = %llu\nvm-cpus = %u\n", c->wl->name, (unsigned long long)g->vm_memory,
                g->vm_cpus);
        if (g->vm_append[0])
            bad |= put(f, "vm-append", g->vm_append);
        if (g->vm_timeout_s > 0)
            fprintf(f, "vm-timeout = %.0fs\n", g->vm_timeout_s);
        if (c->command)
            bad |= put(f, "command", c->command);
        for (size_t i = 0; i < c->nsettings; i++)
            bad |= put(f, c->settings[i].key, c->settings[i].value);
    }
    if (fclose(f) != 0 || bad) {
        free(t);
        return NULL;
    }
    return t;
}

/* What makes a kernel itself: a package's name and version, a file's
 * place, size and time, a bzImage's content and its modules. */
static int identity(const char *spec, char *buf, size_t len, struct pm_err *err)
{
    struct kernel_spec ks;
    struct kernel_info ki;
    if (kernel_spec_parse(spec, &ks, err) < 0)
        return -1;
    if (ks.kind == KERNEL_RUNNING)
        return pm_errf(err, "kernel = running: a bisection's kernels boot (accepted: packages, package files, bzImages)");
    if (kernel_find(&ks, &ki, err) < 0)
        return -1;
    struct stat st;
    char real[PATH_MAX];
    if (ks.kind == KERNEL_PACKAGE)
        snprintf(buf, len, "package %s=%s", ki.package, ki.version);
    else if (ks.kind == KERNEL_DEB && realpath(ks.path, real) && stat(real, &st) == 0)
        snprintf(buf, len, "deb %s %lld %lld.%09ld", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                 st.st_mtim.tv_nsec);
    else if (ks.kind == KERNEL_BZIMAGE)
        snprintf(buf, len, "bzImage %s@%s", ki.build_id, ks.modules);
    else
        snprintf(buf, len, "%s", spec);
    kernel_info_free(&ki);
    return 0;
}

int bisect_kernel_key(const struct bctx *c, const char *spec, char *key, size_t len, struct pm_err *err)
{
    char id[PATH_MAX + 300];
    if (identity(spec, id, sizeof id, err) < 0)
        return -1;
    char *g = cell_text(&c->plan, c->cell, true), *b = cell_text(&c->plan, c->cell, false);
    if (!g || !b) {
        free(g);
        free(b);
        return pm_errf(err, "cell '%s': a setting a generated suite cannot hold", c->cell->label);
    }
    uint64_t h = pm_fnv1a(PM_FNV1A_INIT, g, strlen(g) + 1);
    h = pm_fnv1a(h, b, strlen(b) + 1);
    h = pm_fnv1a(h, id, strlen(id) + 1);
    free(g);
    free(b);
    snprintf(key, len, "%016llx", (unsigned long long)h);
    return 0;
}

void bisect_label(const struct bctx *c, const char *kernel, char *buf, size_t len)
{
    snprintf(buf, len, "%s @ %s", c->cell->label, kernel);
}

/* A batch's suite: [global] with its name and runs, the cell's part with
 * its kernel and label. */
static char *batch_text(const struct bctx *c, const char *name, const char *spec, const char *label)
{
    char *g = cell_text(&c->plan, c->cell, true), *b = cell_text(&c->plan, c->cell, false), *t = NULL;
    size_t len;
    FILE *f = g && b ? open_memstream(&t, &len) : NULL;
    int bad = !f;
    if (f) {
        fprintf(f, "[global]\nname = %s\nruns = %d\n%s\n[%s]\n", name, c->rec.runs, g, c->cell->part);
        bad |= put(f, "kernel", spec) | put(f, "label", label);
        fputs(b, f);
        bad |= fclose(f) != 0;
    }
    free(g);
    free(b);
    if (bad) {
        free(t);
        t = NULL;
    }
    return t;
}

/* Is the batch's suite complete? */
static bool batch_complete(struct bctx *c, const char *name)
{
    struct suite_rec s;
    struct pm_err err;
    if (suites_latest(&c->rs.db, name, &s, &err) != 1)
        return false;
    bool done = strcmp(s.state, "complete") == 0;
    store_suite_rec_free(&s);
    return done;
}

/* A stored batch continued is the batch batch_text makes now: a
 * database is data, so its text is never run. The text made from the
 * operator's suite file runs, and the stored one must equal it (the
 * same cell, runs, kernel and label): 0, or -1 with err. */
static int same_batch(const struct bctx *c, const char *key, int n, const char *name, const char *stored,
                      const char *made, struct pm_err *err)
{
    char want[128];
    snprintf(want, sizeof want, "bisect-%s-%d", key, n);
    if (made && strcmp(name, want) == 0 && strcmp(stored, made) == 0)
        return 0;
    return pm_errf(err, "bisection %lld: the stored batch %d of kernel key %s (suite '%.140s') is not the batch "
                   "this suite file makes for it, so it is not run (accepted: a batch pressmark made from this "
                   "suite file, with these --runs)", (long long)c->rec.id, n, key, name);
}

/* One boot: the kernel's unfinished batch continued, or its next one.
 * suite_run's exit status. */
static int run_batch(struct bctx *c, const char *key, const char *spec, const char *label)
{
    struct pm_err err;
    int n;
    char name[128], *stored = NULL, *text = NULL;
    if (bisects_batch_count(&c->rs.db, key, &n, &err) < 0)
        goto fail;
    if (n > 0 && bisects_batch_get(&c->rs.db, key, n, name, sizeof name, &stored, &err) < 0)
        goto fail;
    if (stored && !batch_complete(c, name)) {
        text = batch_text(c, name, spec, label);
        if (same_batch(c, key, n, name, stored, text, &err) < 0)
            goto fail;
    } else {
        snprintf(name, sizeof name, "bisect-%s-%d", key, n + 1);
        if (!(text = batch_text(c, name, spec, label))) {
            pm_errf(&err, "kernel %s: a suite file cannot hold its name", spec);
            goto fail;
        }
        if (bisects_batch_add(&c->rs.db, key, n + 1, name, text, &err) < 0)
            goto fail;
    }
    free(stored);
    struct suite_run_opts o = { .text = text, .quiet = c->quiet };
    int rc = suite_run(name, &o, c->ev);
    free(text);
    return rc;
fail:
    free(stored);
    free(text);
    bisect_say(c, "pressmark bisect: %s", err.msg);
    return 2;
}

/* Waits for a reboot into it: the suite's backend boots kernels on this
 * machine, one at a time. */
static bool waits_for_boot(const struct bctx *c, const char *spec)
{
    struct kernel_spec ks;
    struct pm_err err;
    return (c->plan.backend->flags & EXP_BACKEND_REBOOTS) && kernel_spec_parse(spec, &ks, &err) == 0 &&
           !kernel_spec_is_running(&ks);
}

/* What a step's runs say now: its figures and, when decided, verdict. */
static void judge_now(struct bctx *c, struct bisect_step_rec *s, const struct bisect_values *v, bool at_cap)
{
    struct bisect_judgement j;
    bisect_judge(c->good.v, c->good.n, c->bad.v, c->bad.n, v->v, v->n, c->rec.alpha,
                 bisect_looks(c->rec.runs, c->rec.max_runs), at_cap, &j);
    s->p_good = j.p_good;
    s->p_bad = j.p_bad;
    snprintf(s->verdict, sizeof s->verdict, "%s", bisect_verdict_name(j.verdict));
    if (j.verdict == BISECT_CANNOT_TELL)
        snprintf(s->reason, sizeof s->reason, "after %zu runs its p against the good kernel's runs and against the bad "
                 "one's do not single one out at %.3g", v->n, j.level);
}

/* Where a kernel's figures stand; true when it is measured enough. A
 * batch that brought no runs of the metric ends it too (a kernel that
 * did not build, boot or run: skipped with the reason). */
static bool look(struct bctx *c, struct bisect_step_rec *s, const struct bisect_values *v, int batches,
                 size_t before, int *rc)
{
    bool endpoint = strcmp(s->role, "step") != 0;
    s->runs = (int)v->n;
    s->has_mean = v->n > 0;
    double sum = 0;
    for (size_t i = 0; i < v->n; i++)
        sum += v->v[i];
    s->mean = v->n ? sum / (double)v->n : NAN;
    bool stalled = batches > 0 && v->n == before;
    if (endpoint && (int)v->n >= c->rec.runs)
        return true;
    if (!endpoint) {
        bool cap = (int)v->n >= c->rec.max_runs || batches >= (int)bisect_looks(c->rec.runs, c->rec.max_runs);
        judge_now(c, s, v, cap && !stalled);
        if (s->verdict[0])
            return true;
    }
    if (!stalled)
        return false;
    snprintf(s->reason, sizeof s->reason, "%s", v->failed ? v->reason : "its runs stored no such metric");
    if (!v->failed)
        snprintf(s->reason, sizeof s->reason, "its runs stored no %s", c->rec.metric);
    if (!endpoint)
        snprintf(s->verdict, sizeof s->verdict, "skip");
    *rc = endpoint ? 1 : 0;
    return true;
}

int bisect_measure(struct bctx *c, struct bisect_step_rec *s, const char *spec, const char *label)
{
    struct pm_err err;
    size_t before = 0;
    for (int batches = 0;; batches++) {
        struct bisect_values v;
        if (bisects_values(&c->rs.db, s->kernel_key, c->rec.metric, &v, &err) < 0) {
            bisect_say(c, "pressmark bisect: %s", err.msg);
            return 2;
        }
        int rc = 0;
        bool done = look(c, s, &v, batches, before, &rc);
        before = v.n;
        free(v.v);
        if (bisects_update_step(&c->rs.db, c->rec.id, s, &err) < 0) {
            bisect_say(c, "pressmark bisect: %s", err.msg);
            return 2;
        }
        if (done)
            return rc;
        if (waits_for_boot(c, spec)) {
            bisect_say(c, "pressmark: bisect %lld: boot %s next (backend = %s) and run 'pressmark bisect "
                       "--continue FILE' there", (long long)c->rec.id, spec, c->plan.backend->name);
            return 3;
        }
        rc = run_batch(c, s->kernel_key, spec, label);
        if (rc >= 128 || rc == 2)
            return rc;
        s->boots++;             /* this step's boots: runs reused from others' are not */
    }
}
