#include "experiment/plan_power.h"
#include <math.h>
#include <stdlib.h>
#include "stats/power.h"
#include "stats/stats.h"
#include "store/suites.h"

/* Figures from a CV: a cell whose earlier runs all gave the same value
 * (CV 0) detects any change with the least runs a test takes. */
static void from_cv(const struct suite_plan *p, struct cell_power *out)
{
    if (out->cv_pct == 0) {
        out->detect_min_pct = out->detect_max_pct = 0;
        out->runs_needed = p->detect_pct > 0 ? 2 : 0;
        return;
    }
    out->detect_min_pct = stats_detectable_pct(out->cv_pct, p->runs_min, p->alpha, SUITE_POWER);
    out->detect_max_pct = p->runs_max == p->runs_min ? out->detect_min_pct
                                                     : stats_detectable_pct(out->cv_pct, p->runs_max, p->alpha,
                                                                            SUITE_POWER);
    if (p->detect_pct > 0) {
        unsigned n = stats_runs_needed(out->cv_pct, p->detect_pct, p->alpha, SUITE_POWER, SUITE_MAX_RUNS);
        out->runs_needed = n ? n : SUITE_MAX_RUNS + 1;
    }
}

int suite_cell_power(struct pm_db *db, const struct suite_plan *p, const struct suite_cell *c, struct cell_power *out,
                     struct pm_err *err)
{
    *out = (struct cell_power){ .cv_pct = NAN, .detect_min_pct = NAN, .detect_max_pct = NAN };
    double *v;
    size_t n;
    if (suites_earlier_values(db, c->wl->name, c->label, c->params, c->headline, &v, &n, err) < 0)
        return -1;
    out->earlier = n;
    if (n >= 2) {
        struct summary s;
        stats_summary(v, n, &s);
        /* A mean of 0 has no CV in percent of it. */
        if (s.mean != 0 && isfinite(s.cv_pct)) {
            out->cv_pct = s.cv_pct;
            from_cv(p, out);
        }
    }
    free(v);
    return 0;
}
