/* memcaslap (libmemcached-tools' memaslap, as Debian 12 names it):
 * operations per second from its last line, and with -S the latency of
 * all operations from its closing "Total Statistics (N events)" block. */
#include <stdio.h>
#include <string.h>
#include "figures/text.h"

enum { M_OPS, M_MIN, M_AVG, M_MAX, M_STD, M_FIGURES };
static const struct metric_def memcaslap_defs[] = {
    METRIC("memcaslap.ops_per_s", "ops/s", PM_HIGHER, "gets and sets per second (the last line's TPS)"),
    METRIC("memcaslap.latency_min_us", "us", PM_LOWER,
           "shortest operation latency (only with -S: Total Statistics, Min)"),
    METRIC("memcaslap.latency_avg_us", "us", PM_LOWER, "mean operation latency (only with -S: Total Statistics, Avg)"),
    METRIC("memcaslap.latency_max_us", "us", PM_LOWER,
           "longest operation latency (only with -S: Total Statistics, Max)"),
    METRIC("memcaslap.latency_stddev_us", "us", PM_LOWER,
           "standard deviation of operation latency (only with -S: Std)"),
};
static const char *const memcaslap_keys[M_FIGURES] = { "TPS", "Min:", "Avg:", "Max:", "Std:" };

struct memcaslap_read {
    bool seen[M_FIGURES], block, in_block;
    double v[M_FIGURES];
};

static int mc_keep(struct memcaslap_read *r, int k, double v, unsigned no, struct pm_err *err)
{
    if (r->seen[k])
        return pm_errf(err, "line %u: a second %s", no, memcaslap_defs[k].name);
    r->seen[k] = true;
    r->v[k] = v;
    return 0;
}

/* "Run time: 2.0s Ops: 94395 TPS: 47190 Net_rate: 52.8M/s": the TPS. */
static bool mc_last_line(const char *line, double *tps)
{
    const char *s = fig_after(line, "Run time: "), *end;
    double x;
    if (!s || !fig_number(s, &end, &x) || !(s = fig_after(end, "s Ops: ")) || !fig_number(s, &end, &x) ||
        !(s = fig_after(end, " TPS: ")) || !fig_number(s, &end, tps))
        return false;
    return fig_after(end, " Net_rate: ") != NULL;
}

static int mc_line(struct memcaslap_read *r, const char *line, unsigned no, struct pm_err *err)
{
    const char *s = fig_skip_blanks(line), *rest;
    double v;
    if (!*s) {
        r->in_block = false;
    } else if (fig_after(s, "Total Statistics (")) {
        if (r->block)
            return pm_errf(err, "line %u: a second 'Total Statistics (N events)' block", no);
        r->block = r->in_block = true;
    } else if (mc_last_line(s, &v)) {
        return mc_keep(r, M_OPS, v, no, err);
    } else if (r->in_block) {
        for (int k = M_MIN; k < M_FIGURES; k++)
            if ((rest = fig_after(s, memcaslap_keys[k]))) {
                if (!fig_number_all(rest, &v))
                    return pm_errf(err, "line %u: the latency's %s is not a number", no, memcaslap_keys[k]);
                return mc_keep(r, k, v, no, err);
            }
    }
    return 0;
}

static int memcaslap_parse(const char *text, const char *log, struct figure_set *out, struct pm_err *err)
{
    (void)log;
    struct memcaslap_read r;
    struct fig_lines it;
    memset(&r, 0, sizeof r);
    fig_lines_init(&it, text);
    while (fig_lines_next(&it))
        if (mc_line(&r, it.line, it.no, err) < 0)
            return -1;
    if (!r.seen[M_OPS])
        return fig_missing(err, memcaslap_defs[M_OPS].name,
                           "no last line 'Run time: Ns Ops: N TPS: N Net_rate: ...' (memcaslap prints it when the "
                           "run completes)", text);
    /* The block is there only with -S; once there, all of it is. */
    for (int k = M_MIN; r.block && k < M_FIGURES; k++)
        if (!r.seen[k])
            return pm_errf(err, "no %s: the Total Statistics block has no %s line", memcaslap_defs[k].name,
                           memcaslap_keys[k]);
    for (int k = 0; k < M_FIGURES; k++)
        if (r.seen[k] && figure_set_add(out, &memcaslap_defs[k], NULL, r.v[k], err) < 0)
            return -1;
    return 0;
}

/* The headline (docs/guide/figures.md says why each). */
static const char *const memcaslap_headline[] = { "memcaslap.ops_per_s", NULL };

const struct figure_parser figures_memcaslap = {
    .name = "memcaslap",
    .reads = "memcaslap's output (-S for its latency)",
    .defs = memcaslap_defs,
    .n = sizeof memcaslap_defs / sizeof memcaslap_defs[0],
    .headline = memcaslap_headline,
    .parse = memcaslap_parse,
};
