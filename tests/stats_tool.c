/* pressmark's statistics on numbers given on the command line, for
 * tests/t47-statistics.t to hold against independent implementations
 * (Debian's scipy and statsmodels, tests/changepoint_ref.py's brute
 * force and tests/changepoint_exact.py's enumeration of the permutation
 * distribution). Not installed; a subcommand per function:
 *   stats_tool SUBCOMMAND NUMBER...    one answer on a line
 *   stats_tool SUBCOMMAND -            NUMBER... per line of stdin, an answer each
 * Two samples are given as A... '|' B... . Answers are printed with 10
 * significant digits, several on a line separated by blanks. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "stats/bootstrap.h"
#include "stats/changepoint.h"
#include "stats/family.h"
#include "stats/geomean.h"
#include "stats/outlier.h"
#include "stats/power.h"
#include "stats/ranktest.h"
#include "stats/ratio_ci.h"
#include "stats/stats.h"
#include "stats/trend.h"

struct sub {
    const char *name, *args;
    int nargs;                   /* -1: any count (fn gets it) */
    void (*fn)(const double *a);
    void (*fnv)(const double *a, int n);
};

#define MAX_NUMBERS 4096

static unsigned as_runs(double v)
{
    return v >= 0 && v <= 1e9 ? (unsigned)v : 0;
}

/* The two samples of a, split at the '|' (NaN): *na and *nb of them. */
static const double *split(const double *a, int n, int *na, const double **b, int *nb)
{
    int i = 0;
    while (i < n && !isnan(a[i]))
        i++;
    *na = i;
    *b = a + (i < n ? i + 1 : n);
    *nb = i < n ? n - i - 1 : 0;
    return a;
}

static void do_welch(const double *a, int n)
{
    int na, nb;
    const double *b;
    split(a, n, &na, &b, &nb);
    double x[MAX_NUMBERS], y[MAX_NUMBERS];
    memcpy(x, a, (size_t)na * sizeof *x);
    memcpy(y, b, (size_t)nb * sizeof *y);
    struct summary sa, sb;
    struct welch w;
    stats_summary(x, (size_t)na, &sa);
    stats_summary(y, (size_t)nb, &sb);
    stats_welch(&sa, &sb, &w);
    printf("%.10g %.10g %.10g %.10g %.10g\n", w.t, w.df, w.p, w.ci_low, w.ci_high);
}

static void do_mwu(const double *a, int n)
{
    int na, nb;
    const double *b;
    split(a, n, &na, &b, &nb);
    struct mwu m;
    if (stats_mwu(a, (size_t)na, b, (size_t)nb, &m) < 0)
        exit(2);
    printf("%.10g %.10g %d %.10g\n", m.u, m.p, m.exact, m.p_min);
}

/* boot RESAMPLES SEED A... | B...: the interval, then every replicate. */
static void do_boot(const double *a, int n)
{
    int na, nb;
    const double *b;
    split(a + 2, n - 2, &na, &b, &nb);
    unsigned r = as_runs(a[0]);
    double *rep = calloc(r ? r : 1, sizeof *rep);
    struct boot_ci c;
    if (!rep || stats_boot_ratio(a + 2, (size_t)na, b, (size_t)nb, r, (uint64_t)a[1], 0.95, &c, rep) < 0)
        exit(2);
    printf("%.17g %.10g %.10g", c.ratio, c.low, c.high);
    for (unsigned i = 0; i < r; i++)
        printf(" %.17g", rep[i]);
    putchar('\n');
    free(rep);
}

static void adjusted(const double *a, int n, int (*fn)(const double *, size_t, double *))
{
    double adj[MAX_NUMBERS];
    if (fn(a, (size_t)n, adj) < 0)
        exit(2);
    for (int i = 0; i < n; i++)
        printf("%s%.17g", i ? " " : "", adj[i]);
    putchar('\n');
}

static void do_holm(const double *a, int n)
{
    adjusted(a, n, stats_holm);
}

static void do_bh(const double *a, int n)
{
    adjusted(a, n, stats_bh);
}

/* cp MIN_SIZE MAX_P PERMUTATIONS SEED X...: cp_detect's changes, as
 * "N" and then AT P Q MEAN_BEFORE MEAN_AFTER for each, sorted by AT. */
