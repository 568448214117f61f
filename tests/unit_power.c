/* The power of the two-sample t-test against textbook values (R's
 * power.t.test, Cohen's tables) and its own consistency; t47 holds it to
 * scipy on a grid. */
#include "stats/power.h"
#include "tests/tap.h"

int main(void)
{
    /* R: power.t.test(n = 64, delta = 0.5) -> power = 0.8014596, and
     * power.t.test(n = 20, delta = 1) -> 0.8689528 (R counts only the
     * upper tail unless strict = TRUE; the lower one adds 2e-7 here). A
     * CV of 100% makes the change in percent the effect size in sd. */
    is_num(stats_power(100, 50, 64, 0.05), 0.8014596, 1e-6, "64 runs a side, d = 0.5: power 0.80 (R's power.t.test)");
    is_num(stats_power(100, 100, 20, 0.05), 0.8689528, 1e-6, "20 runs a side, d = 1: power 0.87 (R's example)");
    is_num(stats_power(10, -5, 5, 0.05), stats_power(10, 5, 5, 0.05), 0, "two-sided: a loss is seen as a gain is");
    is_num(stats_power(5, 0, 10, 0.05), 0.05, 1e-9, "no change: the test rejects at its level, alpha");
    is_num(stats_power(5, 0, 3, 0.01), 0.01, 1e-9, "  also at 0.01 and 3 runs a side");
    ok(stats_power(10, 5, 10, 0.05) > stats_power(10, 5, 5, 0.05), "more runs, more power");
    ok(stats_power(10, 5, 10, 0.05) > stats_power(20, 5, 10, 0.05), "more noise, less power");
    is_num(stats_power(1, 50, 200, 0.05), 1, 1e-12, "a change of 50 sd is always seen");
    ok(isnan(stats_power(10, 5, 1, 0.05)), "one run a side: no test, NaN");
    ok(isnan(stats_power(0, 5, 5, 0.05)), "a CV of 0: NaN");
    ok(isnan(stats_power(-3, 5, 5, 0.05)), "a negative CV: NaN");
    ok(isnan(stats_power(10, 5, 5, 0)) && isnan(stats_power(10, 5, 5, 1)), "alpha outside (0, 1): NaN");

    /* Cohen's table (two-sided 0.05, power 0.80): d = 0.8 -> 26, 0.5 -> 64,
     * 0.2 -> 393 (his normal approximation; exactly 393.4, so 394). */
    is_num(stats_runs_needed(100, 80, 0.05, 0.8, 10000), 26, 0, "d = 0.8 needs 26 runs a side (Cohen)");
    is_num(stats_runs_needed(100, 50, 0.05, 0.8, 10000), 64, 0, "d = 0.5 needs 64");
    is_num(stats_runs_needed(100, 20, 0.05, 0.8, 10000), 394, 0, "d = 0.2 needs 394");
    is_num(stats_runs_needed(100, 100, 0.05, 0.9, 1000), 23, 0, "power.t.test(power = .90, delta = 1): n = 22.02, so 23");
    is_num(stats_runs_needed(100, 20, 0.05, 0.8, 393), 0, 0, "more than the most allowed: 0");
    is_num(stats_runs_needed(1, 50, 0.05, 0.8, 100), 2, 0, "a change far above the noise: 2 runs, the least a test takes");
    is_num(stats_runs_needed(10, 0, 0.05, 0.8, 100), 0, 0, "no change is never detected: 0");
    is_num(stats_runs_needed(0, 5, 0.05, 0.8, 100), 0, 0, "no CV: 0");

    /* The detectable change is where the power reaches 0.8, and the runs
     * needed for it are those runs. */
    double d = stats_detectable_pct(10, 5, 0.05, 0.8);
    is_num(stats_power(10, d, 5, 0.05), 0.8, 1e-9, "5 runs at CV 10%%: the power at the detectable %.4g%% is 0.8", d);
    is_num(stats_runs_needed(10, d * 1.0001, 0.05, 0.8, 100), 5, 0, "  and that change needs 5 runs");
    ok(stats_detectable_pct(10, 20, 0.05, 0.8) < d, "more runs detect smaller changes");
    is_num(stats_detectable_pct(100, 64, 0.05, 0.8014596), 50, 1e-4, "the inverse of power.t.test's example: d = 0.5");
    ok(isnan(stats_detectable_pct(10, 5, 0.05, 0.05)), "a power at alpha or below: NaN (no change needed)");
    ok(isnan(stats_detectable_pct(10, 5, 0.05, 1)), "a power of 1: NaN (never certain)");
    ok(isnan(stats_detectable_pct(10, 1, 0.05, 0.8)), "one run: NaN");
    return done_testing();
}
