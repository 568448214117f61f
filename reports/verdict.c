#include "reports/verdict.h"
#include "reports/judge.h"
#include "lib/quote.h"
#include "lib/units.h"
#include <math.h>
#include <string.h>


/* The gate's p: the deciding test's, Holm-adjusted in a family. */
static void gate_p(char *buf, size_t len, const struct comparison *c, size_t m, const struct cmp_cell *cell)
{
    struct judged_p jp = judge_cell_p(c, m, cell, true);
    stats_fmt_judged_p(buf, len, &jp);
}

/* One line of the verdict's: a control character from a label (a newline
 * above all, which could start a "verdict:" line of its own in a CI log)
 * is written as \xNN (quote_terminal). */
static void add_line(char *lines, size_t len, const char *line)
{
    size_t o = strlen(lines);
    if (o + 2 > len)
        return;
    quote_terminal(line, lines + o, len - o - 1);   /* room kept for the newline */
    o += strlen(lines + o);
    lines[o++] = '\n';
    lines[o] = '\0';
}

/* Why a label cannot be judged against the baseline, or NULL. */
static const char *unjudged(const struct comparison *c, size_t l, char *buf, size_t len)
{
    const struct cmp_label *b = &c->labels[c->base], *lb = &c->labels[l];
    if (!cmp_judged(c))
        snprintf(buf, len, "%s", c->unjudged);
    else if (b->ok == 0)
        snprintf(buf, len, "the baseline %s has no ok runs", b->name);
    else if (lb->ok < 2 || b->ok < 2)
        snprintf(buf, len, "%s: n too small (%zu ok runs against %zu; at least 2 a side)", lb->name, lb->ok, b->ok);
    else if (lb->failed + lb->oom > 0 && b->failed + b->oom == 0)
        snprintf(buf, len, "%s: %zu failed and %zu oom runs where the baseline had none", lb->name, lb->failed, lb->oom);
    else
        return NULL;
    return buf;
}

static bool regressed(const struct comparison *c, size_t l, size_t m, double pct)
{
    const struct cmp_cell *cell = cmp_cell_at(c, l, m);
    /* --long's further metrics are shown, not judged: a view must not
     * change the verdict. */
    if (m >= c->nprimary || strcmp(c->metrics[m].direction, "none") == 0 || !cell->gate_significant ||
        isnan(cell->change_pct))
        return false;
    return cell->change_pct < -pct;
}

int verdict_judge(const struct comparison *c, double pct, char *lines, size_t len)
{
    int code = VERDICT_OK;
    bool any_unjudged = false;
    char buf[640], name[256];
    compare_title(c, name, sizeof name);
    for (size_t l = 0; l < c->nlabels; l++) {
        if (cmp_is_base(c, l))
            continue;
        if (unjudged(c, l, buf, sizeof buf)) {
            /* A comparison without a baseline: one line for all its cells. */
            if (!cmp_judged(c) && any_unjudged)
                continue;
            any_unjudged = true;
            char line[1024];
            snprintf(line, sizeof line, "cannot judge %s: %s", name, buf);
            add_line(lines, len, line);
            continue;
        }
        for (size_t m = 0; m < c->nmetrics; m++) {
            if (!regressed(c, l, m, pct))
                continue;
            const struct cmp_cell *a = cmp_cell_at(c, c->base, m), *b = cmp_cell_at(c, l, m);
            char line[1400], am[64], bm[64], p[400];
            pm_fmt_sig(am, sizeof am, a->s.mean, 6);
            pm_fmt_sig(bm, sizeof bm, b->s.mean, 6);
            gate_p(p, sizeof p, c, m, b);
            /* A regression that drift would explain never goes without saying so. */
            const char *why = judge_caveat(c, l);
            if (why) {
                strncat(p, "; caveat: ", sizeof p - strlen(p) - 1);
                strncat(p, why, sizeof p - strlen(p) - 1);
            }
            snprintf(line, sizeof line, "REGRESSION %s: %s %s is %.1f %% worse with %s than with %s (%s -> %s %s, %s)",
                     name, c->metrics[m].name, c->metrics[m].title, -b->change_pct, c->labels[l].name,
                     c->labels[c->base].name, am, bm, c->metrics[m].unit, p);
            add_line(lines, len, line);
            code = VERDICT_REGRESSED;
        }
    }
    if (code == VERDICT_OK && any_unjudged)
        code = VERDICT_UNJUDGED;
    return code;
}

/* The statistics behind a test case, for the CI page's reader: six
 * significant digits where a table shows three, never e-notation. */
