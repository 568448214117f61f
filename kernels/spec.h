#ifndef PM_KERNEL_SPEC_H
#define PM_KERNEL_SPEC_H
/* A kernel under test as a suite names it: the kernel booted now
 * ("running"), a Debian kernel package by name (linux-image-6.12.117+deb12-
 * cloud-amd64, or a metapackage such as linux-image-cloud-amd64), a
 * package file (/path/linux-image-....deb), or a built tree's bzImage with
 * its modules (/src/linux/arch/x86/boot/bzImage@/tmp/mods, the
 * INSTALL_MOD_PATH of 'make modules_install'). */
#include <limits.h>
#include <stdbool.h>
#include "lib/err.h"
#include "lib/kv.h"

enum kernel_kind { KERNEL_RUNNING, KERNEL_PACKAGE, KERNEL_DEB, KERNEL_BZIMAGE };

struct kernel_spec {
    enum kernel_kind kind;
    char value[256];            /* as written */
    char package[128];          /* KERNEL_PACKAGE: the name given */
    char path[PATH_MAX];        /* KERNEL_DEB, KERNEL_BZIMAGE: the file */
    char modules[PATH_MAX];     /* KERNEL_BZIMAGE: INSTALL_MOD_PATH or lib/modules/RELEASE; "" none */
};

/* What a kernel is, once found. */
struct kernel_info {
    char release[128];          /* its uname -r */
    char version[192];          /* package version, or the bzImage's build ("#3 SMP PREEMPT_DYNAMIC ...") */
    char package[128];          /* the package that holds it; "" for a bzImage */
    char deb[PATH_MAX];         /* the package file (cached download or given) */
    char build_id[24];          /* a bzImage's content digest */
    struct kv_list config;      /* kconfig.CONFIG_X -> value, the memory-management options */
    bool config_known;
};

/* The value's form only, no file or network touched: what a suite file
 * is checked with when it loads. -1 with err naming what is accepted. */
int kernel_spec_parse(const char *value, struct kernel_spec *k, struct pm_err *err);
/* Is this the kernel booted now? Packages by the release their name
 * carries, bzImages by the release in their header. */
bool kernel_spec_is_running(const struct kernel_spec *k);
/* The running kernel's release, version and configuration. */
int kernel_running_info(struct kernel_info *ki, struct pm_err *err);
/* A bzImage's release and build from its header: -1 with err when the
 * file is not a bzImage. */
int kernel_bzimage_info(const char *path, struct kernel_info *ki, struct pm_err *err);
void kernel_info_free(struct kernel_info *ki);

#endif
