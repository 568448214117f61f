/* The nightly history gate's false alarms and power, measured the way the
 * gate is used (issue 43): every metric compare --history judges, on real
 * A/A runs. bench/gate.sh runs this over tests/fixtures/gate-pool.db (60
 * usemem runs, then 60 chat runs, of one configuration each, recorded in
 * a row on one machine: nothing changed, so any red night is a false
 * alarm).
 *
 * A night is K runs; its point, per metric, their mean (the history's
 * night mean). Each night is judged as the nightly judges it: the history
 * up to tonight, change points of each metric's night means (cp_detect
 * with compare --history's options), a change worse by the threshold
 * within the window (cp_gate_find), then the rule's family:
 *   every   today's gate before issue 43: any judged metric alone
 *   holm    every judged metric, Holm over them (hgate_family)
 *   gated   the headline (and the workload's gated figures), Holm over
 *           them: what compare --history gates on now
 *
 * Two ways to make nights:
 *   order   the pool's runs in recording order cut into nights of K (K =
 *           2, 3, 5, every offset): the drift of the recording as it
 *           came, as the issue's histories were built;
 *   blocks  NIGHTS-night histories, each night K consecutive runs from a
 *           random place of the pool (the drift between two places as the
 *           difference between two nights), as bench/changepoints.sh
 *           draws them; with a step of the headline 5 % worse from night
 *           SHIFT_NIGHT on, how often the headline itself is red within
 *           WITHIN nights.
 * A label-night is judged from the 4th night on (before, no change can be
 * told: two nights a side).
 *
 *   gate_tool table DB HISTORIES SEED [RAW]
 *   gate_tool nights DB K
 *       the pool in recording order, K runs a night from its first run:
 *       each judged night's verdict under today's gate (the headline,
 *       "workload night 0|1"), for bench/gate.sh to hold against
 *       pressmark compare --history run on the same nights.
 *
 * Seeded (GSL's MT19937): the same HISTORIES and SEED print the same
 * tables. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats/changepoint.h"
#include "reports/history_gate.h"
#include "reports/present.h"
#include "workloads/workload.h"

#define NIGHTS 60
#define SHIFT_NIGHT 40       /* the first changed night; 0-based */
#define FIRST_JUDGED 3       /* 0-based: the 4th night */
#define WITHIN 3
#define MAX_RUNS 128
#define MAX_METRICS 16
#define MAX_WL 4
#define MAX_K 8
#define Z95 1.959963984540054
#define ALPHA 0.05           /* compare's default --alpha, one pair */
#define PCT 5.0              /* the nightly's --fail-on-regression default */
#define WINDOW 5             /* compare --history's default window */

enum rule { RULE_EVERY, RULE_HOLM, RULE_HEAD, RULE_ALSO, NRULES };
static const char *const rule_names[NRULES] = {
    "every metric alone", "every metric, Holm", "headline", "headline and second figures, Holm",
};

struct series {
    char name[96];
    int direction;           /* +1 higher is better, -1 lower */
    enum hgate_kind kind;
    double v[MAX_RUNS];
};

struct wl {
    char name[32];
    size_t n, nm;            /* runs, metrics (m[0] the headline) */
    struct series m[MAX_METRICS];
};

struct tally {
    long nights, red[NRULES];
    long red_by[NRULES][MAX_METRICS];   /* a red night's metrics (each counted) */
    long histories, found[NRULES];      /* a changed history found within WITHIN nights */
};

static bool present_workload(const char *name, struct wl_present *out)
{
    const struct workload_ops *wl = workload_find(name);
    if (!wl)
        return false;
    *out = (struct wl_present){ .headline = wl->headline, .title = wl->headline_title,
                                .compare_also = wl->compare_also };
    return true;
}

/* The metric's value in each ok run of the workload, in run id order;
 * a metric some runs lack, or with no better direction, is left out, as
 * the gate leaves it out. */
static int load_series(sqlite3 *db, struct wl *w, const struct hgate_pick *pick)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT m.value, m.direction FROM run r LEFT JOIN metric m ON m.run_id = r.id AND m.name = ?2"
                      " WHERE r.workload = ?1 AND r.status = 'ok' ORDER BY r.id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    struct series *s = &w->m[w->nm];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", pick->metric);
    s->kind = pick->kind;
    sqlite3_bind_text(st, 1, w->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, pick->metric, -1, SQLITE_STATIC);
    size_t n = 0, have = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < MAX_RUNS) {
        if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
            s->v[n] = sqlite3_column_double(st, 0);
            const char *d = (const char *)sqlite3_column_text(st, 1);
            s->direction = strcmp(d, "higher") == 0 ? 1 : strcmp(d, "lower") == 0 ? -1 : 0;
            have++;
        }
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return -1;
    w->n = n;
    if (have == n && s->direction != 0)
        w->nm++;
    return 0;
}

