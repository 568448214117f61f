#ifndef PM_VMKNOBS_H
#define PM_VMKNOBS_H
/* VM settings for a run: vm.* sysctls, transparent hugepages, zswap and
 * the multi-gen LRU, each applied before the run and its previous value
 * written back after. */
#include <stdbool.h>
#include <stddef.h>
#include "lib/err.h"
#include "lib/kv.h"

#define PM_MAX_KNOBS 32

struct vm_knob {
    char name[128];              /* its set.NAME: vm.swappiness, thp, zswap, lru_gen.enabled */
    char path[256];
    char value[128];             /* as written to path */
    char option[24];             /* the option that set it, for messages: sysctl, lru-gen */
    char given[128];             /* the option's value as the user wrote it */
    const char *needs;           /* what a kernel without path lacks: "a kernel built with CONFIG_LRU_GEN" */
};

struct vm_knobs {
    struct vm_knob v[PM_MAX_KNOBS];
    size_t n;
};

/* Each parser checks that the running kernel has the knob's file unless
 * check_kernel is false (a suite cell of another kernel: vmknobs_apply
 * judges it there, when the run's environment comes up). */
/* "vm.NAME=VALUE": NAME must be a file of /proc/sys/vm. */
int vmknobs_parse_sysctl(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err);
/* always|madvise|never */
int vmknobs_parse_thp(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err);
/* on|off */
int vmknobs_parse_zswap(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err);
/* on|off|0xFLAGS: /sys/kernel/mm/lru_gen/enabled (y, n or the mask). */
int vmknobs_parse_lru_gen(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err);
/* MS: /sys/kernel/mm/lru_gen/min_ttl_ms. */
int vmknobs_parse_lru_gen_min_ttl(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err);

/* Apply each (journalled), recording "set.NAME" = "new (was old)", new as
 * the kernel reads it back. A knob this kernel lacks fails with the
 * parser's reason, "--lru-gen: 'on': this kernel has no ...". */
int vmknobs_apply(const struct vm_knobs *k, struct kv_list *meta, struct pm_err *err);

#endif
