#include "reports/across.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The headline ratio of label l, oriented so that above 1 is better, and
 * its logarithm's standard error; false when it has none. */
static bool headline_ratio(const struct comparison *c, size_t l, double *r, double *se)
{
    const struct cmp_cell *a = cmp_cell_at(c, c->base, 0), *b = cmp_cell_at(c, l, 0);
    const char *dir = c->metrics[0].direction;
    if (!cmp_judged(c) || l == c->base || a->s.n < 2 || b->s.n < 2 || !(a->s.mean > 0) || !(b->s.mean > 0) ||
        strcmp(dir, "none") == 0)
        return false;
    *r = strcmp(dir, "lower") == 0 ? a->s.mean / b->s.mean : b->s.mean / a->s.mean;
    *se = stats_log_ratio_se(a->s.mean, a->s.sd, a->s.n, b->s.mean, b->s.sd, b->s.n);
    return !isnan(*se);
}

static int find_or_add(struct across **v, size_t *n, const char *config, const char *shown)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i].config, config) == 0)
            return (int)i;
    struct across *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    memset(&nv[*n], 0, sizeof nv[0]);
    snprintf(nv[*n].config, sizeof nv[0].config, "%s", config);
    snprintf(nv[*n].shown, sizeof nv[0].shown, "%s", shown);
    return (int)(*n)++;
}

static void summarise(struct comparison *const *cs, size_t n, struct across *a)
{
    double *r = malloc((n ? n : 1) * sizeof *r), *se = malloc((n ? n : 1) * sizeof *se);
    size_t k = 0;
    for (size_t i = 0; r && se && i < n; i++)
        for (size_t l = 0; l < cs[i]->nlabels; l++)
            if (strcmp(cs[i]->labels[l].config, a->config) == 0 && headline_ratio(cs[i], l, &r[k], &se[k])) {
                k++;
                break;
            }
    a->workloads = k;
    if (r && se)
        stats_geomean(r, se, k, 0.95, &a->g);
    free(r);
    free(se);
}

int compare_across(struct comparison *const *cs, size_t n, struct across **out, size_t *nout)
{
    struct across *v = NULL;
    size_t nv = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < cs[i]->nlabels; l++)
            if (cmp_judged(cs[i]) && l != cs[i]->base &&
                find_or_add(&v, &nv, cs[i]->labels[l].config, cmp_label_shown(&cs[i]->labels[l])) < 0) {
                free(v);
                return -1;
            }
    size_t k = 0;
    for (size_t i = 0; i < nv; i++) {
        summarise(cs, n, &v[i]);
        if (v[i].workloads >= 2)
            v[k++] = v[i];
    }
    *out = v;
    *nout = k;
    return 0;
}
