#ifndef PM_TIMEUTIL_H
#define PM_TIMEUTIL_H
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: every interval pressmark measures uses it. */
uint64_t pm_now_ns(void);
/* CLOCK_REALTIME in ns: only for stamping when a run happened. */
int64_t pm_wall_ns(void);
struct timespec pm_ns_to_timespec(uint64_t ns);

#endif
