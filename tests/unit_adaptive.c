/* target-ci's stopping rule keeps its promise: simulated suites whose
 * runs are normal with a known mean stop where the runner stops them
 * (suite_cell_states and suite_cell_wants_run, the runner's own code,
 * after every run), and the interval each stops with covers the true mean
 * in at least 95% of them. The old rule (plain 95% intervals, stop at the
 * first narrow one) is measured beside it on the same runs, and falls short:
 * the simulation can see the fault the rule is there for. Seeded. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "experiment/suite.h"
#include "tests/tap.h"

#define MAXRUNS 20

struct outcome {
    double covered, runs;       /* shares and mean over the sequences */
};

/* The runner's rule on runs x[0..]: one more run at a time, as the
 * suite adds them, until the cell wants none. */
static void runner_rule(const struct suite_plan *p, const double *x, struct outcome *o)
{
    struct suite_slot slots[MAXRUNS];
    struct cell_state cs;
    for (unsigned k = 1; k <= p->runs_max; k++) {
        slots[k - 1] = (struct suite_slot){ .seq = k, .round = (int)k, .cell = 0, .run_id = k, .status = "ok",
                                            .has_value = true, .value = x[k - 1] };
        suite_cell_states(p, slots, k, &cs);
        bool more = suite_cell_wants_run(p, &cs);
        if (!more)
            o->covered += fabs(cs.mean - 100) <= cs.ci_pct / 100 * fabs(cs.mean);
        suite_cell_states_free(&cs, 1);
        if (!more) {
            o->runs += k;
            return;
        }
    }
}

/* The rule before: the first look from MIN whose plain 95% interval is
 * within the target, or MAX (t975[k]: the quantile for k runs, looked up
 * once rather than at every look, which would double the test's time). */
static void old_rule(const struct suite_plan *p, const double *t975, const double *x, struct outcome *o)
{
    double sum = 0;
    for (unsigned k = 1; k <= p->runs_max; k++) {
        sum += x[k - 1];
        if (k < p->runs_min)
            continue;
        double mean = sum / k, ss = 0;
        for (unsigned i = 0; i < k; i++)
            ss += (x[i] - mean) * (x[i] - mean);
        double half = t975[k] * sqrt(ss / (k - 1) / k);
        if (half <= p->target_ci * fabs(mean) || k == p->runs_max) {
            o->covered += fabs(mean - 100) <= half;
            o->runs += k;
            return;
        }
    }
}

/* n suites of one cell, runs normal with mean 100 and sd cv_pct. */
static void simulate(const struct suite_plan *p, double cv_pct, int n, struct outcome *now, struct outcome *before)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    gsl_rng_set(r, 30);
    double t975[MAXRUNS + 1] = { 0 };
    for (unsigned k = 2; k <= MAXRUNS; k++)
        t975[k] = gsl_cdf_tdist_Qinv(0.025, k - 1);
    *now = *before = (struct outcome){ 0, 0 };
    for (int i = 0; i < n; i++) {
        double x[MAXRUNS];
        for (unsigned k = 0; k < p->runs_max; k++)
            x[k] = 100 + gsl_ran_gaussian(r, cv_pct);
        runner_rule(p, x, now);
        old_rule(p, t975, x, before);
    }
    gsl_rng_free(r);
    now->covered /= n;
    now->runs /= n;
    before->covered /= n;
    before->runs /= n;
}

/* Simulate one configuration and say what both rules gave; returns the
 * coverage the rule must reach: 95% less twice its Monte-Carlo standard
 * error. */
static double run_config(double cv_pct, double target_pct, int n, struct outcome *now, struct outcome *before)
{
    struct suite_plan p = { .ncells = 1, .runs_min = 3, .runs_max = MAXRUNS, .target_ci = target_pct / 100 };
    simulate(&p, cv_pct, n, now, before);
    printf("# CV %g%%, target %g%%, runs 3..%d, %d suites: the rule covers %.2f%% (%.1f runs), the old one %.2f%% "
           "(%.1f runs)\n", cv_pct, target_pct, MAXRUNS, n, 100 * now->covered, now->runs, 100 * before->covered,
           before->runs);
    return 0.95 - 2 * sqrt(0.95 * 0.05 / n);
}

/* One configuration: the rule's coverage at least the floor, the old
 * rule's below it. */
static void check(double cv_pct, double target_pct, int n)
{
    struct outcome now, before;
    double floor = run_config(cv_pct, target_pct, n, &now, &before);
    ok(now.covered >= floor, "CV %g%%, target %g%%: the interval a cell stops with covers the mean in %.2f%% "
       "(at least %.2f%%)", cv_pct, target_pct, 100 * now.covered, 100 * floor);
    ok(before.covered < floor, "  the old rule's in %.2f%%, short of 95%%: the simulation sees the fault",
       100 * before.covered);
}

/* A cell quieter than its target: the rule must still stop early (a rule
 * that never stops keeps its promise trivially), and keep it. */
static void check_early(double cv_pct, double target_pct, int n)
{
    struct outcome now, before;
    double floor = run_config(cv_pct, target_pct, n, &now, &before);
    ok(now.covered >= floor, "CV %g%%, target %g%%: covers the mean in %.2f%% (at least %.2f%%)", cv_pct, target_pct,
       100 * now.covered, 100 * floor);
    ok(now.runs < MAXRUNS - 5, "  and stops early: %.1f runs on average of at most %d", now.runs, MAXRUNS);
}

int main(void)
{
    struct suite_plan fixed = { .ncells = 1, .runs_min = 5, .runs_max = 5 };
    is_num(suite_ci_confidence(&fixed), 0.95, 0, "a fixed run count: the plain 95%% interval");
    struct suite_plan adaptive = { .ncells = 1, .runs_min = 3, .runs_max = 20, .target_ci = 0.03 };
    is_num(suite_ci_looks(&adaptive), 18, 0, "runs 3..20 with a target: 18 looks");
    is_num(suite_ci_confidence(&adaptive), 1 - 0.05 / 18, 1e-15, "  each at 1 - 0.05/18 (Bonferroni)");
    /* The brief's case (a cell noisier than its target: most go to the
     * maximum) and one where cells stop early more often. */
    check(10, 3, 20000);
    check(5, 3, 5000);
    check_early(3, 5, 5000);
    return done_testing();
}
