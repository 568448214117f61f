#ifndef PM_LABEL_OUTLIERS_H
#define PM_LABEL_OUTLIERS_H
/* show LABEL's outliers: each ok run judged among the label's other ok
 * runs of the same workload, on that workload's headline, by the rule
 * compare uses (outlier.h), so show and compare flag the same runs. A
 * label may span workloads (a suite relabelled, a merged database): each
 * workload's runs are judged apart, whatever order they came in. */
#include <stdbool.h>
#include <stddef.h>
#include "store/runinfo.h"

struct label_outlier {
    size_t among;                /* the ok runs with a headline it was judged among (0: not judged) */
    bool flagged;
    double z;                    /* its modified z-score; 0 when not judged */
};

/* out[i] for runs[i]. Returns how many are flagged, -1 out of memory. */
int label_outliers(const struct run_info *runs, size_t n, struct label_outlier *out);

#endif
