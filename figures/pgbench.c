/* pgbench: its summary's tps, latency average and stddev, transactions
 * processed and failed, and, from its per-transaction log (-l), the latency
 * percentiles pgbench itself does not print. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figures/text.h"
#include "lib/alloc.h"
#include "lib/percentile.h"

enum { P_TPS, P_AVG, P_STDDEV, P_FAILED, P_TX, P_P50, P_P99, P_P999, P_FIGURES };
static const struct metric_def pgbench_defs[] = {
    METRIC("pgbench.tps", "tx/s", PM_HIGHER, "transactions per second (tps = ..., without initial connection time)"),
    METRIC("pgbench.latency_avg_ms", "ms", PM_LOWER, "mean transaction latency (latency average)"),
    METRIC("pgbench.latency_stddev_ms", "ms", PM_LOWER,
           "standard deviation of transaction latency (latency stddev; pgbench prints it only with -P, -R or "
           "--latency-limit)"),
    METRIC("pgbench.failed_transactions", "count", PM_LOWER,
           "transactions that failed (number of failed transactions)"),
    METRIC("pgbench.transactions", "count", PM_HIGHER,
           "transactions completed (number of transactions actually processed; with -t, of clients x -t)"),
    METRIC("pgbench.latency_p50_us", "us", PM_LOWER,
           "median transaction latency, from the per-transaction log (only when it is given)"),
    METRIC("pgbench.latency_p99_us", "us", PM_LOWER,
           "99th percentile of transaction latency, from the log (only when it is given)"),
    METRIC("pgbench.latency_p999_us", "us", PM_LOWER,
           "99.9th percentile of transaction latency, from the log (only when it is given)"),
};

/* What each summary figure's line starts with and what follows its
 * number; pgbench before 14 wrote the tps line's note as "excluding
 * connections establishing", which means the same. */
static const struct {
    int def;
    const char *prefix, *suffix, *alt_suffix;
    const char *form;            /* the line as an error names it; NULL: prefix, N, suffix */
} pgbench_lines[] = {
    { P_TPS, "tps = ", " (without initial connection time)", " (excluding connections establishing)", NULL },
    { P_AVG, "latency average = ", " ms", NULL, NULL },
    { P_STDDEV, "latency stddev = ", " ms", NULL, NULL },
    /* "N/M" with -t, "N" alone with -T (suffix NULL: pg_count_end). */
    { P_TX, "number of transactions actually processed: ", NULL, NULL,
      "number of transactions actually processed: N[/M]" },
    { P_FAILED, "number of failed transactions: ", " (", NULL, NULL },
};
#define PG_LINES (sizeof pgbench_lines / sizeof pgbench_lines[0])

/* After the count of transactions processed: nothing (-T), or "/" and
 * the whole number planned (-t); "1000/x" or "1000x" is no count. */
static bool pg_count_end(const char *end)
{
    if (*end == '\0')
        return true;
    size_t n = end[0] == '/' ? strspn(end + 1, "0123456789") : 0;
    return n > 0 && end[1 + n] == '\0';
}

/* line as one of the summary's figures: its index in pgbench_lines, or -1. */
static int pg_summary_line(const char *line, double *v)
{
    for (size_t k = 0; k < PG_LINES; k++) {
        const char *s = fig_after(line, pgbench_lines[k].prefix), *end;
        if (!s || !fig_number(s, &end, v))
            continue;
        const char *suffix = pgbench_lines[k].suffix, *alt = pgbench_lines[k].alt_suffix;
        if (suffix ? strncmp(end, suffix, strlen(suffix)) == 0 || (alt && strcmp(end, alt) == 0) : pg_count_end(end))
            return (int)k;
    }
    return -1;
}

/* pgbench's last word when a client aborted (an error that is not a
 * serialization failure or deadlock, which it may retry): the summary
 * above it counts only what ran before, so it is no figure. */
#define PG_ABORTED "Run was aborted; the above results are incomplete."

