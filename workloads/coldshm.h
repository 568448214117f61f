#ifndef PM_COLDSHM_H
#define PM_COLDSHM_H
/* --cold-shmem: memory filled once inside the run's cap and never touched
 * again, beside the measured work, as the zswap series ran its kernel
 * builds beside a populated tmpfs file: reclaim must find it cold and
 * push it to zswap or swap while the build runs. Shared memory (a memfd)
 * so that it is shmem in memory.stat, and it is freed when its holder ends:
 * nothing is left on a file system when pressmark is killed. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/err.h"
#include "workloads/workload.h"

struct coldshm {
    pid_t pid;          /* the holder, 0: none */
    int report;         /* its descriptor 4, read here */
};

/* Start the holder of bytes inside the cap and wait until every page of it
 * is written; *fill_s is how long that took. 0 filled; 1 it did not (the
 * run's status says why: the holder died, the run was interrupted); -1
 * harness errors. */
int coldshm_start(struct run_ctx *rc, uint64_t bytes, struct coldshm *c, double *fill_s, struct pm_err *err);
/* End the holder (its memory goes with it). True when it had ended
 * already: its memory was not there for the whole of the work (an OOM
 * kill in the cap), and the run is not what it says. */
bool coldshm_stop(struct run_ctx *rc, struct coldshm *c);

/* The holder, for a workload's helper table under COLDSHM_HELPER. */
#define COLDSHM_HELPER "__cold-shmem"
int coldshm_main(int argc, char **argv);

#endif
