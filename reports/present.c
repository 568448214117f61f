#include "reports/present.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */
#include <stddef.h>

static wl_present_fn lookup;

void report_set_workload_lookup(wl_present_fn fn)
{
    lookup = fn;
}

bool report_workload_known(const char *workload)
{
    struct wl_present wp;
    return !lookup || (workload && lookup(workload, &wp));
}

bool report_workload(const char *workload, struct wl_present *out)
{
    if (workload && lookup && lookup(workload, out))
        return true;
    *out = (struct wl_present){ .headline = MN_time_elapsed_s, .title = "elapsed", .cpu_split = false,
                                .params_title = "parameters" };
    return false;
}
