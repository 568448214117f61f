#ifndef PM_BALLOON_H
#define PM_BALLOON_H
/* The balloon caps memory system-wide, the way the seeds booted with mem=:
 * a helper process allocates, prefaults and mlocks everything above the
 * cap, so the workload (and everything else) has about cap bytes left. */
#include <stdint.h>
#include "harness/err.h"
#include "harness/kv.h"

/* The least the system keeps after inflating: below this the machine
 * itself (sshd, journald, pressmark) starts to fail. */
#define PM_BALLOON_FLOOR (256ull << 20)

/* Inflate so that MemAvailable is about cap. exe is pressmark's binary.
 * Refuses (with err) when cap is below the safety floor. */
int balloon_inflate(const char *exe, uint64_t cap, int *pid_out, struct kv_list *meta, struct pm_err *err);

/* The helper process: pressmark __balloon BYTES STATUS_FD. */
int balloon_helper_main(uint64_t bytes, int status_fd);

#endif