static int pg_summary(const char *text, struct figure_set *out, struct pm_err *err)
{
    struct fig_lines it;
    double v[PG_LINES];
    bool seen[PG_LINES] = { false };
    fig_lines_init(&it, text);
    while (fig_lines_next(&it)) {
        double x;
        if (strstr(it.line, PG_ABORTED)) {
            char hint[160];
            fig_hint(text, hint, sizeof hint);
            return pm_errf(err, "line %u: pgbench says '" PG_ABORTED "', no figure is whole (the output says: %s)",
                           it.no, hint);
        }
        int k = pg_summary_line(it.line, &x);
        if (k < 0)
            continue;
        if (seen[k])
            return pm_errf(err, "line %u: a second '%s' line", it.no, pgbench_lines[k].prefix);
        seen[k] = true;
        v[k] = x;
    }
    for (size_t k = 0; k < PG_LINES; k++) {
        char what[128];
        if (pgbench_lines[k].form)
            snprintf(what, sizeof what, "no line '%s'", pgbench_lines[k].form);
        else
            snprintf(what, sizeof what, "no line '%sN%s'", pgbench_lines[k].prefix, pgbench_lines[k].suffix);
        /* The stddev is printed only when asked for; its absence is no failure. */
        if (!seen[k] && pgbench_lines[k].def != P_STDDEV)
            return fig_missing(err, pgbench_defs[pgbench_lines[k].def].name, what, text);
    }
    for (size_t k = 0; k < PG_LINES; k++)
        if (seen[k] && figure_set_add(out, &pgbench_defs[pgbench_lines[k].def], NULL, v[k], err) < 0)
            return -1;
    return 0;
}

/* A whole non-negative integer field of at most 18 digits. */
static bool pg_int(const char *s, int64_t *v)
{
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 18 || s[n])
        return false;
    *v = strtoll(s, NULL, 10);
    return true;
}

/* One line of the per-transaction log: "client_id transaction_no time
 * script_no time_epoch time_us [schedule_lag] [retries]", time in us or
 * "skipped" / "failed" (a transaction with no latency). 1 with *us, 0 for
 * such a transaction, -1 for a line of another shape (an aggregated log,
 * --aggregate-interval, is not read). */
static int pg_log_line(char *line, int64_t *us)
{
    char *f[9], *save = NULL;
    int n = 0;
    for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (n < 9)
            f[n++] = t;
        else
            return -1;
    if (n < 6 || n > 8)
        return -1;
    int64_t x;
    for (int i = 0; i < n; i++)
        if (i != 2 && !pg_int(f[i], &x))
            return -1;
    /* time_epoch is a time in seconds (after 2001) and time_us the
     * microseconds of that second, below a million: where an aggregated
     * log has its shortest and longest latency. */
    if (!pg_int(f[4], &x) || x < 1000000000 || !pg_int(f[5], &x) || x >= 1000000)
        return -1;
    if (strcmp(f[2], "skipped") == 0 || strcmp(f[2], "failed") == 0)
        return 0;
    return pg_int(f[2], us) ? 1 : -1;
}

static int pg_log(const char *log, struct figure_set *out, struct pm_err *err)
{
    struct fig_lines it;
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    fig_lines_init(&it, log);
    while (rc == 0 && fig_lines_next(&it)) {
        int64_t us;
        int k = it.long_line ? -1 : *it.line ? pg_log_line(it.line, &us) : 0;
        if (k < 0)
            rc = pm_errf(err, "line %u of the log is not pgbench's per-transaction log (-l, without "
                         "--aggregate-interval)", it.no);
        else if (k > 0 && ALLOC_GROW(v, n + 1, cap) < 0)
            rc = pm_errf(err, "out of memory at line %u of the log", it.no);
        else if (k > 0)
            v[n++] = us;
    }
    if (rc == 0 && n == 0)
        rc = pm_errf(err, "no %s: the log holds no transaction that completed", pgbench_defs[P_P50].name);
    static const double pct[] = { 50, 99, 99.9 };
    for (int k = 0; rc == 0 && k < 3; k++)
        rc = figure_set_add(out, &pgbench_defs[P_P50 + k], NULL, pm_percentile_i64(v, n, pct[k]), err);
    free(v);
    return rc;
}

static int pgbench_parse(const char *text, const char *log, struct figure_set *out, struct pm_err *err)
{
    if (pg_summary(text, out, err) < 0)
        return -1;
    return log ? pg_log(log, out, err) : 0;
}

/* The headline (docs/guide/figures.md says why each). */
static const char *const pgbench_headline[] = { "pgbench.tps", NULL };

const struct figure_parser figures_pgbench = {
    .name = "pgbench",
    .reads = "pgbench's output, and its per-transaction log (-l) when given",
    .defs = pgbench_defs,
    .n = sizeof pgbench_defs / sizeof pgbench_defs[0],
    .takes_log = true,
    .headline = pgbench_headline,
    .parse = pgbench_parse,
};
