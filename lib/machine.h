#ifndef PM_LIB_MACHINE_H
#define PM_LIB_MACHINE_H
/* Who ran it and on what: the machine and kernel identity, stored once per
 * distinct machine so that merged databases keep each run's machine. */
#include <stdint.h>
#include "lib/err.h"

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

int pm_machine_read(struct machine_info *m, struct pm_err *err);

#endif
