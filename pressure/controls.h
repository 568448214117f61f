#ifndef PM_CONTROLS_H
#define PM_CONTROLS_H
/* cgroup v2's controls of the workload's cgroup beside its cap
 * (memory.high, memory.low, memory.min, memory.zswap.max,
 * memory.zswap.writeback): what a machine must have for them. One check,
 * so a run is refused for the same reason whether its options are read
 * here or its environment comes up on the kernel a suite cell boots. */
#include "lib/err.h"
#include "pressure/env.h"

/* 0, or -1 with err naming the first control cfg sets that the cap method
 * got (as env_resolve_method resolved it) or this kernel cannot give. */
int env_controls_check(const struct env_config *cfg, enum cap_method got, struct pm_err *err);

#endif
