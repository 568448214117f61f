#include "bisect/bisect_judge.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats/stats.h"

static bool constant(const double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[0])
            return false;
    return true;
}

/* stats_summary sorts what it is given: a copy. */
static void summarize(const double *v, size_t n, struct summary *s)
{
    double *t = malloc((n ? n : 1) * sizeof *t);
    if (!t) {
        memset(s, 0, sizeof *s);
        return;
    }
    if (n)
        memcpy(t, v, n * sizeof *t);
    stats_summary(t, n, s);
    free(t);
}

double bisect_p(const double *a, size_t na, const double *b, size_t nb)
{
    if (na < 2 || nb < 2)
        return NAN;
    if (constant(a, na) && constant(b, nb))
        return a[0] == b[0] ? 1.0 : 0.0;
    struct summary sa, sb;
    summarize(a, na, &sa);
    summarize(b, nb, &sb);
    struct welch w;
    stats_welch(&sa, &sb, &w);
    return w.valid ? w.p : NAN;
}

unsigned bisect_looks(int runs, int max_runs)
{
    if (runs <= 0 || max_runs <= runs)
        return 1;
    return (unsigned)((max_runs + runs - 1) / runs);
}

void bisect_judge(const double *good, size_t ng, const double *bad, size_t nb, const double *c, size_t nc,
                  double alpha, unsigned looks, bool at_cap, struct bisect_judgement *j)
{
    j->level = alpha / (looks ? looks : 1);
    j->p_good = bisect_p(c, nc, good, ng);
    j->p_bad = bisect_p(c, nc, bad, nb);
    double sum = 0;
    for (size_t i = 0; i < nc; i++)
        sum += c[i];
    j->mean = nc ? sum / (double)nc : NAN;
    j->verdict = BISECT_UNDECIDED;
    /* NaN compares false both ways: too few runs decide nothing. */
    if (j->p_bad < j->level && j->p_good >= j->level)
        j->verdict = BISECT_GOOD;
    else if (j->p_good < j->level && j->p_bad >= j->level)
        j->verdict = BISECT_BAD;
    else if (at_cap)
        j->verdict = BISECT_CANNOT_TELL;
}

const char *bisect_verdict_name(enum bisect_verdict v)
{
    switch (v) {
    case BISECT_GOOD:
        return "good";
    case BISECT_BAD:
        return "bad";
    case BISECT_CANNOT_TELL:
        return "cannot-tell";
    case BISECT_UNDECIDED:
        break;
    }
    return "";
}
