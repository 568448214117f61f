#ifndef PM_VMKNOBS_H
#define PM_VMKNOBS_H
/* VM settings for a run: vm.* sysctls, transparent hugepages and zswap,
 * each applied before the run and its previous value written back after. */
#include <stddef.h>
#include "lib/err.h"
#include "lib/kv.h"

#define PM_MAX_KNOBS 32

struct vm_knob {
    char name[128];              /* as the user wrote it: vm.swappiness, thp, zswap */
    char path[256];
    char value[128];
};

struct vm_knobs {
    struct vm_knob v[PM_MAX_KNOBS];
    size_t n;
};

/* "vm.NAME=VALUE": NAME must be a file of /proc/sys/vm. */
int vm_knob_parse_sysctl(struct vm_knobs *k, const char *text, struct pm_err *err);
/* always|madvise|never */
int vm_knob_parse_thp(struct vm_knobs *k, const char *text, struct pm_err *err);
/* on|off */
int vm_knob_parse_zswap(struct vm_knobs *k, const char *text, struct pm_err *err);

/* Apply each (journalled), recording "set.NAME" = "new (was old)". */
int vm_knobs_apply(const struct vm_knobs *k, struct kv_list *meta, struct pm_err *err);

#endif