static int load_workload(sqlite3 *db, struct wl *w)
{
    struct hgate_pick picks[MAX_METRICS];
    size_t np = hgate_metrics(w->name, NULL, 0, picks, MAX_METRICS);
    for (size_t i = 0; i < np; i++)
        if (load_series(db, w, &picks[i]) < 0)
            return -1;
    if (w->nm == 0 || w->m[0].kind != HGATE_HEADLINE || w->n < 2 * 5 * 2) {
        fprintf(stderr, "gate_tool: %s: no headline, or fewer than 20 runs\n", w->name);
        return -1;
    }
    return 0;
}

static int load_pool(const char *path, struct wl *ws, size_t *nw)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st;
    char uri[4200];
    report_set_workload_lookup(present_workload);
    *nw = 0;
    /* immutable: the WAL fixture is only read, no -wal or -shm beside it */
    snprintf(uri, sizeof uri, "file:%s?immutable=1", path);
    if (strpbrk(path, "%?#") ||
        sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT workload FROM run WHERE status = 'ok' GROUP BY workload ORDER BY min(id)", -1,
                           &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "gate_tool: %s: %s\n", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *nw < MAX_WL) {
        memset(&ws[*nw], 0, sizeof ws[*nw]);
        snprintf(ws[(*nw)++].name, sizeof ws[0].name, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    int bad = rc != SQLITE_DONE || *nw == 0;
    for (size_t i = 0; !bad && i < *nw; i++)
        bad = load_workload(db, &ws[i]) < 0;
    sqlite3_close(db);
    return bad ? -1 : 0;
}

/* Each metric's candidate's p under options cp (1 when it has none). */
static int candidates(const struct wl *w, double means[][NIGHTS], size_t nights, const struct cp_opts *cp, double *p)
{
    for (size_t m = 0; m < w->nm; m++) {
        struct cp_change *ch = NULL;
        size_t nc = 0;
        struct pm_err err;
        if (cp_detect(means[m], nights, cp, &ch, &nc, &err) < 0) {
            fprintf(stderr, "gate_tool: %s\n", err.msg);
            return -1;
        }
        const struct cp_gate g = { .window = WINDOW, .threshold_pct = PCT, .direction = w->m[m].direction };
        long at = cp_gate_find(ch, nc, nights, &g);
        p[m] = at >= 0 ? ch[at].p : 1;
        free(ch);
    }
    return 0;
}

/* A rule's members. */
static bool member(const struct wl *w, size_t r, size_t m)
{
    switch (r) {
    case RULE_HEAD:
        return w->m[m].kind == HGATE_HEADLINE;
    case RULE_ALSO:
        return w->m[m].kind == HGATE_HEADLINE || w->m[m].kind == HGATE_ALSO;
    default:
        return true;
    }
}

/* One night judged by each rule, each with the change points' options
 * compare --history would use for its family (hgate_cp_opts: the
 * permutations resolve Holm's smallest level; before issue 43 the gate
 * judged every metric alone with a family of one's). */
static int judge_night(const struct wl *w, double means[][NIGHTS], size_t nights, bool red[NRULES],
                       bool red_m[NRULES][MAX_METRICS])
{
    double p[NRULES][MAX_METRICS], adj[MAX_METRICS];
    bool in[MAX_METRICS], fires[MAX_METRICS];
    unsigned done[NRULES];
    for (size_t r = 0; r < NRULES; r++) {
        size_t family = 0;
        for (size_t m = 0; m < w->nm; m++)
            family += r == RULE_EVERY ? 0 : member(w, r, m);
        struct cp_opts cp;
        hgate_cp_opts(ALPHA, family ? family : 1, &cp);
        done[r] = cp.permutations;
        size_t same = r;
        for (size_t q = 0; q < r; q++)
            if (done[q] == done[r])
                same = q;
        if (same != r)
            memcpy(p[r], p[same], sizeof p[r]);
        else if (candidates(w, means, nights, &cp, p[r]) < 0)
            return -1;
        red[r] = false;
        for (size_t m = 0; m < w->nm; m++)
            in[m] = member(w, r, m);
        if (r == RULE_EVERY) {
            for (size_t m = 0; m < w->nm; m++)
                red[r] |= red_m[r][m] = p[r][m] <= ALPHA;
            continue;
        }
        if (hgate_family(p[r], in, w->nm, ALPHA, adj, fires) < 0)
            return -1;
        for (size_t m = 0; m < w->nm; m++)
            red[r] |= red_m[r][m] = fires[m];
    }
    return 0;
}

/* Nights in recording order: K runs each from offset off. */
static int run_order(const struct wl *w, unsigned k, unsigned off, struct tally *t)
{
    static double means[MAX_METRICS][NIGHTS];
    size_t nights = (w->n - off) / k;
    if (nights > NIGHTS)
        nights = NIGHTS;
    for (size_t m = 0; m < w->nm; m++)
        for (size_t n = 0; n < nights; n++) {
            double s = 0;
            for (unsigned i = 0; i < k; i++)
                s += w->m[m].v[off + n * k + i];
            means[m][n] = s / k;
        }
    for (size_t night = FIRST_JUDGED; night < nights; night++) {
        bool red[NRULES], red_m[NRULES][MAX_METRICS];
        if (judge_night(w, means, night + 1, red, red_m) < 0)
            return -1;
        t->nights++;
        for (size_t r = 0; r < NRULES; r++) {
            t->red[r] += red[r];
            for (size_t m = 0; m < w->nm; m++)
                t->red_by[r][m] += red_m[r][m];
        }
    }
    return 0;
}

/* A history of blocks; step: the headline this much worse from
 * SHIFT_NIGHT on (0: none). */
static int run_blocks(gsl_rng *rng, const struct wl *w, unsigned k, double step, struct tally *t)
{
    static double means[MAX_METRICS][NIGHTS];
    for (size_t n = 0; n < NIGHTS; n++) {
        size_t start = gsl_rng_uniform_int(rng, w->n - k + 1);
        for (size_t m = 0; m < w->nm; m++) {
            double s = 0;
            for (unsigned i = 0; i < k; i++)
                s += w->m[m].v[start + i];
            double f = m == 0 && n >= SHIFT_NIGHT ? 1 - w->m[0].direction * step : 1;
            means[m][n] = f * s / k;
        }
    }
    bool found[NRULES] = { false };
    size_t last = step > 0 ? SHIFT_NIGHT + WITHIN : NIGHTS;
    for (size_t night = FIRST_JUDGED; night < last; night++) {
        bool red[NRULES], red_m[NRULES][MAX_METRICS];
        if (judge_night(w, means, night + 1, red, red_m) < 0)
            return -1;
        if (step > 0 && night >= SHIFT_NIGHT) {
            /* the step found: red for the headline itself, not another
             * metric's alarm that came the same night */
            for (size_t r = 0; r < NRULES; r++)
                found[r] |= red_m[r][0];
            continue;
        }
        t->nights++;
        for (size_t r = 0; r < NRULES; r++) {
            t->red[r] += red[r];
            for (size_t m = 0; m < w->nm; m++)
                t->red_by[r][m] += red_m[r][m];
        }
    }
    if (step > 0) {
        t->histories++;
        for (size_t r = 0; r < NRULES; r++)
            t->found[r] += found[r];
    }
    return 0;
}

static void wilson(long x, long n, double *lo, double *hi)
{
    if (n == 0) {
        *lo = 0;
        *hi = 100;
        return;
    }
    double p = (double)x / (double)n, z2 = Z95 * Z95, d = 1 + z2 / (double)n;
    double c = (p + z2 / (2.0 * (double)n)) / d;
    double h = Z95 * sqrt(p * (1 - p) / (double)n + z2 / (4.0 * (double)n * (double)n)) / d;
    *lo = 100 * fmax(0, c - h);
    *hi = 100 * fmin(1, c + h);
}

/* Which metrics made the red nights: "chat.latency_p99_us 12, ..." */
static void culprits(const struct wl *w, const struct tally *t, size_t r, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t m = 0; m < w->nm && o < len; m++)
        if (t->red_by[r][m])
            o += (size_t)snprintf(buf + o, len - o, "%s%s %ld", o ? ", " : "", w->m[m].name, t->red_by[r][m]);
    if (!o)
        snprintf(buf, len, "-");
}

