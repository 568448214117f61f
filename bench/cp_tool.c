/* What change points buy the nightly, measured on real runs:
 * bench/changepoints.sh runs this over tests/fixtures/verdict-pool.db (40
 * chat and 40 usemem runs of one configuration each, recorded interleaved
 * on one machine, drift included).
 *
 * A history is 60 nights of one metric. A night's runs are K consecutive
 * runs of the pool from a random place (blocks: a night's runs share the
 * machine's state of the moment, and two nights differ by the drift
 * between two places of the recording, which K runs drawn one by one
 * from all 40 would average away); or, for comparison, K runs drawn one
 * by one with replacement (iid: no drift). From night SHIFT_NIGHT on, a
 * history may carry an injected change in the metric's worse direction:
 * a step of 2, 5 or 10 %, or a slide of 0.5 % a night more. The nightly
 * is simulated night by night, from night FIRST_GATED on, each gate
 * seeing the history up to tonight:
 *   today's gate:  tonight's runs against last night's, Welch's p < 0.05
 *                  and more than 5 % worse (stats_welch, as compare's
 *                  --fail-on-regression 5 judges a family of one);
 *   change points: cp_detect over the nights' means, then cp_gate_find
 *                  with a window of W nights and a threshold.
 * A red night before the change (or in a history without one) is a
 * false alarm; the first red night on or after it is the detection, its
 * delay the nights of the change seen by then (1: the night it came).
 *
 *   cp_tool table DB HISTORIES SEED SET [RAW]
 *       SET main (MAIN_SPEC): today's gate and the change points'
 *       defaults, for 5, 10 and 20 runs a night in blocks, 5, 20 and 30
 *       drawn one by one, and 10 beside 10 of a control; SET grid
 *       (GRID_SPEC): the tuning grid over min_size, max_p, window and
 *       threshold; or a spec of one's own (parse_spec). RAW gets one line
 *       per row (tab-separated) for the script's goals.
 *
 * Seeded (GSL's MT19937): the same HISTORIES and SEED print the same
 * tables; each metric, configuration and scenario draws from a stream of
 * its own, so a table's rows do not depend on which others were drawn.
 */
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats/changepoint.h"
#include "stats/stats.h"
#include "workloads/workload.h"

#define NIGHTS 60
#define SHIFT_NIGHT 40       /* the first changed night; 0-based */
#define FIRST_GATED 10       /* the nightly gates from its 11th night, with 10 behind it */
#define WELCH_ALPHA 0.05
#define WELCH_PCT 5.0        /* the nightly's --fail-on-regression default */
#define WITHIN 3             /* "detected within 3 nights" */
#define MAX_RUNS 64
#define MAX_K 32
#define MAX_METRICS 4
#define MAX_GATES 12
#define MAX_HISTORIES 100000
#define Z95 1.959963984540054
#define CP_TOOL_WINDOW 5    /* the recommended window and threshold (docs/change-points.md) */
#define CP_TOOL_PCT 2.5
#define MAX_CONFIGS 64
/* The table bench/changepoints.sh prints, and the tuning grid behind it. */
#define MAIN_SPEC "k=5,10,20 pct=2.5,5;k=5,20,30 iid pct=2.5,5;k=10 ctl pct=2.5,5"
#define GRID_SPEC "k=5,10,20 min=2,3 p=0.01,0.05,0.1 w=3,5,10 pct=2.5,5"

struct pool_metric {
    char wl[32], name[96], direction[8];
    size_t n;
    double v[MAX_RUNS];
};

struct scenario {
    const char *name;
    double step, slide;      /* fractions: 0.05 is 5 % */
};

static const struct scenario scenarios[] = {
    { "none", 0, 0 }, { "2 % step", 0.02, 0 }, { "5 % step", 0.05, 0 }, { "10 % step", 0.10, 0 },
    { "0.5 %/night slide", 0, 0.005 },
};
#define NSCEN (sizeof scenarios / sizeof scenarios[0])

/* One configuration of the nightly: its runs and the change points'
 * options; its gates share one cp_detect a night. */
struct config {
    unsigned k;
    bool iid;
    bool control;            /* 2K runs a night, alternately the metric's and a control's */
    struct cp_opts cp;
    size_t ngates;
    struct cp_gate gates[MAX_GATES];
};

