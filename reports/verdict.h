#ifndef PM_VERDICT_H
#define PM_VERDICT_H
/* The CI contract of compare: did any compared metric of any label get
 * worse than the baseline by more than a threshold, significantly? Exit
 * status 1 when yes, 0 when no, 2 when it cannot be judged. */
#include <stdio.h>
#include "reports/compare.h"

enum { VERDICT_OK = 0, VERDICT_REGRESSED = 1, VERDICT_UNJUDGED = 2 };

/* What --fail-on-regression concluded over every workload. */
struct cmp_verdict {
    int exit_status;                  /* VERDICT_* */
    double threshold_pct, alpha;
    size_t family;                    /* comparisons judged together: alpha is their family's level */
    const char *findings;             /* one line per finding */
};

/* The verdict's sentence, the last line a CI log shows; verdict_format
 * writes it (with its newline) to buf for an output that quotes it. */
enum { VERDICT_LINE_MAX = 256 };
void verdict_format(const struct cmp_verdict *v, char *buf, size_t len);
void verdict_print(FILE *f, const struct cmp_verdict *v);

/* Judge one comparison; appends one line per finding to lines. */
int verdict_judge(const struct comparison *c, double pct, char *lines, size_t len);
/* JUnit XML: a testsuite per comparison (a workload, or a group of a
 * suite's cells: pressmark.usemem.usemem-rand), a testcase per label x metric. */
void junit_write(FILE *f, struct comparison *const *cs, size_t n, double pct);

#endif
