#ifndef PM_KERNELS_CANDIDATES_H
#define PM_KERNELS_CANDIDATES_H
/* The Debian kernel packages a bisection goes through: those apt knows
 * of one flavour (cloud-amd64, rt-amd64, amd64) whose versions lie
 * between two kernels', in dpkg's version order. */
#include <stdbool.h>
#include <stddef.h>
#include "lib/err.h"

struct kernel_package {
    char name[128];             /* linux-image-RELEASE */
    char version[192];
};

/* The flavour of a kernel package's release (linux-image-6.1.0-47-cloud-
 * amd64: cloud-amd64; linux-image-6.12.117+deb12-amd64: amd64), "" when
 * it has none. */
void kernel_flavour(const char *package, char *buf, size_t len);
/* Is name a kernel package of flavour, in the form apt's names are kept
 * in (Debian's characters, shorter than 128)? What a stored candidate is
 * held to as well: a name from apt or from a database is data. */
bool kernel_package_name_ok(const char *name, const char *flavour);
/* Every package of flavour whose version lies strictly between from and
 * to (dpkg's order), sorted; *v allocated (free it). -1 with err when apt
 * cannot be asked. */
int kernel_packages_between(const char *flavour, const char *from, const char *to, struct kernel_package **v,
                            size_t *n, struct pm_err *err);

#endif