static void numbers(FILE *f, const struct comparison *c, size_t l, size_t m, double pct)
{
    const struct cmp_cell *a = cmp_cell_at(c, c->base, m), *b = cmp_cell_at(c, l, m);
    double v[] = { a->s.mean, a->s.sd, b->s.mean, b->s.sd, b->w.t, b->w.df, b->w.ci_low, b->w.ci_high };
    char s[8][64], p[32], mw[32], gp[160], ratio[96], tests[640];
    for (size_t i = 0; i < 8; i++)
        pm_fmt_sig(s[i], sizeof s[i], v[i], i == 4 || i == 5 ? 4 : 6);
    stats_fmt_p(p, sizeof p, b->w.p, true);
    stats_fmt_p(mw, sizeof mw, b->mwu.p, true);
    gate_p(gp, sizeof gp, c, m, b);
    ratio_ci_fmt_pct(ratio, sizeof ratio, &b->rci);
    /* A cell with one value on both sides was never tested: its test
     * fields are empty, not a p of 0. */
    if (b->constant)
        snprintf(tests, sizeof tests, "one value on both sides: nothing tested\n");
    else
        snprintf(tests, sizeof tests,
                 "Welch t=%s df=%s %s, 95%% CI of the difference [%s, %s]\nMann-Whitney U=%g %s; 95%% CI of the "
                 "ratio (Welch's test inverted) %s; decided by %s: %s\n",
                 s[4], s[5], p, s[6], s[7], b->mwu.u, mw, ratio, b->test ? b->test : "-", gp);
    char text[2600], change[64] = "-";
    if (!isnan(b->change_pct))
        snprintf(change, sizeof change, "%+.2f %%", b->change_pct);
    snprintf(text, sizeof text,
             "%s (%s, %s is better)\nbaseline %s: n=%zu mean=%s sd=%s\n%s: n=%zu mean=%s sd=%s\n"
             "change %s (threshold -%.1f %%), %s%s\n",
             c->metrics[m].name, c->metrics[m].unit, c->metrics[m].direction, c->labels[c->base].name, a->s.n, s[0],
             s[1], c->labels[l].name, b->s.n, s[2], s[3], change, pct, tests, c->labels[l].sentence);
    quote_html(f, text);
}

/* Test cases, failures and errors of one comparison, added to the counts. */
static void count(const struct comparison *c, double pct, size_t *tests, size_t *failures, size_t *errors)
{
    char buf[640];
    for (size_t l = 0; l < c->nlabels; l++) {
        if (cmp_is_base(c, l))
            continue;
        bool err = unjudged(c, l, buf, sizeof buf) != NULL;
        for (size_t m = 0; m < c->nmetrics; m++) {
            (*tests)++;
            *errors += err;
            *failures += !err && regressed(c, l, m, pct);
        }
    }
}

void junit_write(FILE *f, struct comparison *const *cs, size_t n, double pct)
{
    size_t tests = 0, failures = 0, errors = 0;
    for (size_t i = 0; i < n; i++)
        count(cs[i], pct, &tests, &failures, &errors);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pressmark compare\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
            tests, failures, errors);
    for (size_t i = 0; i < n; i++) {
        const struct comparison *c = cs[i];
        size_t t = 0, fl = 0, er = 0;
        char buf[640], name[200];
        count(c, pct, &t, &fl, &er);
        /* One testsuite per comparison: a workload's groups (a suite's
         * parts set otherwise) each have their own, by name. */
        snprintf(name, sizeof name, "%s%s%s", c->workload, c->group[0] ? "." : "", c->group);
        fputs("  <testsuite name=\"pressmark.", f);
        quote_html(f, name);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n", t, fl, er);
        for (size_t l = 0; l < c->nlabels; l++) {
            if (cmp_is_base(c, l))
                continue;
            const char *why = unjudged(c, l, buf, sizeof buf);
            for (size_t m = 0; m < c->nmetrics; m++) {
                fputs("    <testcase classname=\"pressmark.", f);
                quote_html(f, name);
                fputc('.', f);
                quote_html(f, c->labels[l].name);
                fputs("\" name=\"", f);
                quote_html(f, c->metrics[m].name);
                fputs("\" time=\"0\">", f);
                if (why) {
                    fputs("\n      <error type=\"unjudged\" message=\"", f);
                    quote_html(f, why);
                    fputs("\"/>\n    ", f);
                } else if (regressed(c, l, m, pct)) {
                    char msg[640], p[160];
                    gate_p(p, sizeof p, c, m, cmp_cell_at(c, l, m));
                    snprintf(msg, sizeof msg, "%s is %.1f %% worse than %s (%s)", c->metrics[m].name,
                             -cmp_cell_at(c, l, m)->change_pct, c->labels[c->base].name, p);
                    fputs("\n      <failure type=\"regression\" message=\"", f);
                    quote_html(f, msg);
                    fputs("\">", f);
                    numbers(f, c, l, m, pct);
                    fputs("</failure>\n    ", f);
                } else {
                    fputs("\n      <system-out>", f);
                    numbers(f, c, l, m, pct);
                    fputs("</system-out>\n    ", f);
                }
                fputs("</testcase>\n", f);
            }
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}

void verdict_format(const struct cmp_verdict *v, char *buf, size_t len)
{
    /* The settings as the user gave them (--fail-on-regression 5, --alpha 0.01). */
    char pct[48], alpha[48];
    pm_fmt_sig(pct, sizeof pct, v->threshold_pct, 6);
    pm_fmt_sig(alpha, sizeof alpha, v->alpha, 6);
    if (v->exit_status == VERDICT_REGRESSED)
        snprintf(buf, len, "verdict: regression: a metric is worse than the baseline by more than %s %% (significant "
                 "at alpha %s%s)\n", pct, alpha, v->family > 1 ? " for the family, Holm" : "");
    else if (v->exit_status == VERDICT_UNJUDGED)
        snprintf(buf, len, "verdict: cannot judge: see the lines above\n");
    else
        snprintf(buf, len, "verdict: no regression beyond %s %% at alpha %s%s\n", pct, alpha,
                 v->family > 1 ? " for the family (Holm)" : "");
}

void verdict_print(FILE *f, const struct cmp_verdict *v)
{
    char line[VERDICT_LINE_MAX];
    verdict_format(v, line, sizeof line);
    fputs(line, f);
}
