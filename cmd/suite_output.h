#ifndef PM_CMD_SUITE_OUTPUT_H
#define PM_CMD_SUITE_OUTPUT_H
/* What suite run shows of the experiment layer's events: its log lines on
 * stderr, a dry run's answer on stdout, the progress table (cmd/progress.h)
 * on stderr unless quiet. */
#include <stdbool.h>
#include "cmd/progress.h"
#include "experiment/events.h"

struct suite_output {
    bool quiet;
    bool begun;                 /* the progress table exists */
    struct progress prog;
};

/* Point ev's handlers at so. */
void cli_suite_output_init(struct suite_output *so, bool quiet, struct exp_events *ev);
void cli_suite_output_free(struct suite_output *so);

#endif
