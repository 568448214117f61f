#ifndef PM_KCONFIG_H
#define PM_KCONFIG_H
/* A kernel's configuration, the part of it that decides how memory
 * pressure behaves: which reclaim (CONFIG_LRU_GEN), which swap backends
 * (zswap, zram), memory cgroups, THP, compaction, PSI, preemption and HZ.
 * A kernel-comparison report lists where the kernels under test differ. */
#include <stdbool.h>
#include "lib/kv.h"

/* The memory-management options of a .config text into out, each as
 * "kconfig.CONFIG_X" -> its value ("y", "m", "64", or "n" for "# CONFIG_X
 * is not set"). Returns how many were found. */
int kconfig_mm(const char *text, struct kv_list *out);
/* The same from a file: a .config, /boot/config-RELEASE, or a gzipped one
 * (/proc/config.gz). -1 with errno when it cannot be read. */
int kconfig_mm_file(const char *path, struct kv_list *out);

#endif
