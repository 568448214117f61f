#include "stats/family.h"
#include <math.h>
#include <stdlib.h>

struct ranked_p {
    double p;
    size_t at;
};

static int by_p(const void *x, const void *y)
{
    const struct ranked_p *a = x, *b = y;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* The judged p-values, smallest first; *m of them. Those not judged
 * (NaN) stay out and are NaN in adj. */
static struct ranked_p *sorted_family(const double *p, size_t n, double *adj, size_t *m)
{
    struct ranked_p *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return NULL;
    *m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isnan(p[i]))
            r[(*m)++] = (struct ranked_p){ p[i], i };
        else
            adj[i] = NAN;
    }
    qsort(r, *m, sizeof *r, by_p);
    return r;
}

int stats_holm(const double *p, size_t n, double *adj)
{
    size_t m;
    struct ranked_p *r = sorted_family(p, n, adj, &m);
    if (!r)
        return -1;
    /* Step down: the k-th smallest is multiplied by the m - k + 1 still in
     * play, and never falls below the adjusted one before it. */
    double run = 0;
    for (size_t k = 0; k < m; k++) {
        double v = fmin(1.0, (double)(m - k) * r[k].p);
        run = fmax(run, v);
        adj[r[k].at] = run;
    }
    free(r);
    return 0;
}

int stats_bh(const double *p, size_t n, double *adj)
{
    size_t m;
    struct ranked_p *r = sorted_family(p, n, adj, &m);
    if (!r)
        return -1;
    /* Step up: the k-th smallest times m / k, never above the adjusted
     * one after it. */
    double run = 1;
    for (size_t k = m; k-- > 0;) {
        double v = fmin(1.0, (double)m / (double)(k + 1) * r[k].p);
        run = fmin(run, v);
        adj[r[k].at] = run;
    }
    free(r);
    return 0;
}
