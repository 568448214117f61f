/* Finding a kernel a suite names before anything is built or booted:
 * a package in apt's lists (a metapackage followed to its kernel), a
 * package file, a bzImage and its modules, the running kernel. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/find.h"
#include "lib/fileio.h"
#include "lib/spawn.h"

/* The value of "Field: value" in control-file text (apt-cache show, dpkg-deb -f). */
static void control_field(const char *text, const char *field, char *out, size_t len)
{
    size_t fl = strlen(field);
    out[0] = '\0';
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        if (n > fl + 1 && strncmp(l, field, fl) == 0 && l[fl] == ':') {
            const char *v = l + fl + 1;
            while (*v == ' ')
                v++;
            snprintf(out, len, "%.*s", (int)(l + n - v), v);
            return;
        }
        l += n + (l[n] ? 1 : 0);
    }
}

/* A real kernel package's name carries its release after the prefix,
 * starting with a digit; a metapackage's (linux-image-cloud-amd64) does not. */
static bool release_of_package(const char *name, char *rel, size_t len)
{
    if (strncmp(name, "linux-image-", 12) != 0 || !(name[12] >= '0' && name[12] <= '9'))
        return false;
    snprintf(rel, len, "%s", name + 12);
    size_t n = strlen(rel);
    if (n > 9 && strcmp(rel + n - 9, "-unsigned") == 0)
        rel[n - 9] = '\0';
    return true;
}

/* The first linux-image-* in a Depends field. */
static bool depends_kernel(const char *deps, char *out, size_t len)
{
    const char *d = strstr(deps, "linux-image-");
    if (!d)
        return false;
    snprintf(out, len, "%.*s", (int)strcspn(d, " ,(|"), d);
    return true;
}

static int apt_show(const char *name, char *text, size_t len, struct pm_err *err)
{
    char *argv[] = { "apt-cache", "show", "--no-all-versions", (char *)name, NULL };
    struct pm_spawn sp = { .argv = argv, .err = PM_FD_NULL, .missing_hint = "(Debian's apt is needed for packages)" };
    struct pm_err e;
    if (pm_spawn_capture(&sp, text, len, &e) < 0 || !text[0])
        return pm_errf(err, "kernel = %s: no such package in this machine's apt sources (accepted: a package "
                       "'apt-cache search ^linux-image' lists, after 'apt-get update')", name);
    return 0;
}

int kernel_cache_dir(char *buf, size_t len, struct pm_err *err)
{
    const char *env = getenv("PRESSMARK_CACHE");
    if (env && *env)
        snprintf(buf, len, "%s/vm", env);
    else
        snprintf(buf, len, "/var/cache/pressmark/vm");
    return pm_private_dir(buf, len, err);
}

int kernel_find(const struct kernel_spec *k, struct kernel_info *ki, struct pm_err *err)
{
    memset(ki, 0, sizeof *ki);
    switch (k->kind) {
    case KERNEL_RUNNING:
        return kernel_running_info(ki, err);
    case KERNEL_BZIMAGE: {
        if (kernel_bzimage_info(k->path, ki, err) < 0)
            return -1;
        if (k->modules[0]) {
            /* modules_install's tree: lib/modules/RELEASE/kernel/... */
            char dep[PATH_MAX + 200], dep2[PATH_MAX + 200];
            snprintf(dep, sizeof dep, "%s/lib/modules/%s/kernel", k->modules, ki->release);
            snprintf(dep2, sizeof dep2, "%s/kernel", k->modules);
            if (!pm_path_exists(dep) && !pm_path_exists(dep2))
                return pm_errf(err, "kernel = %s: %s holds no modules of %s (accepted: the INSTALL_MOD_PATH of 'make "
                               "modules_install', or its lib/modules/%s)", k->value, k->modules, ki->release,
                               ki->release);
        }
        return 0;
    }
    case KERNEL_DEB: {
        char text[4096];
        char *argv[] = { "dpkg-deb", "-f", (char *)k->path, "Package", "Version", NULL };
        struct pm_spawn sp = { .argv = argv, .err = PM_FD_NULL };
        struct pm_err e;
        if (pm_spawn_capture(&sp, text, sizeof text, &e) < 0)
            return pm_errf(err, "kernel = %s: not a Debian package file (dpkg-deb cannot read it; accepted: a "
                           "linux-image-*.deb)", k->value);
        control_field(text, "Package", ki->package, sizeof ki->package);
        control_field(text, "Version", ki->version, sizeof ki->version);
        if (!release_of_package(ki->package, ki->release, sizeof ki->release))
            return pm_errf(err, "kernel = %s: package %s is not a kernel (accepted: a linux-image-RELEASE package "
                           "file)", k->value, ki->package);
        snprintf(ki->deb, sizeof ki->deb, "%s", k->path);
        return 0;
    }
    case KERNEL_PACKAGE: {
        char name[128], text[16384];
        snprintf(name, sizeof name, "%s", k->package);
        /* A metapackage (linux-image-cloud-amd64, linux-image-6.12-cloud-
         * amd64) depends on the kernel it stands for; a kernel does not. */
        for (int depth = 0;; depth++) {
            if (apt_show(name, text, sizeof text, err) < 0)
                return -1;
            char deps[1024], next[128];
            control_field(text, "Depends", deps, sizeof deps);
            if (!depends_kernel(deps, next, sizeof next)) {
                if (!release_of_package(name, ki->release, sizeof ki->release))
                    return pm_errf(err, "kernel = %s: not a kernel package (accepted: linux-image-RELEASE or a "
                                   "metapackage of one)", k->value);
                break;
            }
            if (depth == 3)
                return pm_errf(err, "kernel = %s: a chain of metapackages that names no kernel", k->value);
            snprintf(name, sizeof name, "%s", next);
        }
        snprintf(ki->package, sizeof ki->package, "%s", name);
        control_field(text, "Version", ki->version, sizeof ki->version);
        char arch[32];
        control_field(text, "Architecture", arch, sizeof arch);
        /* apt names a download NAME_VERSION_ARCH.deb, the epoch's ':' as %3a. */
        char ver[200];
        size_t o = 0;
        for (const char *c = ki->version; *c && o + 4 < sizeof ver; c++)
            o += (size_t)(*c == ':' ? snprintf(ver + o, sizeof ver - o, "%%3a")
                                    : snprintf(ver + o, sizeof ver - o, "%c", *c));
        ver[o] = '\0';
        char cache[PATH_MAX];
        if (kernel_cache_dir(cache, sizeof cache, err) < 0)
            return -1;
        snprintf(ki->deb, sizeof ki->deb, "%s/debs/%s_%s_%s.deb", cache, ki->package, ver, arch);
        return 0;
    }
    }
    return pm_errf(err, "kernel = %s: unknown kind", k->value);
}

