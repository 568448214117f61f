#ifndef PM_BALLOON_H
#define PM_BALLOON_H
/* The balloon caps memory system-wide, the way the seeds booted with mem=:
 * a helper process allocates, prefaults and mlocks everything above the
 * cap, so the workload (and everything else) has about cap bytes left. */
#include <stdint.h>
#include "lib/err.h"
#include "lib/kv.h"

/* The least the system keeps after inflating: below this the machine
 * itself (sshd, journald, pressmark) starts to fail. */
#define PM_BALLOON_FLOOR (256ull << 20)

/* Inflate until MemAvailable is within 1% of cap. exe is pressmark's
 * binary. Refuses (with err) when cap is below the safety floor. The
 * helper lives while *cmd_fd_out stays open (and dies with pressmark). */
int balloon_inflate(const char *exe, uint64_t cap, int *pid_out, int *cmd_fd_out, struct kv_list *meta,
                    struct pm_err *err);

/* The helper process: pressmark __balloon, commands "+BYTES" and "-BYTES"
 * on stdin, answers on status_fd. */
int balloon_helper_main(int status_fd);

#endif
