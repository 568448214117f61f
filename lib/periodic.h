#ifndef PM_PERIODIC_H
#define PM_PERIODIC_H
/* A thread that calls a function at absolute deadlines on CLOCK_MONOTONIC,
 * first + k * period, until it is stopped: the sampler's ticks, the
 * heartbeat's beats and the stall tracer's drains. A call that ends past
 * the next deadline skips the deadlines already gone (counted, never
 * taken in a burst), so the grid never drifts. Stopping wakes the thread
 * at once, lets it finish (its last call), and joins it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/err.h"

struct periodic {
    /* At each deadline, now the time it was called: 0 goes on, -1 ends
     * the thread (the caller keeps why). */
    int (*tick)(void *arg, uint64_t deadline, uint64_t now);
    /* Optional, on the thread after its last tick (stopped or ended). */
    void (*last)(void *arg);
    void *arg;
    /* Count the deadlines a call skips by how late it woke, not by when it
     * ended: the heartbeat's (a stall during its own call then shows as the
     * next call's lateness, as vmstat's beats did). The sampler's count by
     * the end: a tick that outlasts its interval skips what it overran. */
    bool skip_by_wake;
    char name[16];                  /* the thread's, for top -H and perf */
    uint64_t next, period;
    atomic_uint_fast64_t missed;    /* deadlines skipped; any thread may read it */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop, running;
};

/* Start the thread: its first deadline is first (CLOCK_MONOTONIC ns), then
 * every period. -1 with err when no thread can be made. */
int periodic_start(struct periodic *p, const char *name, uint64_t first, uint64_t period, struct pm_err *err);
/* Stop it (its last() has run when this returns); a stopped or never
 * started one is left alone. */
void periodic_stop(struct periodic *p);
/* Deadlines skipped so far. */
uint64_t periodic_missed(struct periodic *p);

#endif
