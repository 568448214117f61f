#ifndef PM_PROBE_H
#define PM_PROBE_H
/* What this machine offers, read without changing anything: the VM
 * environment stored with every run (so a comparison can list what differed
 * between labels) and the memory-controller hierarchies, for the run's cap
 * and for doctor. */
#include <stdint.h>
#include "lib/kv.h"

/* All vm.* sysctls, THP, zswap, swap devices and the cgroup memory
 * controllers, as key/value pairs (sysctl.vm.swappiness = 60). */
int env_collect(struct kv_list *out);

/* Which memory-controller hierarchies exist: where v1's memory is mounted
 * and whether v2 has the memory controller. Paths empty when absent. */
struct cgroup_support {
    char v1_memory[512];      /* mount point of the v1 memory controller */
    char v2_root[512];        /* a v2 mount with "memory" in cgroup.controllers */
    char v2_mount[512];       /* any v2 mount, memory or not */
};
void cgroup_detect(struct cgroup_support *cs);

#endif
