#ifndef PM_PROFILE_H
#define PM_PROFILE_H
/* --profile: a system-wide `perf record -e cpu-clock -a` for the run (the
 * software clock works in VMs), then the top kernel symbols with their
 * sample counts and shares, as the wblg-disk report's oprofile table. */
#include <stdbool.h>
#include <sys/types.h>
#include "store/runs.h"
#include "lib/kv.h"

#define PROFILE_TOP 10

struct profile {
    pid_t pid;
    char dir[512], data[600];
    int undo_id;
};

bool profile_available(void);
/* Start recording; perf is tied to pressmark and dies with it. */
int profile_start(struct profile *p, struct pm_err *err);
/* Stop, read the top kernel symbols into top[0..PROFILE_TOP) (*ntop of
 * them), clean up. */
int profile_finish(struct profile *p, struct run_symbol *top, size_t *ntop, struct kv_list *meta, struct pm_err *err);

#endif
