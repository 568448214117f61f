#ifndef PM_CGROUP_H
#define PM_CGROUP_H
/* The workload's memory cgroup: created fresh for each run (so its counters
 * start at zero), limited, and removed at the end. Version 2 uses
 * memory.max / memory.swap.max / memory.high; version 1 uses
 * memory.limit_in_bytes and memory.memsw.limit_in_bytes (memory + swap). */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/err.h"
#include "lib/kv.h"

struct cgroup_cap {
    int version;                 /* 1 or 2 */
    char top[PATH_MAX];          /* the run's cgroup: the cap */
    char dir[PATH_MAX];          /* the workload's: top, or top/workload when nested */
    char procs[PATH_MAX];        /* where a pid is written to enter it */
    char sib_dir[PATH_MAX];      /* the sibling hog's, top/sibling; "" when none */
    char sib_procs[PATH_MAX];
};

struct cgroup_limits {
    uint64_t mem;                /* the cap; 0: no limit, the cgroup only tracks the run's processes */
    bool has_swap;
    uint64_t swap;               /* swap allowed on top of the cap */
    bool has_high;
    uint64_t high;               /* v2 memory.high: throttle point below the cap */
    bool has_low, has_min;       /* v2 memory.low, memory.min: the workload's protection */
    uint64_t low, min;
    bool has_zswap_max;
    uint64_t zswap_max;          /* v2 memory.zswap.max; UINT64_MAX: "max" */
    unsigned zswap_writeback;    /* v2 memory.zswap.writeback: 0 as it is, 1 on, 2 off */
    bool sibling;                /* a sibling cgroup for a hog beside the workload */
};

/* Create <hierarchy>/pressmark/run-<id> and set its limits. Protection
 * (memory.low, memory.min) only guards a cgroup against reclaim that its
 * ancestors' limits cause, never against its own limit: so with protection
 * or a sibling the cap stays on run-<id> and the workload runs in the child
 * run-<id>/workload (memory.low, .min and .high there), the hog in
 * run-<id>/sibling. version is 1
 * or 2; root is that hierarchy's mount point. Journalled; meta records
 * what was set. */
int cgroup_cap_create(struct cgroup_cap *cg, int version, const char *root, int64_t run_id,
                      const struct cgroup_limits *lim, struct kv_list *meta, struct pm_err *err);

/* The load generator's cgroup, <root>/pressmark/run-<id>-client: a sibling
 * of the run's, outside its cap and with no limit of its own, so that a
 * client (redis-benchmark) is measured apart from the server it loads.
 * Journalled; its path into dir, its cgroup.procs into procs. */
int cgroup_client_create(const char *root, int64_t run_id, char *dir, size_t dlen, char *procs,
                         size_t plen, struct pm_err *err);

#endif
