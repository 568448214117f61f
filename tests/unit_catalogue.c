/* The metric catalogue, gathered from where each metric is declared: names
 * with placeholders, latency families, and the check the tests' strict
 * mode applies to every stored metric. */
#include <string.h>
#include "harness/catalogue.h"
#include "workloads/workload.h"
#include "tests/tap.h"

static const struct metric_def *find(const char *name)
{
    const char *unit;
    enum metric_dir dir;
    return catalogue_find(name, &unit, &dir);
}

int main(void)
{
    ok(catalogue_check("time.elapsed_s", "s", PM_LOWER) == NULL, "a catalogued metric with its unit and direction");
    ok(catalogue_check("chat.latency_p99_us", "us", PM_LOWER) == NULL, "a latency metric (run_latency's names)");
    ok(catalogue_check("chat.latency_samples", "count", PM_NEITHER) == NULL, "a latency family's count");
    ok(catalogue_check("chat.latency_p99_us", "count", PM_NEITHER) != NULL, "a percentile is not a count");
    ok(catalogue_check("psi.memory.some_s", "s", PM_LOWER) == NULL, "<resource> matches memory");
    ok(catalogue_check("stall.compaction.p99_us", "us", PM_LOWER) == NULL, "<kind> matches compaction");
    ok(find("psi..some_s") == NULL, "a placeholder matches one character at least");
    ok(find("psi.memory.extra.some_s") == NULL, "a placeholder does not match a dot");
    ok(find("time.elapsed_s2") == NULL, "a name matches whole, not as a prefix");
    ok(find("chat.latency_p98_us") == NULL, "a latency family has its seven members only");
    const char *why = catalogue_check("time.elapsed_s", "ms", PM_LOWER);
    ok(why && strstr(why, "stored as ms, lower; its declaration says s, lower"),
       "another unit is named: %s", why ? why : "(none)");
    why = catalogue_check("time.elapsed_s", "s", PM_HIGHER);
    ok(why && strstr(why, "stored as s, higher"), "another direction is named");
    why = catalogue_check("made.up", "s", PM_LOWER);
    ok(why && strstr(why, "metric made.up is not declared"), "a missing metric is named");

    /* Every entry is complete, and no two entries match the same name. */
    size_t n, bad = 0, twice = 0, defs = 0;
    const struct metric_group *const *g = catalogue_groups(&n);
    for (size_t i = 0; i < n; i++) {
        if (!g[i]->title || !strchr(g[i]->title, ':'))
            bad++;
        for (size_t k = 0; k < g[i]->n; k++) {
            const struct metric_def *d = &g[i]->defs[k];
            defs++;
            if (!d->name || !d->unit || !d->unit[0] || !d->meaning || !d->meaning[0])
                bad++;
            else if (!strchr(d->name, '<') && !d->latency && find(d->name) != d)
                twice++;
        }
    }
    ok(bad == 0, "every group has a heading, every entry a unit and a meaning (%zu without)", bad);
    ok(twice == 0, "every name is found as its own entry (%zu shadowed)", twice);
    ok(n >= 19 && defs >= 170, "every producer's group is gathered (%zu groups, %zu metrics)", n, defs);
    ok(g[0] == &run_time_metrics, "the catalogue begins with the time group");
    return done_testing();
}
