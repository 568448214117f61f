#ifndef PM_METRIC_DOC_H
#define PM_METRIC_DOC_H
/* The catalogue of every metric a run can store: unit, better direction,
 * where it comes from and what it means. 'pressmark help metrics' prints it
 * and pressmark-metrics(7) is written from that, so the documentation has
 * one source; with PRESSMARK_TEST_STRICT_METRICS=1 (the tests) a run that
 * stores a metric the catalogue lacks, or with another unit or direction,
 * fails, so the catalogue cannot fall behind the code. */
#include "lib/metrics.h"
#include <stdio.h>

struct metric_doc {
    const char *group;        /* non-NULL: a heading, and the entries under it */
    const char *name;         /* "<word>" stands for one run of [a-z0-9_] */
    const char *unit;
    enum metric_dir dir;
    const char *meaning;
};

extern const struct metric_doc metric_docs[];
extern const size_t metric_docs_n;

/* The entry whose name matches, or NULL. */
const struct metric_doc *metric_doc_find(const char *name);
/* NULL when the catalogue has the metric with this unit and direction;
 * otherwise what is wrong, in words (a static buffer). */
const char *metric_doc_check(const char *name, const char *unit, enum metric_dir dir);
/* The catalogue as 'pressmark help metrics' shows it. */
void metric_doc_print(FILE *f);

#endif
