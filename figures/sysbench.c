/* sysbench TEST run (cpu, memory): events per second and the "Latency
 * (ms)" block's min, avg, max and percentile, as sysbench prints them (ms
 * to two decimals: a memory test's sub-10 us latencies read 0.00, which
 * is sysbench's own figure). */
#include <stdio.h>
#include <string.h>
#include "figures/text.h"

enum { Y_EPS, Y_MIN, Y_AVG, Y_MAX, Y_PCT, Y_MIB, Y_FIGURES };
static const struct metric_def sysbench_defs[] = {
    METRIC("sysbench.events_per_s", "events/s", PM_HIGHER,
           "events per second (cpu: events per second; memory: Total operations' per second)"),
    METRIC("sysbench.latency_min_ms", "ms", PM_LOWER, "shortest event latency (Latency (ms): min)"),
    METRIC("sysbench.latency_avg_ms", "ms", PM_LOWER, "mean event latency (Latency (ms): avg)"),
    METRIC("sysbench.latency_max_ms", "ms", PM_LOWER, "longest event latency (Latency (ms): max)"),
    METRIC("sysbench.latency_p<pct>_ms", "ms", PM_LOWER,
           "the --percentile (95 unless set) of event latency (NNth percentile; none with --percentile=0)"),
    METRIC("sysbench.mib_per_s", "MiB/s", PM_HIGHER, "memory test only: MiB transferred per second"),
};

struct sysbench_read {
    bool seen[Y_FIGURES], in_latency;
    double v[Y_FIGURES];
    char pct[FIGURES_MAX_WORD + 1];
};

static int sb_keep(struct sysbench_read *r, int k, double v, unsigned no, struct pm_err *err)
{
    if (r->seen[k])
        return pm_errf(err, "line %u: a second line for %s", no, sysbench_defs[k].name);
    r->seen[k] = true;
    r->v[k] = v;
    return 0;
}

/* "NNth percentile:   X" inside the latency block. */
static int sb_percentile(struct sysbench_read *r, const char *s, unsigned no, struct pm_err *err)
{
    size_t d = strspn(s, "0123456789");
    const char *rest = d ? fig_after(s + d, "th percentile:") : NULL;
    double v;
    if (!rest)
        return 0;
    if (!fig_number_all(rest, &v))
        return pm_errf(err, "line %u: the latency percentile is not a number", no);
    if (!fig_word(s, d, r->pct))
        return pm_errf(err, "line %u: no percentile", no);
    return sb_keep(r, Y_PCT, v, no, err);
}

static int sb_line(struct sysbench_read *r, const char *line, unsigned no, struct pm_err *err)
{
    static const char *const lat_keys[] = { [Y_MIN] = "min:", [Y_AVG] = "avg:", [Y_MAX] = "max:" };
    const char *s = fig_skip_blanks(line), *rest, *end;
    double v;
    if (!*s)
        r->in_latency = false;
    else if (strcmp(s, "Latency (ms):") == 0)
        r->in_latency = true;
    else if ((rest = fig_after(s, "events per second:")) && fig_number_all(rest, &v))
        return sb_keep(r, Y_EPS, v, no, err);
    else if ((rest = fig_after(s, "Total operations: ")) && fig_number(rest, &end, &v) &&
             (rest = fig_after(end, " (")) && fig_number(rest, &end, &v) && strcmp(end, " per second)") == 0)
        return sb_keep(r, Y_EPS, v, no, err);
    else if (fig_number(s, &end, &v) && (rest = fig_after(end, " MiB transferred (")) && fig_number(rest, &end, &v) &&
             strcmp(end, " MiB/sec)") == 0)
        return sb_keep(r, Y_MIB, v, no, err);
    else if (r->in_latency) {
        for (int k = Y_MIN; k <= Y_MAX; k++)
            if ((rest = fig_after(s, lat_keys[k]))) {
                if (!fig_number_all(rest, &v))
                    return pm_errf(err, "line %u: the latency %s is not a number", no, lat_keys[k]);
                return sb_keep(r, k, v, no, err);
            }
        return sb_percentile(r, s, no, err);
    }
    return 0;
}

static int sysbench_parse(const char *text, const char *log, struct figure_set *out, struct pm_err *err)
{
    (void)log;
    static const char *const need[] = {
        [Y_EPS] = ("no 'events per second:' (cpu) or 'Total operations: N (X per second)' (memory) line; "
                   "sysbench's other tests print no rate"),
        [Y_MIN] = "no 'min:' in a 'Latency (ms):' block",
        [Y_AVG] = "no 'avg:' in a 'Latency (ms):' block",
        [Y_MAX] = "no 'max:' in a 'Latency (ms):' block",
    };
    struct sysbench_read r;
    struct fig_lines it;
    memset(&r, 0, sizeof r);
    fig_lines_init(&it, text);
    while (fig_lines_next(&it))
        if (sb_line(&r, it.line, it.no, err) < 0)
            return -1;
    for (int k = Y_EPS; k <= Y_MAX; k++)
        if (!r.seen[k])
            return fig_missing(err, sysbench_defs[k].name, need[k], text);
    for (int k = 0; k < Y_FIGURES; k++)
        if (r.seen[k] && figure_set_add(out, &sysbench_defs[k], k == Y_PCT ? r.pct : NULL, r.v[k], err) < 0)
            return -1;
    return 0;
}

/* The headline (docs/guide/figures.md says why each). */
static const char *const sysbench_headline[] = { "sysbench.events_per_s", NULL };

const struct figure_parser figures_sysbench = {
    .name = "sysbench",
    .reads = "sysbench cpu run, sysbench memory run",
    .defs = sysbench_defs,
    .n = sizeof sysbench_defs / sizeof sysbench_defs[0],
    .headline = sysbench_headline,
    .parse = sysbench_parse,
};
