#ifndef PM_CMD_BISECT_OUTPUT_H
#define PM_CMD_BISECT_OUTPUT_H
/* What pressmark bisect prints: the candidates of --plan, and at the end
 * the evidence, read back from results.db. */
#include <stdbool.h>
#include <stdint.h>
#include "bisect/bisect.h"

void cli_bisect_print_plan(const struct bisect_plan *bp);
/* The first bad kernel, every step's evidence, the boots and the
 * kernel configuration differences; as JSON with json. */
void cli_bisect_print_result(int64_t id, bool json);

#endif
