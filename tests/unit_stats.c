/* Statistics against independently known values. */
#include "stats/stats.h"
#include "tests/tap.h"

int main(void)
{
    struct summary a, b;
    double s1[] = { 2, 1, 3, 4 }, s2[] = { 6, 5, 7, 9 };
    stats_summary(s1, 4, &a);
    stats_summary(s2, 4, &b);
    is_num(a.mean, 2.5, 1e-12, "mean of 2,1,3,4");
    is_num(a.sd, 1.2909944487358056, 1e-12, "sample standard deviation (n - 1) of 2,1,3,4");
    is_num(a.median, 2.5, 1e-12, "median of an even count");
    is_num(b.cv_pct, 1.707825127659933 / 6.75 * 100, 1e-9, "CV%% of 6,5,7,9");
    ok(a.min == 1 && a.max == 4, "min and max");
    struct welch w;
    /* R: t.test(c(2,1,3,4), c(6,5,7,9)) -> t = -3.9703, df = 5.5846, p-value = 0.008513
     * (values as in Go's x/perf stats tests, checked against R). */
    stats_welch(&b, &a, &w);
    ok(w.valid, "Welch's test with 4 runs a side");
    is_num(w.t, -3.9703446152237674, 1e-9, "Welch t");
    is_num(w.df, 5.584615384615385, 1e-9, "Welch-Satterthwaite degrees of freedom");
    is_num(w.p, 0.0085128631313781695, 1e-9, "two-sided p-value");
    is_num(w.diff, -4.25, 1e-12, "difference of means");
    /* 95% CI: diff +/- t_0.975(5.58) se, se = sqrt(5/12 + 35/48) = 1.07044; the
     * quantile lies between the printed table's t_0.975(6) = 2.4469 and t_0.975(5) = 2.5706. */
    double q = (w.ci_high - w.ci_low) / 2 / 1.0704360;
    ok(q > 2.4469 && q < 2.5706, "95%% CI half-width / se = %.4f, between t_0.975 at 6 and 5 df", q);
    ok(w.ci_low < w.diff && w.diff < w.ci_high, "the CI contains the difference");
    stats_welch(&a, &a, &w);
    is_num(w.t, 0, 0, "a sample against itself: t = 0");
    is_num(w.p, 1, 1e-12, "and p = 1");

    struct summary one;
    double v1[] = { 5 };
    stats_summary(v1, 1, &one);
    stats_welch(&a, &one, &w);
    ok(!w.valid, "one run on a side: no test");
    double c1[] = { 3, 3, 3 }, c2[] = { 4, 4, 4 };
    struct summary k1, k2;
    stats_summary(c1, 3, &k1);
    stats_summary(c2, 3, &k2);
    stats_welch(&k1, &k2, &w);
    ok(w.valid && w.p == 0, "two constant samples that differ: p = 0");

    is_num(stats_change_pct(51824, 46053, "higher"), -11.1357, 1e-3, "msg/s down 11.1 %%: -11.1 (worse)");
    is_num(stats_change_pct(393.72, 329.08, "lower"), 16.4177, 1e-3, "elapsed down 16.4 %%: +16.4 (better)");
    ok(isnan(stats_change_pct(0, 5, "higher")), "no change against a zero baseline");

    /* the 2002 VolanoMark report: 46053/51824 = 88.9 %, "runs 11 % slower with the rmap patch". */
    char buf[512];
    struct summary base = { .n = 5, .mean = 51824 }, cand = { .n = 5, .mean = 46053 };
    struct judged_p sig = { .valid = true, .p = 0.003, .p_adj = 0.003, .family = 1 };
    stats_ratio_sentence(buf, sizeof buf, "chat", "2.5.26rmap", "2.5.26", &cand, &base, &sig, "higher", 0.05);
    is_str(buf, "46,053/51,824 = 88.9 %: chat runs 11.1 % slower with 2.5.26rmap than with 2.5.26 (p = 0.003, n = 5/5)",
           "the report's ratio sentence");
    struct judged_p ns = { .valid = true, .p = 0.41, .p_adj = 0.41, .family = 1 };
    stats_ratio_sentence(buf, sizeof buf, "chat", "B", "A", &cand, &base, &ns, "higher", 0.05);
    is_str(buf, "46,053/51,824 = 88.9 %: no significant difference between B and A (p = 0.41, n = 5/5)",
           "not significant at alpha 0.05");
    struct summary t0 = { .n = 5, .mean = 371 }, t1 = { .n = 5, .mean = 343 };
    stats_ratio_sentence(buf, sizeof buf, "build", "anon_mm", "2.6.5", &t1, &t0, &sig, "lower", 0.05);
    is_str(buf, "343/371 = 92.5 %: build runs 7.5 % faster with anon_mm than with 2.6.5 (p = 0.003, n = 5/5)",
           "for a time, a lower ratio is faster (the 2004 objrmap report's averages)");
    struct judged_p small = { .valid = false };
    struct summary c1r = { .n = 1, .mean = 46053 };
    stats_ratio_sentence(buf, sizeof buf, "chat", "B", "A", &c1r, &base, &small, "higher", 0.05);

    ok(strstr(buf, "n too small") != NULL, "one run: n too small, said plainly");

    /* People read these: never e-notation, a p below a thousandth a bound. */
    struct summary huge0 = { .n = 3, .mean = 124074074.3 }, huge1 = { .n = 3, .mean = 224074074.3 };
    struct judged_p tiny_p = { .valid = true, .p = 1.16e-08, .p_adj = 1.16e-08, .family = 1 };
    stats_ratio_sentence(buf, sizeof buf, "record", "big-b", "big-a", &huge1, &huge0, &tiny_p, "lower", 0.05);
    is_str(buf, "224,074,074/124,074,074 = 180.6 %: record runs 80.6 % slower with big-b than with big-a (p < 0.001, n = 3/3)",
           "means of hundreds of millions and p = 1.16e-08, as people read them");
    struct summary small0 = { .n = 3, .mean = 0.0000123 }, small1 = { .n = 3, .mean = 0.0000246 };
    stats_ratio_sentence(buf, sizeof buf, "record", "b", "a", &small1, &small0, &ns, "lower", 0.05);
    is_str(buf, "0.0000246/0.0000123 = 200.0 %: no significant difference between b and a (p = 0.41, n = 3/3)",
           "means of millionths in decimals");
    /* In a family the adjusted p decides: 0.003 raw is 0.018 over six, and
     * 0.03 raw is 0.09 over three: no longer significant at 0.05. */
    struct judged_p fam = { .valid = true, .p = 0.003, .p_adj = 0.018, .family = 6 };
    stats_ratio_sentence(buf, sizeof buf, "chat", "B", "A", &cand, &base, &fam, "higher", 0.05);
    is_str(buf, "46,053/51,824 = 88.9 %: chat runs 11.1 % slower with B than with A (p = 0.003, adjusted 0.018 over 6 "
           "comparisons, n = 5/5)", "a family's sentence shows raw and adjusted p");
    struct judged_p fam_ns = { .valid = true, .p = 0.03, .p_adj = 0.09, .family = 3 };
    stats_ratio_sentence(buf, sizeof buf, "chat", "B", "A", &cand, &base, &fam_ns, "higher", 0.05);
    is_str(buf, "46,053/51,824 = 88.9 %: no significant difference between B and A (p = 0.03, adjusted 0.09 over 3 "
           "comparisons, n = 5/5)", "the adjusted p, not the raw one, is held against alpha");
    struct judged_p rank = { .valid = true, .p = 0.0079, .p_adj = 0.0001, .family = 2, .both = true };
    stats_fmt_judged_p(buf, sizeof buf, &rank);
    is_str(buf, "p = 0.0079 (the larger of Welch's and Mann-Whitney's: an outlier), adjusted < 0.001 over 2 comparisons",
           "with an outlier, the p both tests must pass says so");
    stats_fmt_p(buf, sizeof buf, 0.00878, false);
    is_str(buf, "p = 0.00878", "p for a sentence");
    stats_fmt_p(buf, sizeof buf, 0.00001, true);
    is_str(buf, "p<0.001", "p below a thousandth, for a table cell (not p=1e-05)");
    stats_fmt_p(buf, sizeof buf, 0.001, true);
    is_str(buf, "p=0.001", "  a thousandth itself is shown");
    return done_testing();
}
