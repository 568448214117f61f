/* pressmark bisect's pure parts: dpkg's version order held to dpkg's own
 * on every pair of a list of hard cases and real kernel versions, and the
 * verdicts, constant metrics and a candidate unlike both kernels included. */
#include <stdlib.h>
#include <sys/wait.h>
#include "experiment/bisect_judge.h"
#include "lib/debver.h"
#include "tests/tap.h"

static const char *const versions[] = {
    "1.0", "1.0-1", "1.0-2", "1.0~rc1", "1.0~rc1-1", "1.0~~", "1.0~~a", "1.0~", "1.0+1", "1.0.1", "1.0a", "1.0-1a",
    "1:0.9", "1:1.0", "2:0", "0:1.0", "1.00", "1.000-0", "1.0-0", "10", "9", "9a", "9.a", "9+", "1.0-1~bpo1",
    "1.0-1+deb12u1", "6.1.170-3", "6.1.192-3", "6.1.192-2", "6.12.100-1~deb12u1", "6.12.117-1~deb12u1",
    "6.12.115-2~deb12u1", "6.12.9-1", "6.1.0", "a", "1.2.3-4.5", "1.2.3-4~5", "3.0~beta1", "3.0~beta10", "3.0-~1",
};

static int dpkg_says(const char *a, const char *op, const char *b)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "dpkg --compare-versions '%s' %s '%s'", a, op, b);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) == 0 : -1;
}

static void versions_against_dpkg(void)
{
    size_t n = sizeof versions / sizeof versions[0], wrong = 0, pairs = 0;
    for (size_t i = 0; i < n; i++)
        ok(debver_valid(versions[i]) == (versions[i][0] != 'a'), "'%s' is %sa version", versions[i],
           versions[i][0] == 'a' ? "not " : "");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            if (!debver_valid(versions[i]) || !debver_valid(versions[j]))
                continue;
            int c = debver_cmp(versions[i], versions[j]);
            int lt = dpkg_says(versions[i], "lt", versions[j]), gt = dpkg_says(versions[i], "gt", versions[j]);
            pairs++;
            if ((c < 0) != (lt == 1) || (c > 0) != (gt == 1)) {
                wrong++;
                printf("# %s vs %s: pressmark %d, dpkg lt %d gt %d\n", versions[i], versions[j], c, lt, gt);
            }
        }
    ok(wrong == 0 && pairs > 1000, "dpkg's order on all %zu ordered pairs (%zu differ)", pairs, wrong);
}

static void verdicts(void)
{
    double zero[] = { 0, 0, 0 }, five[] = { 5, 5, 5 }, g[] = { 2300, 2410, 2350 }, g2[] = { 2390, 2280, 2330 },
           b2[] = { 0, 0, 0, 0 }, mid[] = { 900, 1500, 1200 };
    is_num(bisect_p(zero, 3, zero, 3), 1, 0, "the same constant on both sides: no difference (p = 1)");
    is_num(bisect_p(zero, 3, five, 3), 0, 0, "two different constants: p = 0");
    ok(bisect_p(g, 3, zero, 3) < 0.001, "a varying side against a constant one: Welch's (p = %g)", bisect_p(g, 3, zero, 3));
    ok(isnan(bisect_p(g, 1, zero, 3)), "one run: no p");
    struct bisect_judgement j;
    bisect_judge(g, 3, zero, 3, g2, 3, 0.05, bisect_looks(3, 9), false, &j);
    ok(j.verdict == BISECT_GOOD, "like the good kernel, unlike the bad: good (p %g, %g at %g)", j.p_good, j.p_bad,
       j.level);
    bisect_judge(g, 3, zero, 3, b2, 4, 0.05, bisect_looks(3, 9), false, &j);
    ok(j.verdict == BISECT_BAD, "the bad kernel's constant: bad (p %g, %g)", j.p_good, j.p_bad);
    bisect_judge(g, 3, zero, 3, mid, 3, 0.05, bisect_looks(3, 9), false, &j);
    ok(j.verdict == BISECT_UNDECIDED, "between the two, under the cap: more runs (p %g, %g)", j.p_good, j.p_bad);
    bisect_judge(g, 3, zero, 3, mid, 3, 0.05, bisect_looks(3, 9), true, &j);
    ok(j.verdict == BISECT_CANNOT_TELL, "at the cap: cannot tell");
    is_num(j.level, 0.05 / 3, 1e-12, "each of 3 looks held to alpha / 3");
    /* Unlike both: twice the good kernel's figure, and not the bad one's
     * zeros. Each p alone would make it good (p_bad) or bad (p_good). */
    double far[] = { 5000, 5100, 4900 };
    bisect_judge(g, 3, zero, 3, far, 3, 0.05, bisect_looks(3, 9), false, &j);
    ok(j.p_good < j.level && j.p_bad < j.level, "unlike both kernels: both p below the level (p %g, %g at %g)",
       j.p_good, j.p_bad, j.level);
    ok(j.verdict == BISECT_UNDECIDED, "  neither good nor bad: more runs under the cap (verdict %d)", (int)j.verdict);
    bisect_judge(g, 3, zero, 3, far, 3, 0.05, bisect_looks(3, 9), true, &j);
    ok(j.verdict == BISECT_CANNOT_TELL, "  at the cap: cannot tell (%s)", bisect_verdict_name(j.verdict));
    ok(bisect_looks(3, 3) == 1 && bisect_looks(3, 10) == 4, "looks: one a boot up to the cap");
}

int main(void)
{
    if (system("dpkg --version > /dev/null 2>&1") == 0)
        versions_against_dpkg();
    else
        ok(1, "# SKIP no dpkg to compare with");
    verdicts();
    return done_testing();
}
