#ifndef PM_MACHINE_H
#define PM_MACHINE_H
/* Who ran it and on what: the machine and kernel identity stored once per
 * distinct machine, and the VM environment stored with every run so that a
 * comparison can list what differed between labels. */
#include <stdint.h>
#include "harness/db.h"
#include "harness/kv.h"

struct machine_info {
    char hostname[256];
    char kernel[256];
    char proc_version[1024];
    char cmdline[4096];
    char cpu_model[256];
    int cpus;
    int64_t mem_total_kb;
    long page_size;
};

int machine_read(struct machine_info *m, struct pm_err *err);
/* Insert the machine if it is new; its id either way. */
int64_t machine_store(struct pm_db *db, const struct machine_info *m, struct pm_err *err);

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