static void do_cp(const double *a, int n)
{
    if (n < 4 || !(a[0] >= 0 && a[0] <= 1e6) || !(a[2] >= 0 && a[2] <= 4e9) || !(a[3] >= 0 && a[3] <= 9e15)) {
        fprintf(stderr, "stats_tool cp: MIN_SIZE MAX_P PERMUTATIONS SEED X... (whole numbers where counted)\n");
        exit(2);
    }
    struct cp_opts o = { .min_size = (size_t)a[0], .max_p = a[1], .permutations = (unsigned)a[2],
                         .seed = (unsigned long)a[3] };
    struct cp_change *c = NULL;
    size_t nc = 0;
    struct pm_err err = { "" };
    if (cp_detect(a + 4, (size_t)(n - 4), &o, &c, &nc, &err) < 0) {
        fprintf(stderr, "stats_tool cp: %s\n", err.msg);
        exit(2);
    }
    printf("%zu", nc);
    for (size_t i = 0; i < nc; i++)
        printf(" %zu %.17g %.17g %.17g %.17g", c[i].at, c[i].p, c[i].q, c[i].mean_before, c[i].mean_after);
    putchar('\n');
    free(c);
}

/* cp-qhat X...: Q of every split t (nan where a side has one point). */
static void do_cp_qhat(const double *a, int n)
{
    double q[MAX_NUMBERS];
    struct pm_err err = { "" };
    if (cp_qhat(a, (size_t)n, q, &err) < 0) {
        fprintf(stderr, "stats_tool cp-qhat: %s\n", err.msg);
        exit(2);
    }
    for (int i = 0; i < n; i++)
        printf("%s%.17g", i ? " " : "", q[i]);
    putchar('\n');
}

static void do_trend(const double *a, int n)
{
    struct trend t;
    if (stats_trend(a, (size_t)n, &t) < 0)
        exit(2);
    printf("%.10g %.10g\n", t.rho, t.p);
}

/* outliers V...: each value's modified z-score, then 1/0 flags. */
static void do_outliers(const double *a, int n)
{
    double z[MAX_NUMBERS];
    bool flag[MAX_NUMBERS];
    if (stats_outliers(a, (size_t)n, z, flag) < 0)
        exit(2);
    for (int i = 0; i < n; i++)
        printf("%s%.10g", i ? " " : "", z[i]);
    for (int i = 0; i < n; i++)
        printf(" %d", flag[i]);
    putchar('\n');
}

/* geomean RATIO SE RATIO SE ...: the mean and its 95% interval. */
/* ratio A... | B...: mean(B)/mean(A), its 95% set's two ends and its
 * shape (0 an interval, 1 all but an interval, 2 any ratio), Welch's test
 * inverted; "nan nan nan 2" when there is none. */
static void do_ratio(const double *a, int n)
{
    int na, nb;
    const double *b;
    split(a, n, &na, &b, &nb);
    struct ratio_ci r;
    if (stats_ratio_ci(a, (size_t)na, b, (size_t)nb, 0.95, &r) < 0)
        exit(2);
    printf("%.17g %.17g %.17g %d\n", r.ratio, r.low, r.high, (int)r.shape);
}

/* outlier-rate N SAMPLES SEED: how many of SAMPLES seeded normal samples
 * of N runs the outlier rule flags (for sizes too large to hand over as
 * text). */
static void do_outlier_rate(const double *a)
{
    size_t n = as_runs(a[0]);
    unsigned long samples = as_runs(a[1]), flagged = 0;
    double *v = malloc((n ? n : 1) * sizeof *v);
    bool *flag = malloc((n ? n : 1) * sizeof *flag);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!v || !flag || !r)
        exit(2);
    gsl_rng_set(r, (unsigned long)a[2]);
    for (unsigned long k = 0; k < samples; k++) {
        for (size_t i = 0; i < n; i++)
            v[i] = 1000 + 50 * gsl_ran_gaussian(r, 1);
        int f = stats_outliers(v, n, NULL, flag);
        if (f < 0)
            exit(2);
        flagged += f > 0;
    }
    gsl_rng_free(r);
    free(v);
    free(flag);
    printf("%lu\n", flagged);
}

/* outlier-threshold N: the outlier rule's critical value among N runs. */
static void do_outlier_threshold(const double *a)
{
    printf("%.10g\n", stats_outlier_threshold(as_runs(a[0])));
}

