/* pressmark bisect's output (cmd/bisect_output.h): names, versions and
 * reasons come from apt, git, builds and databases, so the text goes
 * through the escaping human output (cmd_human_output), and JSON through
 * jansson's escaping alone. */
#include "cmd/bisect_output.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "lib/json.h"
#include "lib/kv.h"
#include "lib/units.h"
#include "stats/stats.h"
#include "store/bisects.h"
#include "store/runinfo.h"

void cli_bisect_print_plan(const struct bisect_plan *bp)
{
    const struct bisect_rec *r = &bp->rec;
    cmd_human_output();
    printf("bisect of cell '%s' by %s: %s candidates after the good kernel %s, the bad one last:\n", r->cell, r->metric,
           r->kind, r->good);
    for (size_t i = 0; i < bp->ncands; i++)
        printf("%4zu  %s%s%s\n", i + 1, bp->cands[i].kernel, bp->cands[i].version[0] ? "  " : "",
               bp->cands[i].version);
    unsigned looks = r->max_runs > r->runs ? (unsigned)((r->max_runs + r->runs - 1) / r->runs) : 1;
    /* ceil(log2(n)) steps tell n places of the first bad one apart. */
    int steps = 0;
    while ((size_t)1 << steps < bp->ncands)
        steps++;
    printf("%d runs a boot, at most %d a step (%u looks, each at alpha %g / %u); at most %d boots when each step "
           "decides in one: the two endpoints and %d steps\n", r->runs, r->max_runs, looks, r->alpha, looks,
           steps + 2, steps);
}

static void fmt_p(char *buf, size_t len, double p)
{
    if (isnan(p))
        snprintf(buf, len, "-");
    else
        stats_fmt_p(buf, len, p, true);
}

/* The kconfig.* metadata of a run of the kernel key's batches. */
static int kconfig_of(void *ctx, const char *key, const char *value, struct pm_err *err)
{
    (void)err;
    if (strncmp(key, "kconfig.", 8) == 0)
        pm_kv_set(ctx, key + 8, value);
    return 0;
}

static void load_kconfig(struct pm_db *db, const char *kernel_key, struct kv_list *out)
{
    int64_t run = 0;
    struct pm_err err;
    if (kernel_key[0] && bisects_any_run(db, kernel_key, &run, &err) == 0 && run)
        store_run_meta_each(db, run, kconfig_of, out, &err);
}

/* The last good and the first bad step: what the configurations are
 * compared between. */
static void ends(const struct bisect_rec *r, const struct bisect_step_rec *v, size_t n, const struct bisect_step_rec **lg,
                 const struct bisect_step_rec **fb)
{
    *lg = *fb = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].role, "good") == 0 && !*lg)
            *lg = &v[i];
        if (strcmp(v[i].role, "bad") == 0 && strcmp(v[i].kernel, r->first_bad) == 0 && !*fb)
            *fb = &v[i];
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].role, "step") != 0)
            continue;
        if (strcmp(v[i].verdict, "good") == 0 && (!*lg || strcmp((*lg)->role, "good") == 0 || v[i].candidate > (*lg)->candidate))
            *lg = &v[i];
        if (strcmp(v[i].kernel, r->first_bad) == 0)
            *fb = &v[i];
    }
}

static void json_steps(struct jw *j, const struct bisect_step_rec *v, size_t n)
{
    jw_array_begin(j, "steps");
    for (size_t i = 0; i < n; i++) {
        jw_object_begin(j, NULL);
        jw_string(j, "role", v[i].role);
        jw_string(j, "kernel", v[i].kernel);
        jw_int(j, "runs", v[i].runs);
        jw_int(j, "boots", v[i].boots);
        jw_number(j, "mean", v[i].has_mean ? v[i].mean : NAN);
        jw_string(j, "verdict", v[i].verdict[0] ? v[i].verdict : NULL);
        jw_number(j, "p_good", v[i].p_good);
        jw_number(j, "p_bad", v[i].p_bad);
        jw_string(j, "reason", v[i].reason[0] ? v[i].reason : NULL);
        jw_object_end(j);
    }
    jw_array_end(j);
}

static void print_json(const struct bisect_rec *r, const struct bisect_step_rec *v, size_t n, int boots,
                       const struct kv_list *a, const struct kv_list *b)
{
    struct jw j;
    jw_init(&j, stdout, true);
    jw_object_begin(&j, NULL);
    jw_int(&j, "id", r->id);
    jw_string(&j, "uuid", r->uuid);
    jw_string(&j, "state", r->state);
    jw_string(&j, "cell", r->cell);
    jw_string(&j, "metric", r->metric);
    jw_string(&j, "kind", r->kind);
    jw_string(&j, "good", r->good);
    jw_string(&j, "bad", r->bad);
    jw_string(&j, "first_bad", r->first_bad[0] ? r->first_bad : NULL);
    jw_string(&j, "reason", r->reason[0] ? r->reason : NULL);
    jw_int(&j, "boots", boots);
    json_steps(&j, v, n);
    jw_object_begin(&j, "kconfig_differences");
    for (size_t i = 0; i < b->n; i++) {
        const char *was = pm_kv_get(a, b->v[i].key);
        if (a->n && (!was || strcmp(was, b->v[i].value) != 0)) {
            jw_object_begin(&j, b->v[i].key);
            jw_string(&j, "last_good", was);
            jw_string(&j, "first_bad", b->v[i].value);
            jw_object_end(&j);
        }
    }
    jw_object_end(&j);
    jw_object_end(&j);
    jw_end(&j);
}

