#ifndef PM_KERNELS_FIND_H
#define PM_KERNELS_FIND_H
/* Finding a kernel a suite names before anything is built or booted, and
 * the cache its packages and images go to. */
#include <stddef.h>
#include "kernels/spec.h"
#include "lib/err.h"

/* The cache of packages and images: $PRESSMARK_CACHE/vm, else
 * /var/cache/pressmark/vm; made private (0700) and checked as the cache of
 * built trees is. */
int kernel_cache_dir(char *buf, size_t len, struct pm_err *err);
/* Find the kernel without building anything: the package in apt's lists
 * (or cached), the package file, the bzImage. What a suite checks before
 * anything boots; fills ki->package/version/release where it can. */
int kernel_find(const struct kernel_spec *k, struct kernel_info *ki, struct pm_err *err);

#endif
