/* A bisection's arguments checked and its candidates listed before
 * anything is written (bad input: one line, exit 2, nothing written). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bisect/bisect.h"
#include "experiment/backend.h"
#include "experiment/plan.h"
#include "harness/catalogue.h"
#include "kernels/candidates.h"
#include "kernels/find.h"
#include "kernels/gitbisect.h"
#include "kernels/spec.h"
#include "lib/alloc.h"
#include "lib/debver.h"
#include "lib/hash.h"

void bisect_plan_free(struct bisect_plan *bp)
{
    store_bisect_rec_free(&bp->rec);
    free(bp->cands);
    bp->cands = NULL;
}

static int add_cand(struct bisect_plan *bp, const char *kernel, const char *version, struct pm_err *err)
{
    struct bisect_candidate_rec *nv = realloc(bp->cands, (bp->ncands + 1) * sizeof *nv);
    if (!nv)
        return pm_errf(err, "out of memory");
    bp->cands = nv;
    snprintf(nv[bp->ncands].kernel, sizeof nv->kernel, "%s", kernel);
    snprintf(nv[bp->ncands++].version, sizeof nv->version, "%s", version);
    return 0;
}

/* The cell (by label; the only one when none is named) and the metric
 * judged (the cell's headline when none is named): one the cell's runs
 * store, by the metric tables: declared, and a workload's metric only
 * when it is this cell's workload's. */
static int pick_cell(const struct bisect_args *a, const struct suite_plan *p, struct bisect_rec *r, struct pm_err *err)
{
    const struct suite_cell *c = NULL;
    for (size_t i = 0; i < p->ncells; i++)
        if (a->cell[0] ? strcmp(p->cells[i].label, a->cell) == 0 : p->ncells == 1)
            c = &p->cells[i];
    if (!c)
        return pm_errf(err, "--cell '%s': %s (accepted: a cell's label, e.g. '%s')", a->cell,
                       a->cell[0] ? "not a cell of the suite" : "the suite has several cells", p->cells[0].label);
    snprintf(r->cell, sizeof r->cell, "%s", c->label);
    snprintf(r->metric, sizeof r->metric, "%s", a->metric[0] ? a->metric : c->headline);
    const char *unit;
    enum metric_dir dir;
    char owner[64];
    snprintf(owner, sizeof owner, "%.*s", (int)strcspn(r->metric, "."), r->metric);
    const struct workload_ops *wl = workload_find(owner);
    if (!catalogue_find(r->metric, &unit, &dir) || (wl && wl != c->wl))
        return pm_errf(err, "--metric '%s': not a metric cell '%s' stores (accepted: its workload's %s.* metrics or a "
                       "source's, as 'pressmark help metrics' lists them)", r->metric, c->label, c->wl->name);
    return 0;
}

/* path resolved (realpath), whole, into out (len bytes): realpath() into
 * a smaller buffer than PATH_MAX overflows it, and _FORTIFY_SOURCE
 * aborts on one. -1 with err (what names the option or file). */
static int resolve(const char *what, const char *path, char *out, size_t len, const char *limit, struct pm_err *err)
{
    char *r = realpath(path, NULL);
    if (!r)
        return pm_errf(err, "%s '%s': %s (accepted: %s)", what, path, strerror(errno), limit);
    size_t n = strlen(r);
    if (n < len)
        memcpy(out, r, n + 1);
    free(r);
    if (n >= len)
        return pm_errf(err, "%s '%s': its resolved path is %zu characters long, more than the %zu it may have "
                       "(accepted: %s)", what, path, n, len - 1, limit);
    return 0;
}

/* A package or package file as an endpoint: found, and its version. A
 * file is named by its resolved path, which must be a kernel = value. */
static int endpoint(const char *opt, const char *v, enum kernel_kind kind, struct kernel_info *ki, char *out, size_t len,
                    struct pm_err *err)
{
    struct kernel_spec ks;
    struct pm_err e;
    const char *want = kind == KERNEL_PACKAGE ? "a linux-image package name" : "a package file PATH.deb";
    char what[32], path[sizeof ks.value];
    snprintf(what, sizeof what, "--%s", opt);
    if (kind == KERNEL_DEB && resolve(what, v, path, sizeof path, "a package file PATH.deb whose resolved path a "
                                      "suite's kernel = holds", err) < 0)
        return -1;
    if (kernel_spec_parse(kind == KERNEL_DEB ? path : v, &ks, &e) < 0 || ks.kind != kind)
        return pm_errf(err, "--%s '%s': not a kernel of this kind (accepted: %s)", opt, v, want);
    if (kernel_find(&ks, ki, &e) < 0)
        return pm_errf(err, "--%s '%s': %s", opt, v, e.msg);
    snprintf(out, len, "%s", kind == KERNEL_DEB ? path : ki->package);
    return 0;
}