static void do_geomean(const double *a, int n)
{
    double r[MAX_NUMBERS], se[MAX_NUMBERS];
    for (int i = 0; i + 1 < n; i += 2) {
        r[i / 2] = a[i];
        se[i / 2] = a[i + 1];
    }
    struct geomean g;
    stats_geomean(r, se, (size_t)n / 2, 0.95, &g);
    printf("%.10g %.10g %.10g\n", g.ratio, g.low, g.high);
}

static void do_hmean(const double *a, int n)
{
    printf("%.10g\n", stats_hmean(a, (size_t)n));
}


static void do_power(const double *a)
{
    printf("%.10g\n", stats_power(a[0], a[1], as_runs(a[2]), a[3]));
}

static void do_detectable(const double *a)
{
    printf("%.10g\n", stats_detectable_pct(a[0], as_runs(a[1]), a[2], a[3]));
}

static void do_runs_needed(const double *a)
{
    printf("%u\n", stats_runs_needed(a[0], a[1], a[2], a[3], as_runs(a[4])));
}

static const struct sub subs[] = {
    { "power", "CV% CHANGE% N ALPHA", 4, do_power, NULL },
    { "detectable", "CV% N ALPHA POWER", 4, do_detectable, NULL },
    { "runs-needed", "CV% CHANGE% ALPHA POWER MAX", 5, do_runs_needed, NULL },
    { "welch", "A... | B...", -1, NULL, do_welch },
    { "mwu", "A... | B...", -1, NULL, do_mwu },
    { "boot", "RESAMPLES SEED A... | B...", -1, NULL, do_boot },
    { "holm", "P...", -1, NULL, do_holm },
    { "bh", "P...", -1, NULL, do_bh },
    { "cp", "MIN_SIZE MAX_P PERMUTATIONS SEED X...", -1, NULL, do_cp },
    { "cp-qhat", "X...", -1, NULL, do_cp_qhat },
    { "trend", "V...", -1, NULL, do_trend },
    { "outliers", "V...", -1, NULL, do_outliers },
    { "outlier-threshold", "N", 1, do_outlier_threshold, NULL },
    { "outlier-rate", "N SAMPLES SEED", 3, do_outlier_rate, NULL },
    { "ratio", "A... | B...", -1, NULL, do_ratio },
    { "geomean", "RATIO SE...", -1, NULL, do_geomean },
    { "hmean", "V...", -1, NULL, do_hmean },
};

static int usage(void)
{
    fprintf(stderr, "usage: stats_tool SUBCOMMAND NUMBER... | stats_tool SUBCOMMAND - (a call per line of stdin)\n");
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        fprintf(stderr, "  %-12s %s\n", subs[i].name, subs[i].args);
    return 2;
}

/* Parse n numbers from words; false on anything that is not one. */
static bool numbers(char **words, int n, double *out)
{
    for (int i = 0; i < n; i++) {
        char *end;
        if (strcmp(words[i], "|") == 0) {
            out[i] = NAN;            /* between two samples */
            continue;
        }
        out[i] = strtod(words[i], &end);
        if (end == words[i] || *end)
            return false;
    }
    return true;
}

/* Each line of stdin: the subcommand's numbers, blank-separated. */
static int from_stdin(const struct sub *s)
{
    static char line[65536];
    static char *words[MAX_NUMBERS];
    static double a[MAX_NUMBERS];
    while (fgets(line, sizeof line, stdin)) {
        int n = 0;
        for (char *w = strtok(line, " \t\n"); w && n < MAX_NUMBERS; w = strtok(NULL, " \t\n"))
            words[n++] = w;
        if (n == 0)
            continue;
        if ((s->nargs >= 0 && n != s->nargs) || !numbers(words, n, a)) {
            fprintf(stderr, "stats_tool %s: a line is not %s\n", s->name, s->args);
            return 2;
        }
        if (s->fnv)
            s->fnv(a, n);
        else
            s->fn(a);
    }
    return ferror(stdin) ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        const struct sub *s = &subs[i];
        if (strcmp(argv[1], s->name) != 0)
            continue;
        if (argc == 3 && strcmp(argv[2], "-") == 0)
            return from_stdin(s);
        static double a[MAX_NUMBERS];
        int n = argc - 2;
        if ((s->nargs >= 0 && n != s->nargs) || n > MAX_NUMBERS || !numbers(argv + 2, n, a))
            return usage();
        if (s->fnv)
            s->fnv(a, n);
        else
            s->fn(a);
        return fflush(stdout) == 0 ? 0 : 2;
    }
    return usage();
}