/* A method's (today's gate, or one cp gate's) counts over a scenario's
 * histories. */
struct tally {
    long clean_nights, red, raised;  /* before any change: nights, red nights, red after green */
    long histories;
    double cv_sum;                   /* the unchanged histories' night-mean CVs, summed (method 0) */
    long cv_n;
    int *delay;                      /* per history: nights to detection, NIGHTS + 1 when never */
};

/* The pool is a WAL database that this tool only reads: opened immutable
 * (no locks, no journal), it leaves no -wal or -shm beside the fixture. */
static int open_pool(const char *path, sqlite3 **db)
{
    char uri[4096];
    size_t o = (size_t)snprintf(uri, sizeof uri, "file:");
    for (const char *c = path; *c && o + 4 < sizeof uri; c++)
        o += (size_t)(strchr("%?#", *c) ? snprintf(uri + o, sizeof uri - o, "%%%02X", (unsigned char)*c)
                                        : snprintf(uri + o, sizeof uri - o, "%c", *c));
    if (o + sizeof "?immutable=1" > sizeof uri)
        return -1;
    snprintf(uri + o, sizeof uri - o, "?immutable=1");
    if (sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        fprintf(stderr, "cp_tool: %s: %s\n", path, sqlite3_errmsg(*db));
        return -1;
    }
    return 0;
}

