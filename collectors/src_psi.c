/* /proc/pressure/{memory,io,cpu}: the time tasks stalled, some and full. */
#include "collectors/source.h"
#include <stdio.h>
#include "collectors/proc_parse.h"

enum { PSI_SOME_S, PSI_FULL_S };
static const struct metric_def psi_defs[] = {
    [PSI_SOME_S] = METRIC("psi.<resource>.some_s", "s", PM_LOWER,
                  "time at least one task stalled on <resource> (memory, io or cpu)"),
    [PSI_FULL_S] = METRIC("psi.<resource>.full_s", "s", PM_LOWER,
                  "time every non-idle task stalled on <resource> at once (memory, io or cpu)"),
};
static const struct metric_group psi_metrics = METRIC_GROUP(
    "psi: /proc/pressure, the change of each total over the run",
    psi_defs);

static int psi_derive(const struct series_table *t, long page_size, struct metric_set *out, struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    static const char *res[] = { "memory", "io", "cpu" };
    int rc = 0;
    for (int r = 0; r < 3; r++) {
        char series[64];
        double us;
        snprintf(series, sizeof series, "psi.%s.some.total", res[r]);
        if (series_delta(t, series, &us))
            rc |= metric_put_word(out, &psi_defs[PSI_SOME_S], res[r], us / 1e6);
        snprintf(series, sizeof series, "psi.%s.full.total", res[r]);
        if (series_delta(t, series, &us))
            rc |= metric_put_word(out, &psi_defs[PSI_FULL_S], res[r], us / 1e6);
    }
    return rc;
}

static void psi_init(struct source_set *ss, const struct source_opts *o)
{
    char pressure[PATH_MAX];
    snprintf(pressure, sizeof pressure, "%s/pressure", o->proc_root);
    source_add_file(ss, "psi", pressure, "memory", "psi.memory", parse_psi);
    source_add_file(ss, "psi", pressure, "cpu", "psi.cpu", parse_psi);
    source_add_file(ss, "psi", pressure, "io", "psi.io", parse_psi);
}

static const struct metric_group *const psi_groups[] = { &psi_metrics, NULL };
const struct source_def source_psi = { .init = psi_init, .derive = psi_derive, .metrics = psi_groups };
