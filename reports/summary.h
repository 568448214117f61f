#ifndef PM_SUMMARY_H
#define PM_SUMMARY_H
/* How show prints runs: the 2002 VolanoMark report's table (label, headline, %CPU, %sys/%user,
 * Total swpin/swpout/swapio), the 2004 objrmap report's GNU time line, and JSON. */
#include <stdio.h>
#include "lib/json.h"
#include "store/runinfo.h"
#include "reports/label_outliers.h"

/* Runs of one workload; out (NULL, or one per run: label_outliers) adds an
 * outlier column and the rule under the table when a run is flagged. */
void summary_print_runs(FILE *f, struct run_info *runs, size_t n, bool one_run, const struct label_outlier *out);
/* A run as a JSON object; top: the document itself (with format_version).
 * o, for a label's runs: its "outlier" ({"z", "metric", "among",
 * "threshold"} or null); NULL leaves the key out. */
void summary_json_run(struct jw *j, const struct run_info *ri, bool top, const struct label_outlier *o);
/* GNU time's default two lines, from the time.* metrics. */
void summary_gnu_time(FILE *f, const struct run_info *ri);
/* The workload's own figures of a run, one line after a blank one
 * ("redis: keys 25,165, ..."): its metrics named "<workload>.", but for
 * a latency histogram's; nothing when it has none. */
void summary_workload_figures(FILE *f, const struct run_info *ri);
/* "2026-11-30 15:40:01 UTC" */
void summary_fmt_time(char *buf, size_t len, int64_t wall_ns);
/* The headline metric's name and title for a workload. */
const char *summary_headline(const char *workload, const char **title);
/* The same for runs: the headline they name themselves (a record's
 * figures), its unit the title, where every one naming one names the
 * same; else their workload's (runs[0]'s). */
const char *summary_runs_headline(const struct run_info *runs, size_t n, const char **title);
/* The same over the runs of one workload among them: a label's runs of
 * another workload name their own headline, not this one's. */
const char *summary_workload_headline(const struct run_info *runs, size_t n, const char *workload, const char **title);

#endif
