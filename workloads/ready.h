#ifndef PM_READY_H
#define PM_READY_H
/* A helper that says it is ready (stutter's hog, the cold shmem holder):
 * one line on its report pipe once its memory is written. */
#include <sys/types.h>
#include "workloads/workload.h"

/* Wait for the line word on fd from the helper pid. 0 it came; 1 the
 * helper ended first, said something else, or the run was interrupted. */
int wl_wait_ready(struct run_ctx *rc, int fd, pid_t pid, const char *word);

#endif
