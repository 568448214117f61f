#ifndef PM_TRACEFS_H
#define PM_TRACEFS_H
/* A trace instance of pressmark's own for one run: tracefs mounted if it
 * is not (and unmounted after), an instance directory made under
 * instances/ with the mono clock, its own buffer and the reclaim and
 * compaction begin/end events enabled for one process and everything it
 * forks after. Both the mount and the instance are journalled, so a
 * pressmark killed mid-run leaves neither behind. Reading the buffers is
 * the collectors' business (collectors/stalltrace). */
#include <stdbool.h>
#include <limits.h>
#include <sys/types.h>
#include "lib/err.h"

#define TRACEFS_MOUNT "/sys/kernel/tracing"

struct trace_instance {
    char root[PATH_MAX];          /* where tracefs is mounted */
    char dir[PATH_MAX];           /* root/instances/pressmark-PID */
    bool mounted, made;           /* by us: undone by trace_instance_remove */
    int mount_id, dir_id;         /* their journal entries */
};

/* Set up the instance for pid (events of pid and of the tasks it forks
 * from now on). buffer_kb per CPU. -1 with err saying why when tracing
 * is not possible here (no tracefs in the kernel, an event missing). */
int trace_instance_create(struct trace_instance *ti, pid_t pid, unsigned buffer_kb, struct pm_err *err);
/* Stop recording into the buffers (they stay readable). */
void trace_instance_stop(struct trace_instance *ti);
/* Remove the instance, unmount tracefs if we mounted it. */
void trace_instance_remove(struct trace_instance *ti);

#endif