static void print_row(FILE *raw, const struct wl *w, const char *draw, unsigned k, const struct tally *t)
{
    for (size_t r = 0; r < NRULES; r++) {
        double lo, hi, flo, fhi;
        char who[400], found[64] = "-";
        wilson(t->red[r], t->nights, &lo, &hi);
        culprits(w, t, r, who, sizeof who);
        if (t->histories) {
            wilson(t->found[r], t->histories, &flo, &fhi);
            snprintf(found, sizeof found, "%.0f %% (%.0f-%.0f)", 100.0 * (double)t->found[r] / (double)t->histories,
                     flo, fhi);
        }
        printf("| %s | %s | %u | %s | %ld | %.2f (%.2f-%.2f) | %s | %s |\n", w->name, draw, k, rule_names[r],
               t->nights, 100.0 * (double)t->red[r] / (double)(t->nights ? t->nights : 1), lo, hi, found, who);
        if (raw)
            fprintf(raw, "row\t%s\t%s\t%u\t%zu\t%ld\t%ld\t%.4f\t%ld\t%ld\n", w->name, draw, k, r, t->nights, t->red[r],
                    hi, t->histories, t->found[r]);
    }
}

static int cmd_table(const struct wl *ws, size_t nw, long histories, unsigned long seed, FILE *raw)
{
    static const unsigned order_k[] = { 2, 3, 5 }, block_k[] = { 2, 3, 5 };
    printf("| workload | nights | runs a night | gate | label-nights judged | red /100 label-nights (95%% CI) | "
           "5 %% headline step: red within %d nights (95%% CI) | red nights by metric |\n"
           "|---|---|---|---|---|---|---|---|\n", WITHIN);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        return 1;
    int rc = 0;
    for (size_t i = 0; i < nw && rc == 0; i++) {
        for (size_t a = 0; a < sizeof order_k / sizeof order_k[0] && rc == 0; a++) {
            struct tally t = { 0 };
            for (unsigned off = 0; off < order_k[a] && rc == 0; off++)
                rc = run_order(&ws[i], order_k[a], off, &t);
            if (rc == 0)
                print_row(raw, &ws[i], "in recording order", order_k[a], &t);
        }
        for (size_t b = 0; b < sizeof block_k / sizeof block_k[0] && rc == 0; b++) {
            struct tally t = { 0 };
            gsl_rng_set(rng, seed * 1000003ul + i * 101ul + block_k[b]);
            for (long h = 0; h < histories && rc == 0; h++)
                rc = run_blocks(rng, &ws[i], block_k[b], 0, &t);
            for (long h = 0; h < histories && rc == 0; h++)
                rc = run_blocks(rng, &ws[i], block_k[b], 0.05, &t);
            if (rc == 0)
                print_row(raw, &ws[i], "blocks", block_k[b], &t);
        }
    }
    gsl_rng_free(rng);
    return rc ? 1 : 0;
}

