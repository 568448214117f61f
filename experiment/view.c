#include "experiment/view.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "experiment/suite.h"
#include "lib/units.h"

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
        v->alpha = p.alpha;
        suite_plan_free(&p);
    }
    if (!v->baseline[0] && v->ncells)
        snprintf(v->baseline, sizeof v->baseline, "%s", v->cells[0].label);
    return 0;
}

void suite_view_free(struct suite_view *v)
{
    suite_rec_free(&v->rec);
    free(v->cells);
    v->cells = NULL;
    v->ncells = 0;
}

size_t suite_view_labels(const struct suite_view *v, const char *workload, const char **labels, const char **axes,
                         size_t max)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < v->ncells && n < max; i++) {
            const struct suite_cell_rec *c = &v->cells[i];
            bool is_base = strcmp(c->label, v->baseline) == 0;
            if (strcmp(c->workload, workload) != 0 || (pass == 0) != is_base)
                continue;
            labels[n] = c->label;
            axes[n] = c->axes;
            n++;
        }
    return n;
}

size_t suite_view_workloads(const struct suite_view *v, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < v->ncells; i++) {
        size_t k = 0;
        while (k < n && strcmp(out[k], v->cells[i].workload) != 0)
            k++;
        if (k == n && n < max)
            out[n++] = v->cells[i].workload;
    }
    return n;
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
