/* pressmark bisect's pure parts: dpkg's version order held to dpkg's own
 * on every pair of a list of hard cases and real kernel versions, the
 * verdicts, constant metrics and a candidate unlike both kernels
 * included, and a list bisection's halving walked step by step over the
 * real Debian range's 17 candidates. */
#include <stdlib.h>
#include <sys/wait.h>
#include "bisect/bisect_judge.h"
#include "bisect/bisect_pick.h"
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

/* The real range t82 plans: after the oldest 6.1 cloud kernel, 10 more
 * 6.1 packages, then 7 6.12 ones, the bad kernel the last: 17. */
#define NCANDS 17
#define MAX_STEPS 40

/* One list bisection walked as bisect_list.c walks it, each verdict the
 * truth: the candidates before first_bad good, the others bad, those
 * in skip skipped. The candidates measured go into seq, in order; their
 * number is returned and *r is where the search ended. */
static size_t walk(int first_bad, const bool *skip, int *seq, struct bisect_range *r)
{
    static struct bisect_step_rec v[MAX_STEPS];
    bool skipped[NCANDS];
    size_t n = 0;
    for (;;) {
        bisect_list_next(v, n, NCANDS, skipped, r);
        if (r->next < 0 || n == MAX_STEPS)
            return n;
        memset(&v[n], 0, sizeof v[n]);
        snprintf(v[n].role, sizeof v[n].role, "step");
        v[n].candidate = r->next;
        snprintf(v[n].verdict, sizeof v[n].verdict, "%s",
                 skip[r->next] ? "skip" : r->next >= first_bad ? "bad" : "good");
        seq[n++] = r->next;
    }
}

static void seq_text(const int *seq, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t o = strlen(buf);
        snprintf(buf + o, len - o, "%s%d", i ? " " : "", seq[i]);
    }
}

/* Every position of the first bad candidate found within ceil(log2(17))
 * = 5 steps (a scan from either end takes up to 16), and the exact
 * steps of three. */
static void halving(void)
{
    bool none[NCANDS] = { false };
    int seq[MAX_STEPS];
    char text[200];
    struct bisect_range r;
    static const char *const want[][2] = { { "0", "7 3 1 0" }, { "10", "7 11 9 10" }, { "16", "7 11 13 14 15" } };
    for (size_t i = 0; i < 3; i++) {
        size_t n = walk(atoi(want[i][0]), none, seq, &r);
        seq_text(seq, n, text, sizeof text);
        is_str(text, want[i][1], "first bad %s of 17: the candidates measured in order", want[i][0]);
    }
    size_t most = 0, wrong = 0;
    for (int f = 0; f < NCANDS; f++) {
        size_t n = walk(f, none, seq, &r);
        most = n > most ? n : most;
        if (r.next != -1 || r.hi != f || r.lo != f - 1 || n > 5) {
            wrong++;
            printf("# first bad %d: %zu steps, ended at (%d, %d] next %d\n", f, n, r.lo, r.hi, r.next);
        }
    }
    ok(wrong == 0, "each of the 17 positions of the first bad one found, within 5 steps (%zu not)", wrong);
    is_num(most, 5, 0, "  the most steps any takes: 5 = ceil(log2(17))");
    /* A step begun and not judged (an interrupted boot) is resumed, not
     * the middle of the range it leaves. */
    struct bisect_step_rec v[2];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 2; i++)
        snprintf(v[i].role, sizeof v[i].role, "step");
    v[0].candidate = 7;
    snprintf(v[0].verdict, sizeof v[0].verdict, "good");
    v[1].candidate = 9;
    bool skipped[NCANDS];
    bisect_list_next(v, 2, NCANDS, skipped, &r);
    ok(r.lo == 7 && r.hi == 16 && r.next == 9, "a step begun and not judged is taken up again (%d in (%d, %d))",
       r.next, r.lo, r.hi);
}

/* Where a search with skipped candidates must end: lo the last
 * candidate before first_bad that is not skipped, hi the first from it
 * on that is not (the bad kernel, the last, never is). */
static void expected_end(int first_bad, const bool *skip, int *lo, int *hi)
{
    *lo = first_bad - 1;
    while (*lo >= 0 && skip[*lo])
        (*lo)--;
    *hi = first_bad;
    while (skip[*hi])
        (*hi)++;
}

/* Skipped candidates stepped around: with any one or two of the 16 in
 * question skipped, at every position of the first bad one, the search
 * ends at the truth (hi the first bad one when lo is right before it)
 * or says only skipped ones are left, between exactly the right two. */
static void skipping(void)
{
    int seq[MAX_STEPS];
    char text[200];
    struct bisect_range r;
    bool skip[NCANDS] = { false };
    skip[9] = true;
    size_t n = walk(10, skip, seq, &r);
    seq_text(seq, n, text, sizeof text);
    is_str(text, "7 11 9 8 10", "first bad 10, 9 skipped: 9 tried, then its lower neighbour, then 10");
    ok(r.next == -1 && r.lo == 8 && r.hi == 10, "  only the skipped 9 is left: the first bad is 9 or 10 (%d, %d]",
       r.lo, r.hi);
    skip[9] = false;
    size_t runs = 0, wrong = 0, found = 0, between = 0;
    /* a -1: none skipped; b == a: one; b > a: two. */
    for (int a = -1; a < NCANDS - 1; a++)
        for (int b = a; b < NCANDS - 1 && (a >= 0 || b < 0); b++)
            for (int f = 0; f < NCANDS; f++) {
                memset(skip, 0, sizeof skip);
                if (a >= 0)
                    skip[a] = skip[b] = true;
                int lo, hi;
                expected_end(f, skip, &lo, &hi);
                n = walk(f, skip, seq, &r);
                runs++;
                bool right = r.next == -1 && r.lo == lo && r.hi == hi && (hi - lo > 1 || hi == f);
                for (int k = r.lo + 1; right && k < r.hi; k++)
                    right = skip[k];
                found += right && r.hi - r.lo == 1;
                between += right && r.hi - r.lo > 1;
                if (!right && wrong++ < 5)
                    printf("# skipped %d %d, first bad %d: ended (%d, %d] next %d, want (%d, %d]\n", a, b, f, r.lo,
                           r.hi, r.next, lo, hi);
            }
    ok(wrong == 0 && runs == 17 * (1 + 16 + 120), "%zu searches with none, one or two skipped: each ends right "
       "(%zu not)", runs, wrong);
    /* Found exactly when neither the first bad one nor the one before it
     * is skipped: all 17 with none skipped; 15 of 17 with one (16 ways);
     * with two, 14 when they are neighbours (15 ways), else 13 (105):
     * 17 + 240 + 210 + 1365 = 1832, and the other 497 end between. */
    is_num(found, 1832, 0, "  %zu of them find the first bad one", found);
    is_num(between, 497, 0, "  %zu say only skipped ones are left", between);
}

int main(void)
{
    if (system("dpkg --version > /dev/null 2>&1") == 0)
        versions_against_dpkg();
    else
        ok(1, "# SKIP no dpkg to compare with");
    verdicts();
    halving();
    skipping();
    return done_testing();
}
