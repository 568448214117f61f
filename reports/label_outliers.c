#include "reports/label_outliers.h"
#include <stdlib.h>
#include <string.h>
#include "stats/outlier.h"
#include "reports/present.h"
#include "reports/summary.h"

/* The headline of runs[i] when it is an ok run that has one. */
static const struct metric *judged_value(const struct run_info *ri, const char *headline)
{
    if (strcmp(ri->status, "ok") != 0)
        return NULL;
    return metric_set_find(&ri->metrics, headline);
}

/* Judge the ok runs of runs[first]'s workload, marking each run of that
 * workload done. */
static int judge_workload(const struct run_info *runs, size_t n, size_t first, bool *done, struct label_outlier *out,
                          double *v, size_t *at, double *z, bool *flag)
{
    const char *title, *headline = summary_workload_headline(runs + first, n - first, runs[first].workload, &title);
    size_t k = 0;
    for (size_t i = first; i < n; i++) {
        if (done[i] || strcmp(runs[i].workload, runs[first].workload) != 0)
            continue;
        done[i] = true;
        const struct metric *m = judged_value(&runs[i], headline);
        if (m) {
            v[k] = m->value;
            at[k++] = i;
        }
    }
    int flagged = stats_outliers(v, k, z, flag);
    for (size_t i = 0; flagged >= 0 && i < k && k >= OUTLIER_MIN_RUNS; i++)
        out[at[i]] = (struct label_outlier){ .among = k, .flagged = flag[i], .z = z[i] };
    return flagged;
}

int label_outliers(const struct run_info *runs, size_t n, struct label_outlier *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (struct label_outlier){ 0 };
    size_t cap = n ? n : 1;
    bool *done = calloc(cap, sizeof *done), *flag = calloc(cap, sizeof *flag);
    double *v = calloc(cap, sizeof *v), *z = calloc(cap, sizeof *z);
    size_t *at = calloc(cap, sizeof *at);
    int total = done && flag && v && z && at ? 0 : -1;
    for (size_t i = 0; total >= 0 && i < n; i++) {
        if (done[i])
            continue;
        int k = judge_workload(runs, n, i, done, out, v, at, z, flag);
        total = k < 0 ? -1 : total + k;
    }
    free(done);
    free(flag);
    free(v);
    free(z);
    free(at);
    return total;
}
