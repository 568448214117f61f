#ifndef PM_LINUX_SOURCE_H
#define PM_LINUX_SOURCE_H
/* A real kernel for build --linux: Debian's linux-source-SERIES package
 * (/usr/src/linux-source-SERIES.tar.xz), unpacked once into pressmark's
 * cache and configured once per config target in a build directory of its
 * own (make O=), so the unpacked source is never written by a build and
 * one unpacking serves every configuration. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "lib/err.h"
#include "workloads/plainmake.h"

/* Where the package puts its tarball; PRESSMARK_LINUX_SOURCE names another
 * directory (a mirror's, the tests'). */
#define LINUX_SOURCE_DIR "/usr/src"

/* Is series ("6.1", "6.12") a series name, and is its package installed?
 * -1 with err naming --linux, the value, and the apt-get line. */
int linux_source_check(const char *series, struct pm_err *err);

/* Is kconfig a config target this accepts (tinyconfig, allnoconfig,
 * defconfig)? -1 with err naming --kconfig and the accepted ones. */
int linux_source_check_kconfig(const char *kconfig, struct pm_err *err);

/* The build directory of series configured by `make KCONFIG`, unpacking
 * and configuring what the cache lacks (progress lines on stderr). objdir
 * receives its path, version the tree's own ("6.1.192", from its Makefile).
 * stop is asked between the tarball's members and while make configures.
 * -1 with err. */
int linux_source_ensure(const char *series, const char *kconfig, char *objdir, size_t len, char *version,
                        size_t vlen, const struct wl_stop *stop, FILE *say, struct pm_err *err);

#endif
