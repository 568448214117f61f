#include "experiment/view.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "experiment/backend.h"
#include "experiment/plan.h"
#include "experiment/suite.h"
#include "lib/units.h"

/* A suite that names kernels: where the cells of those not running ran,
 * as its backend says. */
static void view_kernels(struct suite_view *v, const struct suite_plan *p)
{
    for (size_t i = 0; i < p->file.nsections; i++)
        for (size_t k = 0; k < p->file.sections[i].nkeys; k++)
            if (strcmp(p->file.sections[i].keys[k].name, "kernel") == 0 && !v->where[0]) {
                snprintf(v->backend, sizeof v->backend, "%s", p->backend->name);
                p->backend->describe(p, v->where, sizeof v->where);
            }
}

int suite_view_load(struct pm_db *db, int64_t id, struct suite_view *v, struct pm_err *err)
{
    memset(v, 0, sizeof *v);
    v->runs_min = v->runs_max = 5;
    v->alpha = 0.05;
    if (id == 0) {
        if (suites_latest_id(db, &id, err) < 0)
            return -1;
        if (id == 0)
            return pm_errf(err, "no suites in %s ('pressmark suite run FILE' makes one)", db->path);
    }
    int found = suites_get(db, id, &v->rec, err);
    if (found <= 0)
        return found < 0 ? -1 : pm_errf(err, "no suite %lld in %s (see 'pressmark suite list')", (long long)id,
                                        db->path);
    if (suites_cells(db, id, &v->cells, &v->ncells, err) < 0) {
        suite_view_free(v);
        return -1;
    }
    /* A suite file makes at most SUITE_MAX_CELLS cells; a database that
     * says more was not made by one, and grouping them costs cells^2. */
    if (v->ncells > SUITE_MAX_CELLS) {
        size_t n = v->ncells;
        suite_view_free(v);
        return pm_errf(err, "suite %lld has %zu cells in %s, more than a suite file makes (at most %d)", (long long)id,
                       n, db->path, SUITE_MAX_CELLS);
    }
    snprintf(v->title, sizeof v->title, "suite %lld (%s)", (long long)v->rec.id, v->rec.name);
    /* The suite's own keys, from the file as it was run: read, not
     * applied (a report needs no root and no swap to fit). */
    struct suite_plan p;
    struct pm_err ferr;
    if (suite_plan_read(v->rec.path, v->rec.text, &p, &ferr) == 0) {
        snprintf(v->baseline, sizeof v->baseline, "%s", p.baseline);
        snprintf(v->question, sizeof v->question, "%s", p.question);
        v->runs_min = p.runs_min;
        v->runs_max = p.runs_max;
        v->target_ci = p.target_ci;
        /* Which part each cell comes from. A file that does not make
         * these cells (or no memory) leaves the origins out: each
         * workload is then one comparison, as it was before. */
        struct suite_cell_origin *o;
        size_t no;
        if (suite_plan_origins(&p, v->ncells, &o, &no, &ferr) == 0) {
            if (no == v->ncells)
                v->origins = o;
            else
                suite_origins_free(o, no);
        }
        v->alpha = p.alpha;
        view_kernels(v, &p);
        suite_plan_free(&p);
    }
    if (!v->baseline[0] && v->ncells)
        snprintf(v->baseline, sizeof v->baseline, "%s", v->cells[0].label);
    return 0;
}

void suite_view_free(struct suite_view *v)
{
    store_suite_rec_free(&v->rec);
    if (v->origins)
        suite_origins_free(v->origins, v->ncells);
    v->origins = NULL;
    free(v->cells);
    v->cells = NULL;
    v->ncells = 0;
}

/* The same keys with the same values, in any order (a part may write
 * its keys in another order than [global] and the next part). */
static bool kv_same(const struct kv_list *a, const struct kv_list *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const char *o = pm_kv_get(b, a->v[i].key);
        if (!o || strcmp(o, a->v[i].value) != 0)
            return false;
    }
    return true;
}

/* Are cells i and j one comparison: one workload, their parts set alike
 * but for their axes, and the same axes? */
static bool same_group(const struct suite_view *v, size_t i, size_t j)
{
    if (strcmp(v->cells[i].workload, v->cells[j].workload) != 0)
        return false;
    if (!v->origins)
        return true;
    const struct suite_cell_origin *a = &v->origins[i], *b = &v->origins[j];
    if (!kv_same(&a->fixed, &b->fixed) || a->axes.n != b->axes.n)
        return false;
    for (size_t k = 0; k < a->axes.n; k++)
        if (!pm_kv_get(&b->axes, a->axes.v[k].key))
            return false;
    return true;
}

/* Cell i's value of key: its axis value or its part's setting; NULL when
 * it sets none. */
static const char *cell_value(const struct suite_view *v, size_t i, const char *key)
{
    const char *s = pm_kv_get(&v->origins[i].axes, key);
    return s ? s : pm_kv_get(&v->origins[i].fixed, key);
}

