/* compare --history's family (reports/history_gate.h): Holm's step-down
 * over the gated metrics with p-values fixed here, so that Holm is told
 * from Bonferroni and from a family that counts the wrong members; the
 * permutations each family size gets; and which metrics are gated. The
 * arithmetic is Holm's (1979) by hand: sorted p_(1) <= ... <= p_(m),
 * adjusted p_(k) = max over j <= k of min(1, (m - j + 1) p_(j)). */
#include <math.h>
#include <string.h>
#include "reports/history_gate.h"
#include "reports/present.h"
#include "tests/tap.h"
#include "workloads/workload.h"

static bool present_workload(const char *name, struct wl_present *out)
{
    const struct workload_ops *wl = workload_find(name);
    if (!wl)
        return false;
    *out = (struct wl_present){ .headline = wl->headline, .title = wl->headline_title,
                                .compare_also = wl->compare_also };
    return true;
}

static void family(void)
{
    /* 0.01, 0.02 and 0.04, all members, at 0.05: 3 x 0.01 = 0.03, 2 x 0.02
     * = 0.04, 1 x 0.04 = 0.04 -> each holds (Bonferroni would give 0.03,
     * 0.06 and 0.12: only the first). */
    const double p[] = { 0.04, 0.01, 0.02 };
    const bool all[] = { true, true, true };
    double adj[3];
    bool fires[3];
    ok(hgate_family(p, all, 3, 0.05, adj, fires) == 0, "Holm over 3 gated metrics");
    is_num(adj[1], 0.03, 1e-15, "  the smallest, 0.01, times 3: 0.03");
    is_num(adj[2], 0.04, 1e-15, "  the next, 0.02, times 2: 0.04");
    is_num(adj[0], 0.04, 1e-15, "  the largest, 0.04, times 1: 0.04 (Bonferroni's 0.12)");
    ok(fires[0] && fires[1] && fires[2], "  all three hold at 0.05 (Bonferroni would keep only 0.01)");

    /* A non-member never fires and is not counted: 0.001 outside, 0.02
     * and 1 inside -> 0.02 x 2 = 0.04. */
    const double q[] = { 0.001, 0.02, 1 };
    const bool in[] = { false, true, true };
    ok(hgate_family(q, in, 3, 0.05, adj, fires) == 0, "a family of 2 among 3 metrics");
    ok(!fires[0] && isnan(adj[0]), "  the metric not gated (p 0.001) never fires, no adjusted p");
    is_num(adj[1], 0.04, 1e-15, "  0.02 over the 2 members: 0.04, not 0.06");
    ok(fires[1] && !fires[2], "  it holds at 0.05; the member without a candidate (p 1) does not");

    /* Holm bites: 0.016 alone holds at 0.03; beside a second gated metric
     * without a change (p 1) it is 0.032 and does not. */
    const double one[] = { 0.016 }, two[] = { 0.016, 1 };
    const bool in1[] = { true }, in2[] = { true, true };
    hgate_family(one, in1, 1, 0.03, adj, fires);
    ok(fires[0], "0.016 alone at 0.03: a regression");
    hgate_family(two, in2, 2, 0.03, adj, fires);
    ok(!fires[0] && fabs(adj[0] - 0.032) < 1e-15, "  beside a second gated metric: 0.032, none");

    ok(hgate_family(NULL, NULL, 0, 0.05, adj, fires) == 0, "an empty family: nothing to adjust, no error");
}

static void permutations(void)
{
    struct cp_opts o;
    hgate_cp_opts(0.05, 1, &o);
    ok(o.permutations == 199 && o.max_p == 0.05, "one metric at 0.05: the default 199 permutations, p kept at 0.05");
    hgate_cp_opts(0.05, 2, &o);
    ok(o.permutations == 399, "two at 0.05: 399, so 0.025 is resolved ten times over");
    hgate_cp_opts(0.025, 2, &o);
    ok(o.permutations == 799, "two at 0.025: 799");
    hgate_cp_opts(1e-9, 10, &o);
    ok(o.permutations == HGATE_MAX_PERMUTATIONS, "a tiny alpha: capped at %d", HGATE_MAX_PERMUTATIONS);
}

static void gated(void)
{
    report_set_workload_lookup(present_workload);
    struct hgate_pick picks[16];
    size_t n = hgate_metrics("chat", NULL, 0, picks, 16);
    ok(n >= 3 && strcmp(picks[0].metric, "chat.msgs_per_s") == 0 && picks[0].kind == HGATE_HEADLINE,
       "chat: the headline first, gated");
    size_t gated_n = 0;
    for (size_t i = 0; i < n; i++)
        gated_n += picks[i].kind == HGATE_HEADLINE || picks[i].kind == HGATE_ASKED;
    ok(gated_n == 1, "  and nothing else gated without --metric (%zu metrics judged)", n);
    const char *asked[] = { "chat.latency_p99_us", "vmstat.pgscan_total" };
    size_t m = hgate_metrics("chat", asked, 2, picks, 16);
    ok(m == n + 1 && picks[1].kind == HGATE_ASKED && picks[2].kind == HGATE_ASKED,
       "--metric twice: both gated, once each (p99 is no longer a second figure), the rest still shown");
    ok(m <= hgate_metrics_max("chat", 2), "  within hgate_metrics_max's room");
}

int main(void)
{
    family();
    permutations();
    gated();
    return done_testing();
}
