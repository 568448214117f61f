/* hackbench (rt-tests): the run's time, its one "Time: S" line. */
#include <stdio.h>
#include "figures/text.h"

static const struct metric_def hackbench_defs[] = {
    METRIC("hackbench.time_s", "s", PM_LOWER, "the time to pass every message between the groups (Time:)"),
};

static int hackbench_parse(const char *text, const char *log, struct figure_set *out, struct pm_err *err)
{
    (void)log;
    struct fig_lines it;
    double v = 0;
    bool seen = false;
    fig_lines_init(&it, text);
    while (fig_lines_next(&it)) {
        const char *rest = fig_after(it.line, "Time:");
        if (!rest)
            continue;
        /* One run prints one time; two would leave which one unknown. */
        if (seen)
            return pm_errf(err, "line %u: a second 'Time:' line", it.no);
        if (!fig_number_all(rest, &v))
            return pm_errf(err, "line %u: the time is not a number", it.no);
        seen = true;
    }
    if (!seen)
        return fig_missing(err, hackbench_defs[0].name, "no 'Time: S' line", text);
    return figure_set_add(out, &hackbench_defs[0], NULL, v, err);
}

/* The headline (docs/guide/figures.md says why each). */
static const char *const hackbench_headline[] = { "hackbench.time_s", NULL };

const struct figure_parser figures_hackbench = {
    .name = "hackbench",
    .reads = "hackbench's output",
    .defs = hackbench_defs,
    .n = sizeof hackbench_defs / sizeof hackbench_defs[0],
    .headline = hackbench_headline,
    .parse = hackbench_parse,
};