static bool same_value(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

static void append(char *buf, size_t len, const char *sep, const char *s)
{
    size_t o = strlen(buf);
    if (o < len)
        snprintf(buf + o, len - o, "%s%s", o ? sep : "", s);
}

/* The keys, outside cell c's axes, in which cell r is set otherwise
 * than c, comma-separated into buf; how many. */
static size_t differs_beyond_axes(const struct suite_view *v, size_t r, size_t c, char *buf, size_t len)
{
    const struct kv_list *lists[] = { &v->origins[r].fixed, &v->origins[r].axes, &v->origins[c].fixed };
    size_t n = 0;
    buf[0] = '\0';
    for (size_t l = 0; l < 3; l++)
        for (size_t i = 0; i < lists[l]->n; i++) {
            const char *k = lists[l]->v[i].key;
            if (pm_kv_get(&v->origins[c].axes, k) || (l == 2 && cell_value(v, r, k)))
                continue;       /* an axis of c's, or a key r has (seen already) */
            if (!same_value(cell_value(v, r, k), pm_kv_get(&v->origins[c].fixed, k))) {
                append(buf, len, ", ", k);
                n++;
            }
        }
    return n;
}

/* The baseline cell as workload w's groups see it: the cell so labelled
 * among w's (labels are unique within a workload), else the first so
 * labelled; -1 when no cell is. */
static long reference_cell(const struct suite_view *v, const char *w)
{
    long first = -1;
    for (size_t i = 0; i < v->ncells; i++) {
        if (strcmp(v->cells[i].label, v->baseline) != 0)
            continue;
        if (strcmp(v->cells[i].workload, w) == 0)
            return (long)i;
        if (first < 0)
            first = (long)i;
    }
    return first;
}

/* Group g's stand-in for the baseline cell r (in another group): its
 * cell whose every axis value is r's value of that key; -1 when none is. */
static long matching_cell(const struct suite_view *v, const int *gid, int g, size_t r)
{
    for (size_t i = 0; i < v->ncells; i++) {
        if (gid[i] != g)
            continue;
        const struct kv_list *ax = &v->origins[i].axes;
        size_t k = 0;
        while (k < ax->n && same_value(cell_value(v, r, ax->v[k].key), ax->v[k].value))
            k++;
        if (k == ax->n)
            return (long)i;
    }
    return -1;
}

/* Why group g (first cell c) has no baseline, in one line. */
static void why_unjudged(const struct suite_view *v, long r, size_t c, char *buf, size_t len)
{
    if (r < 0) {
        snprintf(buf, len, "the suite's baseline %s is none of its cells", v->baseline);
        return;
    }
    char keys[256], values[256] = "", differs[320] = "";
    if (strcmp(v->cells[r].workload, v->cells[c].workload) != 0)
        snprintf(differs, sizeof differs, "is another workload's");
    else if (differs_beyond_axes(v, (size_t)r, c, keys, sizeof keys))
        snprintf(differs, sizeof differs, "differs from these cells in more than their axes (%s)", keys);
    const struct kv_list *ax = &v->origins[c].axes;
    for (size_t k = 0; k < ax->n; k++) {
        char kv[192];
        const char *rv = cell_value(v, (size_t)r, ax->v[k].key);
        snprintf(kv, sizeof kv, "%s=%s", ax->v[k].key, rv ? rv : "(unset)");
        append(values, sizeof values, ", ", kv);
    }
    snprintf(buf, len, "the baseline %s %s, and none of them has its %s", v->baseline, differs, values);
}

/* Group g's baseline: a cell index (of another group when the baseline
 * cell itself stands in), or -1 with grp->unjudged saying why. */
static long group_baseline(const struct suite_view *v, const int *gid, int g, bool alone, struct suite_view_group *grp)
{
    long r = reference_cell(v, grp->workload);
    if (r >= 0 && gid[r] == g)
        return r;
    if (alone)
        return -1;      /* as before: the first cell, when the baseline is another workload's */
    size_t first = 0;
    while (gid[first] != g)
        first++;
    long b = r >= 0 ? matching_cell(v, gid, g, (size_t)r) : -1;
    char keys[256];
    if (b < 0 && r >= 0 && strcmp(v->cells[r].workload, grp->workload) == 0 &&
        differs_beyond_axes(v, (size_t)r, first, keys, sizeof keys) == 0)
        b = r;
    if (b < 0)
        why_unjudged(v, r, first, grp->unjudged, sizeof grp->unjudged);
    return b;
}

/* Group g's cells, its baseline first (when it has one), and its name. */
static void fill_group(const struct suite_view *v, const int *gid, int g, bool alone, struct suite_view_group *grp)
{
    long base = group_baseline(v, gid, g, alone, grp);
    const char *part = NULL;
    for (size_t i = 0; i < v->ncells; i++) {
        bool is_base = (long)i == base;
        if (!is_base && gid[i] != g)
            continue;
        /* A part's cells come one after another. */
        if (gid[i] == g && !alone && (!part || strcmp(part, v->origins[i].part) != 0)) {
            part = v->origins[i].part;
            append(grp->name, sizeof grp->name, ", ", part);
        }
        size_t at = grp->n++;
        if (is_base) {
            memmove(grp->labels + 1, grp->labels, at * sizeof *grp->labels);
            memmove(grp->axes + 1, grp->axes, at * sizeof *grp->axes);
            at = 0;
        }
        grp->labels[at] = v->cells[i].label;
        grp->axes[at] = v->cells[i].axes;
    }
}

int suite_view_groups(const struct suite_view *v, struct suite_view_groups *out, struct pm_err *err)
{
    memset(out, 0, sizeof *out);
    size_t n = v->ncells ? v->ncells : 1;
    int *gid = calloc(n, sizeof *gid);
    out->v = calloc(n, sizeof *out->v);
    out->labels = calloc(2 * n, sizeof *out->labels);
    out->axes = calloc(2 * n, sizeof *out->axes);
    if (!gid || !out->v || !out->labels || !out->axes) {
        free(gid);
        suite_view_groups_free(out);
        return pm_errf(err, "out of memory");
    }
    for (size_t i = 0; i < v->ncells; i++) {
        size_t j = 0;
        while (j < i && !same_group(v, i, j))
            j++;
        gid[i] = j < i ? gid[j] : (int)out->n++;
        if (j == i)
            out->v[gid[i]].workload = v->cells[i].workload;
    }
    size_t used = 0;
    for (size_t g = 0; g < out->n; g++) {
        struct suite_view_group *grp = &out->v[g];
        size_t of_workload = 0;
        for (size_t h = 0; h < out->n; h++)
            of_workload += strcmp(out->v[h].workload, grp->workload) == 0;
        grp->labels = out->labels + used;
        grp->axes = out->axes + used;
        fill_group(v, gid, (int)g, of_workload == 1, grp);
        used += grp->n;
    }
    free(gid);
    return 0;
}

void suite_view_groups_free(struct suite_view_groups *g)
{
    free(g->v);
    free(g->labels);
    free(g->axes);
    memset(g, 0, sizeof *g);
}

double suite_view_ci_confidence(const struct suite_view *v)
{
    struct suite_plan p = { .ncells = v->ncells, .runs_min = v->runs_min, .runs_max = v->runs_max,
                            .target_ci = v->target_ci };
    return suite_ci_confidence(&p);
}

/* One cell's note. With a target, the interval the rule judged by and
 * the rule, so a reader knows the CI is not a plain 95% one. */
static void cell_note(const struct suite_plan *p, const struct cell_state *c, char *note)
{
    char target[48], ci[64] = "", ci_at_max[64] = "";
    pm_fmt_sig(target, sizeof target, p->target_ci * 100, 3);
    if (!isnan(c->ci_pct)) {
        char v[48];
        pm_fmt_sig(v, sizeof v, c->ci_pct, 3);
        snprintf(ci, sizeof ci, "CI ±%s%% ", v);
        snprintf(ci_at_max, sizeof ci_at_max, "CI ±%s%%, ", v);
    }
    if (p->target_ci <= 0)
        snprintf(note, 96, "%d of %u runs", c->finished, p->runs_min);
    else if (c->converged)
        snprintf(note, 96, "converged after %d runs (%swithin %s%%, Bonferroni over %u looks)", c->finished, ci,
                 target, suite_ci_looks(p));
    else if (c->at_max)
        snprintf(note, 96, "not converged at the maximum of %u runs (%sBonferroni over %u looks)", p->runs_max,
                 ci_at_max, suite_ci_looks(p));
    else
        snprintf(note, 96, "unfinished after %d runs", c->finished);
}

int suite_view_notes(struct pm_db *db, const struct suite_view *v, char (*notes)[96], struct pm_err *err)
{
    struct suite_slot *slots;
    size_t n;
    if (suites_slots(db, v->rec.id, &slots, &n, err) < 0)
        return -1;
    /* The state of each cell needs only the counts and the target. */
    struct suite_plan p = { .ncells = v->ncells, .runs_min = v->runs_min, .runs_max = v->runs_max,
                            .target_ci = v->target_ci };
    struct cell_state *cs = calloc(v->ncells ? v->ncells : 1, sizeof *cs);
    if (!cs) {
        free(slots);
        return pm_errf(err, "out of memory");
    }
    suite_cell_states(&p, slots, n, cs);
    for (size_t i = 0; i < v->ncells; i++)
        cell_note(&p, &cs[i], notes[i]);
    suite_cell_states_free(cs, v->ncells);
    free(cs);
    free(slots);
    return 0;
}