static void print_table(const struct bisect_step_rec *v, size_t n)
{
    int w = 9;
    for (size_t i = 0; i < n; i++)
        w = (int)strlen(v[i].kernel) > w ? (int)strlen(v[i].kernel) : w;
    printf("\n%-5s %-*s %5s %5s %14s  %-11s %8s %8s\n", "step", w, "candidate", "runs", "boots", "mean", "verdict",
           "p good", "p bad");
    for (size_t i = 0; i < n; i++) {
        char step[16], mean[48], pg[24], pb[24];
        if (strcmp(v[i].role, "step") == 0)
            snprintf(step, sizeof step, "%d", v[i].seq - 1);
        else
            snprintf(step, sizeof step, "%s", v[i].role);
        pm_fmt_number(mean, sizeof mean, v[i].mean);
        fmt_p(pg, sizeof pg, v[i].p_good);
        fmt_p(pb, sizeof pb, v[i].p_bad);
        printf("%-5s %-*s %5d %5d %14s  %-11s %8s %8s\n", step, w, v[i].kernel, v[i].runs, v[i].boots,
               v[i].has_mean ? mean : "-", v[i].verdict[0] ? v[i].verdict : "-", pg, pb);
        if (v[i].reason[0] && strcmp(v[i].role, "step") == 0)
            printf("      %s\n", v[i].reason);
    }
}

static void print_kconfig(const struct bisect_step_rec *lg, const struct bisect_step_rec *fb, const struct kv_list *a,
                          const struct kv_list *b)
{
    if (!lg || !fb)
        return;
    if (!a->n || !b->n) {
        printf("\nkernel configuration: not known for %s\n", !a->n ? lg->kernel : fb->kernel);
        return;
    }
    printf("\nkernel configuration differences (memory management) between the last good, %s, and the first bad, "
           "%s:\n", lg->kernel, fb->kernel);
    int shown = 0;
    for (size_t i = 0; i < b->n; i++) {
        const char *was = pm_kv_get(a, b->v[i].key);
        if (!was || strcmp(was, b->v[i].value) != 0) {
            printf("  %s: %s -> %s\n", b->v[i].key, was ? was : "(absent)", b->v[i].value);
            shown++;
        }
    }
    for (size_t i = 0; i < a->n; i++)
        if (!pm_kv_get(b, a->v[i].key)) {
            printf("  %s: %s -> (absent)\n", a->v[i].key, a->v[i].value);
            shown++;
        }
    if (!shown)
        printf("  none\n");
}

void cli_bisect_print_result(int64_t id, bool json)
{
    struct pm_db db;
    struct pm_err err;
    struct bisect_rec r;
    struct bisect_step_rec *v = NULL;
    size_t n = 0;
    if (cmd_open_db(&db, "bisect") != 0)
        return;
    if (bisects_get(&db, id, &r, &err) != 1 || bisects_steps(&db, id, &v, &n, &err) < 0) {
        store_db_close(&db);
        return;
    }
    const struct bisect_step_rec *lg, *fb;
    ends(&r, v, n, &lg, &fb);
    struct kv_list a = { 0 }, b = { 0 };
    if (lg && fb) {
        load_kconfig(&db, lg->kernel_key, &a);
        load_kconfig(&db, fb->kernel_key, &b);
    }
    int boots = 0, step_boots = 0;
    for (size_t i = 0; i < n; i++) {
        boots += v[i].boots;
        step_boots += strcmp(v[i].role, "step") == 0 ? v[i].boots : 0;
    }
    /* Text is escaped for the terminal; JSON is escaped by jansson, and
     * the terminal's \xNN in it would be an escape JSON has not. */
    if (json) {
        print_json(&r, v, n, boots, &a, &b);
    } else {
        cmd_human_output();
        printf("bisect %lld: cell '%s', metric %s, %s candidates, good %s, bad %s: %s\n", (long long)r.id, r.cell,
               r.metric, r.kind, r.good, r.bad, r.state);
        print_table(v, n);
        if (r.first_bad[0])
            printf("\nfirst bad: %s\n", r.first_bad);
        else if (r.reason[0])
            printf("\n%s\n", r.reason);
        printf("boots: %d (the endpoints %d, the steps %d; runs reused from earlier boots are not counted again)\n",
               boots, boots - step_boots, step_boots);
        print_kconfig(lg, fb, &a, &b);
    }
    pm_kv_free(&a);
    pm_kv_free(&b);
    free(v);
    store_bisect_rec_free(&r);
    store_db_close(&db);
}