/* The workload's headline in its ok runs, in recording order. */
static int load_headline(sqlite3 *db, struct pool_metric *m)
{
    const struct workload_ops *wl = workload_find(m->wl);
    if (!wl) {
        fprintf(stderr, "cp_tool: %s: not a workload this pressmark has\n", m->wl);
        return -1;
    }
    snprintf(m->name, sizeof m->name, "%s", wl->headline);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT m.value, m.direction FROM run r JOIN metric m ON m.run_id = r.id AND m.name = ?2"
                           " WHERE r.workload = ?1 AND r.status = 'ok' ORDER BY r.id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = SQLITE_ERROR;
    m->n = 0;
    if (sqlite3_bind_text(st, 1, m->wl, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC) != SQLITE_OK)
        m->n = MAX_RUNS;    /* no rows read: the check below fails */
    while (m->n < MAX_RUNS && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        m->v[m->n++] = sqlite3_column_double(st, 0);
        snprintf(m->direction, sizeof m->direction, "%s", (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE || m->n < 2) {
        fprintf(stderr, "cp_tool: %s: too few runs of %s (%zu) or too many\n", m->wl, m->name, m->n);
        return -1;
    }
    return 0;
}

static int load_pool(const char *path, struct pool_metric *ms, size_t *nm)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st;
    *nm = 0;
    if (open_pool(path, &db) < 0 ||
        sqlite3_prepare_v2(db, "SELECT workload FROM run WHERE status = 'ok' GROUP BY workload ORDER BY min(id)", -1,
                           &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "cp_tool: %s: %s\n", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *nm < MAX_METRICS) {
        memset(&ms[*nm], 0, sizeof ms[*nm]);
        snprintf(ms[(*nm)++].wl, sizeof ms[0].wl, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    int bad = rc != SQLITE_DONE || *nm == 0;
    for (size_t i = 0; !bad && i < *nm; i++)
        bad = load_headline(db, &ms[i]) < 0;
    sqlite3_close(db);
    if (bad)
        fprintf(stderr, "cp_tool: %s: no pool of runs\n", path);
    return bad ? -1 : 0;
}

/* The change's factor on night t: worse in the metric's direction. */
static double change_factor(const struct scenario *s, const struct pool_metric *m, int t)
{
    if (t < SHIFT_NIGHT)
        return 1;
    double worse = s->step + s->slide * (t - SHIFT_NIGHT + 1);
    return strcmp(m->direction, "lower") == 0 ? 1 + worse : 1 - worse;
}

/* A history's runs and night means; draws the same number of values
 * whatever happens later, so the stream stays aligned. With a control,
 * a night is a block of 2K runs taken alternately by the metric (changed)
 * and the control (never changed), and its point is their ratio: what
 * the night's drift did to both cancels (iid: both drawn one by one, the
 * drift taken as cancelled entirely). */
static void draw_history(gsl_rng *r, const struct pool_metric *m, const struct config *c, const struct scenario *s,
                         double runs[][MAX_K], double *means)
{
    unsigned span = c->control ? 2 * c->k : c->k, step = c->control ? 2 : 1;
    for (int t = 0; t < NIGHTS; t++) {
        size_t start = c->iid ? 0 : gsl_rng_uniform_int(r, m->n - span + 1);
        double f = change_factor(s, m, t), sum = 0, ctl = 0;
        for (unsigned i = 0; i < c->k; i++) {
            double v = c->iid ? m->v[gsl_rng_uniform_int(r, m->n)] : m->v[start + step * i];
            runs[t][i] = v * f;
            sum += runs[t][i];
            if (c->control)
                ctl += c->iid ? m->v[gsl_rng_uniform_int(r, m->n)] : m->v[start + step * i + 1];
        }
        means[t] = c->control ? 100 * sum / ctl : sum / c->k;
    }
}

/* Today's gate: tonight against last night, significant and > 5 % worse. */
static bool welch_red(const double *last, const double *tonight, unsigned k, const char *direction)
{
    double a[MAX_K], b[MAX_K];
    struct summary sa, sb;
    struct welch w;
    memcpy(a, last, k * sizeof *a);
    memcpy(b, tonight, k * sizeof *b);
    stats_summary(a, k, &sa);
    stats_summary(b, k, &sb);
    stats_welch(&sa, &sb, &w);
    return w.valid && w.p < WELCH_ALPHA && stats_change_pct(sa.mean, sb.mean, direction) < -WELCH_PCT;
}

/* Method 0 is today's gate, 1 + g the config's gate g. */
static int night_reds(const struct pool_metric *m, const struct config *c, double runs[][MAX_K], const double *means,
                      int t, bool *red)
{
    red[0] = welch_red(runs[t - 1], runs[t], c->k, m->direction);
    struct cp_change *ch = NULL;
    size_t nc = 0;
    struct pm_err err;
    if (cp_detect(means, (size_t)t + 1, &c->cp, &ch, &nc, &err) < 0) {
        fprintf(stderr, "cp_tool: %s\n", err.msg);
        return -1;
    }
    for (size_t g = 0; g < c->ngates; g++)
        red[1 + g] = cp_gate_find(ch, nc, (size_t)t + 1, &c->gates[g]) >= 0;
    free(ch);
    return 0;
}

/* One history, night by night; a changed history ends once every
 * method has found the change. */
static int run_history(gsl_rng *r, const struct pool_metric *m, const struct config *c, const struct scenario *s,
                       struct tally *t)
{
    double runs[NIGHTS][MAX_K], means[NIGHTS];
    bool red[1 + MAX_GATES], was[1 + MAX_GATES] = { false };
    int found[1 + MAX_GATES];
    size_t nmeth = 1 + c->ngates, open = nmeth;
    bool changes = s->step > 0 || s->slide > 0;
    draw_history(r, m, c, s, runs, means);
    for (size_t i = 0; i < nmeth; i++)
        found[i] = -1;
    if (!changes) {
        struct summary sm;
        double tmp[NIGHTS];
        memcpy(tmp, means, sizeof tmp);
        stats_summary(tmp, NIGHTS, &sm);
        t[0].cv_sum += sm.cv_pct;
        t[0].cv_n++;
    }
    for (int night = FIRST_GATED; night < NIGHTS && open > 0; night++) {
        if (night_reds(m, c, runs, means, night, red) < 0)
            return -1;
        bool clean = !changes || night < SHIFT_NIGHT;
        for (size_t i = 0; i < nmeth; i++) {
            if (clean) {
                t[i].clean_nights++;
                t[i].red += red[i];
                t[i].raised += red[i] && !was[i];
            } else if (red[i] && found[i] < 0) {
                found[i] = night - SHIFT_NIGHT + 1;
                open--;
            }
            was[i] = red[i];
        }
    }
    for (size_t i = 0; i < nmeth; i++)
        t[i].delay[t[i].histories++] = found[i] < 0 ? NIGHTS + 1 : found[i];
    return 0;
}

static unsigned long stream_seed(unsigned long seed, size_t metric, size_t config, size_t scen)
{
    return seed * 1000003ul + metric * 10007ul + config * 101ul + scen;
}

/* Every scenario's histories of one metric and configuration: t[scen][method]. */
static int run_config(const struct pool_metric *m, size_t mi, const struct config *c, size_t ci, long histories,
                      unsigned long seed, struct tally t[][1 + MAX_GATES])
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return -1;
    int rc = 0;
    for (size_t s = 0; s < NSCEN && rc == 0; s++) {
        gsl_rng_set(r, stream_seed(seed, mi, ci, s));
        for (size_t i = 0; i < 1 + c->ngates; i++) {
            t[s][i] = (struct tally){ .delay = calloc((size_t)histories, sizeof(int)) };
            if (!t[s][i].delay)
                rc = -1;
        }
        for (long h = 0; h < histories && rc == 0; h++)
            rc = run_history(r, m, c, &scenarios[s], t[s]);
    }
    gsl_rng_free(r);
    return rc;
}

static void free_tallies(struct tally t[][1 + MAX_GATES])
{
    for (size_t s = 0; s < NSCEN; s++)
        for (size_t i = 0; i < 1 + MAX_GATES; i++)
            free(t[s][i].delay);
}

/* Wilson's score interval of x in n, in percent. */
static void wilson(long x, long n, double *lo, double *hi)
{
    double p = (double)x / (double)n, z2 = Z95 * Z95, d = 1 + z2 / (double)n;
    double c = (p + z2 / (2.0 * (double)n)) / d;
    double h = Z95 * sqrt(p * (1 - p) / (double)n + z2 / (4.0 * (double)n * (double)n)) / d;
    *lo = 100 * fmax(0, c - h);
    *hi = 100 * fmin(1, c + h);
}

/* False alarms per 100 nights over the clean nights of scenarios
 * [from, to) (the nights before a change, or every gated night of an
 * unchanged history), with its interval; *raised: the alarms that came
 * after a green night. */
static double false_alarms(struct tally t[][1 + MAX_GATES], size_t i, size_t from, size_t to, double *lo, double *hi,
                           double *raised)
{
    long nights = 0, red = 0, up = 0;
    for (size_t s = from; s < to; s++) {
        nights += t[s][i].clean_nights;
        red += t[s][i].red;
        up += t[s][i].raised;
    }
    wilson(red, nights, lo, hi);
    *raised = 100.0 * (double)up / (double)nights;
    return 100.0 * (double)red / (double)nights;
}

/* The median delay ("> 20" when most histories were never caught). */
static const char *median_delay(char *buf, size_t len, const struct tally *t)
{
    double *d = malloc((size_t)t->histories * sizeof *d);
    if (!d)
        return "?";
    for (long h = 0; h < t->histories; h++)
        d[h] = t->delay[h];
    gsl_sort(d, 1, (size_t)t->histories);
    double med = (d[(t->histories - 1) / 2] + d[t->histories / 2]) / 2;
    free(d);
    if (med > NIGHTS - SHIFT_NIGHT)
        snprintf(buf, len, "> %d", NIGHTS - SHIFT_NIGHT);
    else
        snprintf(buf, len, "%g", med);
    return buf;
}

static void method_name(char *buf, size_t len, const struct config *c, size_t i)
{
    if (i == 0) {
        snprintf(buf, len, "today's: Welch p < %.2f and > %.0f %% worse than last night", WELCH_ALPHA, WELCH_PCT);
        return;
    }
    const struct cp_gate *g = &c->gates[i - 1];
    snprintf(buf, len, "change points: min_size %zu, p <= %g; window %zu, >= %g %%", c->cp.min_size, c->cp.max_p,
             g->window, g->threshold_pct);
}

/* One gate's row: false alarms without a change and before one, then
 * the 5 % step within WITHIN nights beside what the false alarms alone
 * would give (a gate that is often red "finds" a change by chance), then
 * the median delays. */
static void print_row(const struct pool_metric *m, const struct config *c, struct tally t[][1 + MAX_GATES], size_t i,
                      FILE *raw)
{
    char name[160], d[4][16];
    double lo, hi, raised, fa = false_alarms(t, i, 0, 1, &lo, &hi, &raised);
    double blo, bhi, braised, before = false_alarms(t, i, 1, NSCEN, &blo, &bhi, &braised), l3, h3;
    method_name(name, sizeof name, c, i);
    long x3 = 0;
    for (long h = 0; h < t[2][i].histories; h++)
        x3 += t[2][i].delay[h] <= WITHIN;
    double in3 = 100.0 * (double)x3 / (double)t[2][i].histories, chance = 100 * (1 - pow(1 - fa / 100, WITHIN));
    wilson(x3, t[2][i].histories, &l3, &h3);
    printf("| %s | %u%s%s (%.1f %%) | %s | %.2f (%.2f-%.2f) | %.2f | %.2f (%.2f-%.2f) | %.0f %% (%.0f-%.0f) | %.0f %% "
           "| %s | %s | %s | %s |\n",
           m->name, c->k, c->iid ? " iid" : "", c->control ? " + control" : "", t[0][0].cv_sum / (double)t[0][0].cv_n,
           name, fa, lo, hi, raised, before, blo, bhi, in3, l3, h3, chance,
           median_delay(d[0], sizeof d[0], &t[2][i]), median_delay(d[1], sizeof d[1], &t[1][i]),
           median_delay(d[2], sizeof d[2], &t[3][i]), median_delay(d[3], sizeof d[3], &t[4][i]));
    if (raw)
        fprintf(raw, "row\t%s\t%u\t%s\t%zu\t%g\t%zu\t%zu\t%g\t%.4f\t%.4f\t%.2f\t%.4f\t%.4f\n", m->wl, c->k,
                c->iid ? (c->control ? "iid+control" : "iid") : (c->control ? "control" : "blocks"), i,
                i ? c->cp.max_p : 0.0, i ? c->cp.min_size : 0, i ? c->gates[i - 1].window : 0,
                i ? c->gates[i - 1].threshold_pct : 0.0, fa, before, in3, hi, bhi);
}

static void print_header(void)
{
    printf("| metric | runs a night (night-mean CV) | gate | false alarms /100 nights, no change (95%% CI) | alarms "
           "raised /100 nights | false alarms /100 nights before a change (95%% CI) | 5 %% step: found within %d "
           "nights (95%% CI) | by chance alone | 5 %% step: median nights | 2 %% step: median | 10 %% step: median "
           "| 0.5 %%/night slide: median |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
           WITHIN);
}

/* A list of numbers after "key=" in spec ("k=5,10,20 p=0.01,0.05"); the
 * default's one value when the key is absent. Returns the count. */
static size_t spec_list(const char *spec, const char *key, double dflt, double *out, size_t max)
{
    char pat[16];
    snprintf(pat, sizeof pat, "%s=", key);
    const char *at = spec;
    while ((at = strstr(at, pat)) && at != spec && at[-1] != ' ')
        at++;
    if (!at) {
        out[0] = dflt;
        return 1;
    }
    size_t n = 0;
    char *end;
    for (const char *c = at + strlen(pat); n < max; c = end + 1) {
        out[n++] = strtod(c, &end);
        if (end == c || *end != ',')
            break;
    }
    return n;
}

/* The configurations a spec names: every runs count (k=) with every
 * min_size (min=) and max_p (p=), each with a gate for every window (w=)
 * and threshold (pct=); "iid" draws runs one by one. Specs are joined by
 * ";". Returns the number of configurations, 0 for a bad spec. */
static size_t parse_spec(const char *specs, struct config *cs, size_t max)
{
    char spec[256];
    size_t len = strcspn(specs, ";");
    if (len >= sizeof spec)
        return 0;
    memcpy(spec, specs, len);
    spec[len] = '\0';
    struct cp_opts d;
    cp_opts_default(&d);
    double ks[8], mins[4], ps[6], ws[4], pcts[3];
    size_t nk = spec_list(spec, "k", 5, ks, 8), nmin = spec_list(spec, "min", (double)d.min_size, mins, 4);
    size_t np = spec_list(spec, "p", d.max_p, ps, 6), nw = spec_list(spec, "w", CP_TOOL_WINDOW, ws, 4);
    size_t npct = spec_list(spec, "pct", CP_TOOL_PCT, pcts, 3), n = 0;
    for (size_t k = 0; k < nk; k++)
        for (size_t a = 0; a < nmin; a++)
            for (size_t b = 0; b < np; b++) {
                if (n == max || !(ks[k] >= 2 && ks[k] <= MAX_K && mins[a] >= 2 && ps[b] > 0))
                    return 0;
                cs[n] = (struct config){ .k = (unsigned)ks[k], .iid = strstr(spec, "iid") != NULL,
                                         .control = strstr(spec, "ctl") != NULL, .cp = d };
                cs[n].cp.min_size = (size_t)mins[a];
                cs[n].cp.max_p = ps[b];
                for (size_t w = 0; w < nw; w++)
                    for (size_t p = 0; p < npct && cs[n].ngates < MAX_GATES; p++)
                        cs[n].gates[cs[n].ngates++] =
                            (struct cp_gate){ .window = (size_t)ws[w], .threshold_pct = pcts[p], .direction = 1 };
                n++;
            }
    const char *next = strchr(specs, ';');
    if (!next)
        return n;
    size_t more = parse_spec(next + 1, cs + n, max - n);
    return more ? n + more : 0;
}

/* gate = direction of the metric: +1 higher is better, -1 lower. */
static void direct_gates(struct config *c, const struct pool_metric *m)
{
    for (size_t g = 0; g < c->ngates; g++)
        c->gates[g].direction = strcmp(m->direction, "lower") == 0 ? -1 : 1;
}

static int cmd_table(const struct pool_metric *ms, size_t nm, long histories, unsigned long seed, const char *set,
                     FILE *raw)
{
    struct config cs[MAX_CONFIGS];
    const char *spec = strcmp(set, "main") == 0 ? MAIN_SPEC : strcmp(set, "grid") == 0 ? GRID_SPEC : set;
    size_t nc = parse_spec(spec, cs, MAX_CONFIGS);
    if (nc == 0) {
        fprintf(stderr, "cp_tool: %s: not main, grid or a spec such as \"k=5,10 min=2,3 p=0.01 w=5 pct=2.5\"\n", set);
        return 2;
    }
    /* A night's block may take half the pool at most, so that nights
     * start from more than half of its places. */
    for (size_t mi = 0; mi < nm; mi++)
        for (size_t ci = 0; ci < nc; ci++)
            if (!cs[ci].iid && (cs[ci].control ? 2 * cs[ci].k : cs[ci].k) > ms[mi].n / 2) {
                fprintf(stderr, "cp_tool: %u runs a night%s from a pool of %zu: at most half of it in a block\n",
                        cs[ci].k, cs[ci].control ? " and as many of a control" : "", ms[mi].n);
                return 1;
            }
    struct tally(*t)[1 + MAX_GATES] = calloc(NSCEN, sizeof *t);
    if (!t)
        return 1;
    print_header();
    int rc = 0;
    for (size_t mi = 0; mi < nm && rc == 0; mi++)
        for (size_t ci = 0; ci < nc && rc == 0; ci++) {
            struct config c = cs[ci];
            direct_gates(&c, &ms[mi]);
            memset(t, 0, NSCEN * sizeof *t);
            rc = run_config(&ms[mi], mi, &c, ci, histories, seed, t) < 0 ? 1 : 0;
            /* Today's gate does not depend on the cp options: shown once a K. */
            bool seen = ci > 0 && cs[ci - 1].k == c.k && cs[ci - 1].iid == c.iid && cs[ci - 1].control == c.control;
            for (size_t i = seen; rc == 0 && i < 1 + c.ngates; i++)
                print_row(&ms[mi], &c, t, i, raw);
            free_tallies(t);
        }
    free(t);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: cp_tool table DB HISTORIES SEED main|grid|SPEC [RAW]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if ((argc != 6 && argc != 7) || strcmp(argv[1], "table") != 0)
        return usage();
    long histories = atol(argv[3]);
    unsigned long seed = strtoul(argv[4], NULL, 10);
    if (histories <= 0 || histories > MAX_HISTORIES)
        return usage();
    struct pool_metric *ms = calloc(MAX_METRICS, sizeof *ms);
    size_t nm = 0;
    if (!ms || load_pool(argv[2], ms, &nm) < 0) {
        free(ms);
        return 1;
    }
    FILE *raw = NULL;
    if (argc == 7 && !(raw = fopen(argv[6], "a"))) {
        perror(argv[6]);
        free(ms);
        return 1;
    }
    int rc = cmd_table(ms, nm, histories, seed, argv[5], raw);
    if (raw && fclose(raw) != 0) {
        perror(argv[6]);
        rc = 1;
    }
    free(ms);
    return rc;
}
