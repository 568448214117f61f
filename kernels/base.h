#ifndef PM_KERNEL_BASE_H
#define PM_KERNEL_BASE_H
/* The guest's root file system every kernel's image starts from: a Debian
 * minbase (this host's release, from the mirror its apt uses) with
 * pressmark's runtime libraries, the tools a kernel package installs with,
 * and a fixed init (no suite's string is ever put in it). Made once with
 * debootstrap and cached under a name from all of that, so a change of
 * any of it makes a new one (and drops the images of the old). */
#include <stddef.h>
#include <stdio.h>
#include "lib/err.h"

/* The base's directory in cache, made when missing (say: one line).
 * apps: more Debian packages for the workloads a guest runs (redis-server,
 * memcached), comma-separated, or NULL or "": those make a base of their
 * own beside the plain one. A list that is not package names is refused. */
#define GUEST_APPS_MAX 512
int base_image(const char *cache, const char *apps, char *base, size_t len, FILE *say, struct pm_err *err);

#endif