static int before(const struct kernel_info *g, const struct kernel_info *b, struct pm_err *err)
{
    if (!debver_valid(g->version) || !debver_valid(b->version) || debver_cmp(g->version, b->version) >= 0)
        return pm_errf(err, "--good %s (%s) is not before --bad %s (%s) in dpkg's version order (accepted: a good "
                       "kernel older than the bad one)", g->package, g->version, b->package, b->version);
    return 0;
}

static int prep_packages(const struct bisect_args *a, struct bisect_plan *bp, struct pm_err *err)
{
    struct kernel_info g, b;
    int rc = endpoint("good", a->good, KERNEL_PACKAGE, &g, bp->rec.good, sizeof bp->rec.good, err);
    if (rc == 0 && (rc = endpoint("bad", a->bad, KERNEL_PACKAGE, &b, bp->rec.bad, sizeof bp->rec.bad, err)) < 0)
        kernel_info_free(&g);
    if (rc < 0)
        return -1;
    char fg[128], fb[128];
    kernel_flavour(g.package, fg, sizeof fg);
    kernel_flavour(b.package, fb, sizeof fb);
    if (!fg[0] || strcmp(fg, fb) != 0)
        rc = pm_errf(err, "--good %s and --bad %s are not of one flavour ('%s', '%s'; accepted: two kernels of one, "
                     "e.g. both -cloud-amd64)", g.package, b.package, fg, fb);
    if (rc == 0)
        rc = before(&g, &b, err);
    struct kernel_package *v = NULL;
    size_t n = 0;
    if (rc == 0)
        rc = kernel_packages_between(fg, g.version, b.version, &v, &n, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = add_cand(bp, v[i].name, v[i].version, err);
    if (rc == 0)
        rc = add_cand(bp, b.package, b.version, err);
    free(v);
    kernel_info_free(&g);
    kernel_info_free(&b);
    return rc;
}

static int prep_debs(const struct bisect_args *a, struct bisect_plan *bp, struct pm_err *err)
{
    struct kernel_info g, b, k;
    int rc = endpoint("good", a->good, KERNEL_DEB, &g, bp->rec.good, sizeof bp->rec.good, err);
    if (rc == 0 && (rc = endpoint("bad", a->bad, KERNEL_DEB, &b, bp->rec.bad, sizeof bp->rec.bad, err)) < 0)
        kernel_info_free(&g);
    if (rc < 0)
        return -1;
    rc = before(&g, &b, err);
    for (size_t i = 0; rc == 0 && i < a->ndebs; i++) {
        char path[PATH_MAX];
        if ((rc = endpoint("debs", a->debs[i], KERNEL_DEB, &k, path, sizeof path, err)) == 0) {
            rc = add_cand(bp, path, k.version, err);
            kernel_info_free(&k);
        }
    }
    if (rc == 0)
        rc = add_cand(bp, bp->rec.bad, b.version, err);
    kernel_info_free(&g);
    kernel_info_free(&b);
    return rc;
}

/* --git REPO: resolved, readable, and owned by the user pressmark runs
 * as (git reads no one else's; kernels/gitbisect.h). */
static int git_repo_of(const char *repo, char *out, size_t len, struct pm_err *err)
{
    if (resolve("--git", repo, out, len, "a git repository of a kernel tree", err) < 0)
        return -1;
    if (access(out, R_OK | X_OK) < 0)
        return pm_errf(err, "--git '%s': not a directory here (accepted: a git repository of a kernel tree)", repo);
    return git_repo_check(out, err);
}

static int prep_git(const struct bisect_args *a, struct bisect_plan *bp, struct pm_err *err)
{
    if (git_repo_of(a->repo, bp->rec.repo, sizeof bp->rec.repo, err) < 0)
        return -1;
    if (git_resolve(bp->rec.repo, a->good, bp->rec.good, sizeof bp->rec.good, err) < 0 ||
        git_resolve(bp->rec.repo, a->bad, bp->rec.bad, sizeof bp->rec.bad, err) < 0)
        return -1;
    if (git_before(bp->rec.repo, bp->rec.good, bp->rec.bad, err) != 1)
        return pm_errf(err, "--good %s is not before --bad %s in %s (accepted: a good commit that is an ancestor of "
                       "the bad one)", a->good, a->bad, bp->rec.repo);
    if (git_build_check(bp->rec.repo, a->build, err) < 0)
        return -1;
    snprintf(bp->rec.build, sizeof bp->rec.build, "%s", a->build);
    char (*v)[41] = NULL;
    size_t n = 0;
    int rc = git_commits(bp->rec.repo, bp->rec.good, bp->rec.bad, &v, &n, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = add_cand(bp, v[i], "", err);
    free(v);
    return rc;
}

void bisect_make_key(const struct bisect_rec *r, const struct bisect_candidate_rec *cands, size_t n, char *key,
                     size_t len)
{
    char nums[96];
    snprintf(nums, sizeof nums, "%d %d %.17g", r->runs, r->max_runs, r->alpha);
    const char *parts[] = { r->suite_text, r->cell, r->metric, r->kind, r->good, r->bad, r->repo, r->build, nums };
    uint64_t h = PM_FNV1A_INIT;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        h = pm_fnv1a(h, parts[i], strlen(parts[i]) + 1);
    for (size_t i = 0; i < n; i++)
        h = pm_fnv1a(h, cands[i].kernel, strlen(cands[i].kernel) + 1);
    snprintf(key, len, "%016llx", (unsigned long long)h);
}

static int check_numbers(const struct bisect_args *a, struct pm_err *err)
{
    if (a->max_runs < a->runs)
        return pm_errf(err, "--max-runs %d: fewer than --runs %d (accepted: at least the runs of one boot)",
                       a->max_runs, a->runs);
    return 0;
}

int bisect_prepare(const struct bisect_args *a, struct bisect_plan *bp, struct pm_err *err)
{
    memset(bp, 0, sizeof *bp);
    struct bisect_rec *r = &bp->rec;
    struct suite_plan p;
    if (check_numbers(a, err) < 0 || suite_plan_load(a->suite_path, NULL, &p, err) < 0)
        return -1;
    int rc = pick_cell(a, &p, r, err);
    if (rc == 0)
        rc = exp_backend_bisects(&p, err);
    r->suite_text = rc == 0 ? strdup(p.file.canonical) : NULL;
    if (rc == 0 && !r->suite_text)
        rc = pm_errf(err, "out of memory");
    if (rc == 0)
        rc = resolve("suite file", a->suite_path, r->suite_path, sizeof r->suite_path, "a suite file", err);
    suite_plan_free(&p);
    static const char *const kinds[] = { "packages", "debs", "git" };
    snprintf(r->kind, sizeof r->kind, "%s", kinds[a->kind]);
    r->runs = a->runs;
    r->max_runs = a->max_runs;
    r->alpha = a->alpha;
    if (rc == 0)
        rc = a->kind == BISECT_PACKAGES ? prep_packages(a, bp, err)
             : a->kind == BISECT_DEBS   ? prep_debs(a, bp, err)
                                        : prep_git(a, bp, err);
    if (rc == 0 && bp->ncands < 2)
        rc = pm_errf(err, "--good %s --bad %s: %zu candidate%s after the good kernel, the bad one included: nothing to "
                     "bisect (accepted: a range with a kernel between them)", a->good, a->bad, bp->ncands,
                     bp->ncands == 1 ? "" : "s");
    if (rc < 0) {
        bisect_plan_free(bp);
        return -1;
    }
    bisect_make_key(&bp->rec, bp->cands, bp->ncands, bp->rec.key, sizeof bp->rec.key);
    return 0;
}

int bisect_prepare_resume(const struct bisect_resume_args *a, struct bisect_plan *given, struct pm_err *err)
{
    memset(given, 0, sizeof *given);
    struct bisect_rec *r = &given->rec;
    struct suite_plan p;
    if (suite_plan_load(a->suite_path, NULL, &p, err) < 0)
        return -1;
    r->suite_text = strdup(p.file.canonical);
    suite_plan_free(&p);
    int rc = r->suite_text ? 0 : pm_errf(err, "out of memory");
    if (rc == 0)
        rc = resolve("suite file", a->suite_path, r->suite_path, sizeof r->suite_path, "a suite file", err);
    if (rc == 0 && a->repo[0])
        rc = git_repo_of(a->repo, r->repo, sizeof r->repo, err);
    if (rc == 0 && a->repo[0])
        rc = git_build_check(r->repo, a->build, err);
    if (rc == 0 && a->repo[0]) {
        snprintf(r->build, sizeof r->build, "%s", a->build);
        snprintf(r->kind, sizeof r->kind, "git");
    }
    for (size_t i = 0; rc == 0 && i < a->ndebs; i++) {
        struct bisect_candidate_rec cand = { .version = "" };
        rc = resolve("package file", a->debs[i], cand.kernel, sizeof ((struct kernel_spec *)0)->value,
                     "a package file of the bisection", err);
        if (rc == 0)
            rc = add_cand(given, cand.kernel, "", err);
    }
    if (rc < 0)
        bisect_plan_free(given);
    return rc;
}
