#ifndef PM_PRESENT_H
#define PM_PRESENT_H
/* How reports present a workload's runs: its headline metric, that column's
 * title, whether the CPU split is shown. The workloads know; the command
 * layer hands reports a lookup into them (report_set_workload_lookup), so
 * reports depend on nothing above the store. */
#include <stdbool.h>
#include "lib/metrics.h"

struct wl_present {
    const char *headline;          /* "chat.msgs_per_s" */
    const char *title;             /* "msg/s" */
    bool cpu_split;                /* show adds user, system and idle columns */
    const char *params_title;      /* what its stored parameters are: "parameters", "command" */
    const char *const *compare_also;  /* compared by default after the headline (NULL-terminated), or NULL */
    /* The workload's own figures (a server's INFO, a build's phases):
     * compare --long and the report's "every statistic" show each; NULL: none. */
    const struct metric_group *figures;
};

typedef bool (*wl_present_fn)(const char *workload, struct wl_present *out);
void report_set_workload_lookup(wl_present_fn fn);
/* What to show for workload; a name no workload has (a database from a
 * newer pressmark, or a hostile one) gets elapsed time and returns false. */
bool report_workload(const char *workload, struct wl_present *out);

/* Is workload one that this pressmark has? (Without a lookup: any is.) */
bool report_workload_known(const char *workload);

#endif
