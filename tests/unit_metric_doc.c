/* The metric catalogue: names with placeholders, and the check the tests'
 * strict mode applies to every stored metric. */
#include <string.h>
#include "lib/metric_doc.h"
#include "tests/tap.h"

int main(void)
{
    ok(metric_doc_check("time.elapsed_s", "s", PM_LOWER) == NULL, "a catalogued metric with its unit and direction");
    ok(metric_doc_check("chat.latency_p99_us", "us", PM_LOWER) == NULL, "a latency metric (run_latency's names)");
    ok(metric_doc_check("psi.memory.some_s", "s", PM_LOWER) == NULL, "<resource> matches memory");
    ok(metric_doc_check("stall.compaction.p99_us", "us", PM_LOWER) == NULL, "<kind> matches compaction");
    ok(metric_doc_find("psi..some_s") == NULL, "a placeholder matches one character at least");
    ok(metric_doc_find("psi.memory.extra.some_s") == NULL, "a placeholder does not match a dot");
    ok(metric_doc_find("time.elapsed_s2") == NULL, "a name matches whole, not as a prefix");
    const char *why = metric_doc_check("time.elapsed_s", "ms", PM_LOWER);
    ok(why && strstr(why, "stored as ms, lower; the catalogue (lib/metric_doc.c) says s, lower"),
       "another unit is named: %s", why ? why : "(none)");
    why = metric_doc_check("time.elapsed_s", "s", PM_HIGHER);
    ok(why && strstr(why, "stored as s, higher"), "another direction is named");
    why = metric_doc_check("made.up", "s", PM_LOWER);
    ok(why && strstr(why, "metric made.up is not in the catalogue"), "a missing metric is named");

    /* Every entry is complete, and no two entries match the same name. */
    size_t bad = 0, twice = 0;
    for (size_t i = 0; i < metric_docs_n; i++) {
        const struct metric_doc *d = &metric_docs[i];
        if (d->group)
            continue;
        if (!d->unit || !d->unit[0] || !d->meaning || !d->meaning[0])
            bad++;
        if (!strchr(d->name, '<') && metric_doc_find(d->name) != d)
            twice++;
    }
    ok(bad == 0, "every entry has a unit and a meaning (%zu without)", bad);
    ok(twice == 0, "every name is found as its own entry (%zu shadowed)", twice);
    ok(metric_docs[0].group != NULL, "the catalogue begins with a group heading");
    return done_testing();
}