/* Each judged night's verdict in recording order (offset 0), today's gate. */
static int cmd_nights(const struct wl *ws, size_t nw, unsigned k)
{
    static double means[MAX_METRICS][NIGHTS];
    for (size_t i = 0; i < nw; i++) {
        const struct wl *w = &ws[i];
        size_t nights = w->n / k < NIGHTS ? w->n / k : NIGHTS;
        for (size_t m = 0; m < w->nm; m++)
            for (size_t n = 0; n < nights; n++) {
                double s = 0;
                for (unsigned r = 0; r < k; r++)
                    s += w->m[m].v[n * k + r];
                means[m][n] = s / k;
            }
        for (size_t night = FIRST_JUDGED; night < nights; night++) {
            bool red[NRULES], red_m[NRULES][MAX_METRICS];
            if (judge_night(w, means, night + 1, red, red_m) < 0)
                return 1;
            printf("%s %zu %d\n", w->name, night + 1, red[RULE_HEAD]);
        }
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: gate_tool table DB HISTORIES SEED [RAW] | nights DB K\n");
    return 2;
}

int main(int argc, char **argv)
{
    static struct wl ws[MAX_WL];
    size_t nw;
    if (argc == 4 && strcmp(argv[1], "nights") == 0) {
        int k = atoi(argv[3]);
        if (k < 1 || k > MAX_K)
            return usage();
        return load_pool(argv[2], ws, &nw) < 0 ? 1 : cmd_nights(ws, nw, (unsigned)k);
    }
    if ((argc != 5 && argc != 6) || strcmp(argv[1], "table") != 0)
        return usage();
    long histories = atol(argv[3]);
    unsigned long seed = strtoul(argv[4], NULL, 10);
    if (histories <= 0 || load_pool(argv[2], ws, &nw) < 0)
        return 1;
    FILE *raw = argc == 6 ? fopen(argv[5], "a") : NULL;
    if (argc == 6 && !raw) {
        perror(argv[5]);
        return 1;
    }
    int rc = cmd_table(ws, nw, histories, seed, raw);
    if (raw && fclose(raw) != 0)
        rc = 1;
    return rc;
}
