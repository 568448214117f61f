#include "kernels/spec.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "kernels/kconfig.h"
#include "lib/hash.h"
#include "lib/spawn.h"

/* What a kernel release is made of (uname -r: 6.1.0-13-cloud-amd64,
 * 6.12.48+deb12-cloud-amd64, 6.8.0-rc1~bpo). */
#define RELEASE_CHARS "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+~_-"

static const char accepted[] = "accepted: running, a linux-image package name such as linux-image-6.12.117+deb12-"
                               "cloud-amd64, a package file PATH.deb, or a bzImage PATH[@MODULES_DIR]";

static bool package_name(const char *s)
{
    /* Debian's rule for package names, and the kernel's prefix. */
    return strncmp(s, "linux-image-", 12) == 0 && s[12] &&
           strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789.+-") == strlen(s);
}

int kernel_spec_parse(const char *value, struct kernel_spec *k, struct pm_err *err)
{
    memset(k, 0, sizeof *k);
    if (strlen(value) >= sizeof k->value)
        return pm_errf(err, "kernel = %.40s...: longer than %zu characters (%s)", value, sizeof k->value - 1, accepted);
    snprintf(k->value, sizeof k->value, "%s", value);
    if (strcmp(value, "running") == 0) {
        k->kind = KERNEL_RUNNING;
        return 0;
    }
    if (package_name(value)) {
        k->kind = KERNEL_PACKAGE;
        snprintf(k->package, sizeof k->package, "%s", value);
        return 0;
    }
    if (!strchr(value, '/'))
        return pm_errf(err, "kernel = %s: not a kernel (%s)", value, accepted);
    for (const char *c = value; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return pm_errf(err, "kernel = %s: a control character in a path (%s)", value, accepted);
    size_t n = strlen(value);
    if (n > 4 && strcmp(value + n - 4, ".deb") == 0) {
        k->kind = KERNEL_DEB;
        snprintf(k->path, sizeof k->path, "%s", value);
        return 0;
    }
    k->kind = KERNEL_BZIMAGE;
    const char *at = strchr(value, '@');
    snprintf(k->path, sizeof k->path, "%.*s", (int)(at ? (size_t)(at - value) : n), value);
    if (at)
        snprintf(k->modules, sizeof k->modules, "%s", at + 1);
    if (!k->path[0] || (at && !k->modules[0]))
        return pm_errf(err, "kernel = %s: an empty path (%s)", value, accepted);
    return 0;
}

static void running_release(char *buf, size_t len)
{
    struct utsname u;
    snprintf(buf, len, "%s", uname(&u) == 0 ? u.release : "");
}

bool kernel_spec_is_running(const struct kernel_spec *k)
{
    char rel[sizeof((struct utsname *)0)->release];
    running_release(rel, sizeof rel);
    switch (k->kind) {
    case KERNEL_RUNNING:
        return true;
    case KERNEL_PACKAGE: {
        /* linux-image-RELEASE, or its -unsigned twin. */
        char r[160];
        snprintf(r, sizeof r, "%s", k->package + 12);
        size_t n = strlen(r);
        if (n > 9 && strcmp(r + n - 9, "-unsigned") == 0)
            r[n - 9] = '\0';
        return strcmp(r, rel) == 0;
    }
    case KERNEL_DEB:
        return false;
    case KERNEL_BZIMAGE: {
        struct kernel_info ki = { 0 };
        struct pm_err e;
        bool same = kernel_bzimage_info(k->path, &ki, &e) == 0 && strcmp(ki.release, rel) == 0;
        kernel_info_free(&ki);
        return same;
    }
    }
    return false;
}

int kernel_running_info(struct kernel_info *ki, struct pm_err *err)
{
    (void)err;
    memset(ki, 0, sizeof *ki);
    running_release(ki->release, sizeof ki->release);
    /* /proc/version's build part: "#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1". */
    char v[512] = "";
    FILE *f = fopen("/proc/version", "re");
    if (f) {
        if (!fgets(v, sizeof v, f))
            v[0] = '\0';
        fclose(f);
    }
    v[strcspn(v, "\n")] = '\0';
    const char *hash = strchr(v, '#');
    snprintf(ki->version, sizeof ki->version, "%s", hash ? hash : v);
    char path[300];
    snprintf(path, sizeof path, "/boot/config-%s", ki->release);
    ki->config_known = kconfig_mm_file(path, &ki->config) > 0 || kconfig_mm_file("/proc/config.gz", &ki->config) > 0;
    return 0;
}

int kernel_bzimage_info(const char *path, struct kernel_info *ki, struct pm_err *err)
{
    memset(ki, 0, sizeof *ki);
    /* Read as root, and named by a suite or by a build's output: not
     * through a link, and not a FIFO or a device, whose open or read
     * would hang or have effects (O_NONBLOCK: the open itself cannot
     * block; a regular file reads as usual with it). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return pm_errf(err, "kernel = %s: %s (accepted: a bzImage, arch/x86/boot/bzImage of a built tree, itself "
                       "rather than a link to it)", path, errno == ELOOP ? "a symbolic link" : strerror(errno));
    struct stat fst;
    if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode)) {
        close(fd);
        return pm_errf(err, "kernel = %s: not a regular file (accepted: a bzImage, arch/x86/boot/bzImage of a built "
                       "tree)", path);
    }
    /* The x86 boot protocol's header: the boot flag 0xAA55 at 0x1FE,
     * "HdrS" at 0x202, and at 0x20E the offset (from 0x200) of the
     * version string "6.13.0 (user@host) #3 SMP ...". */
    unsigned char h[0x210];
    char ver[256] = "";
    bool ok = pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h && h[0x1fe] == 0x55 && h[0x1ff] == 0xaa &&
              memcmp(h + 0x202, "HdrS", 4) == 0;
    if (ok) {
        off_t at = 0x200 + (off_t)(h[0x20e] | h[0x20f] << 8);
        ssize_t n = pread(fd, ver, sizeof ver - 1, at);
        ok = n > 0;
        if (ok)
            ver[n] = '\0';
    }
    /* A digest of the whole file tells two builds of one release apart. */
    uint64_t d = 0;
    if (ok) {
        struct stat st;
        char buf[8192];
        ssize_t n;
        d = PM_FNV1A_INIT;
        off_t off = 0;
        while ((n = pread(fd, buf, sizeof buf, off)) > 0) {
            d = pm_fnv1a(d, buf, (size_t)n);
            off += n;
        }
        ok = n == 0 && fstat(fd, &st) == 0;
    }
    close(fd);
    size_t rl = strcspn(ver, " ");
    if (!ok || rl == 0 || rl >= sizeof ki->release || strspn(ver, "0123456789") == 0)
        return pm_errf(err, "kernel = %s: not a bzImage (no x86 boot header with a version; accepted: a bzImage, "
                       "arch/x86/boot/bzImage of a built tree)", path);
    /* The release names the image's cache directory and its files: it is
     * the file's data, so only what a release is made of gets there (no
     * '/', no "..", nothing unprintable). */
    const char *dots = strstr(ver, "..");
    if (strspn(ver, RELEASE_CHARS) < rl || (dots && dots < ver + rl))
        return pm_errf(err, "kernel = %s: the release in its header is not one (accepted: digits, letters and "
                       ". + ~ _ -, starting with a digit, no '..')", path);
    snprintf(ki->release, sizeof ki->release, "%.*s", (int)rl, ver);
    const char *hash = strchr(ver, '#');
    snprintf(ki->version, sizeof ki->version, "%s", hash ? hash : ver + rl);
    snprintf(ki->build_id, sizeof ki->build_id, "%016llx", (unsigned long long)d);
    return 0;
}

void kernel_info_free(struct kernel_info *ki)
{
    pm_kv_free(&ki->config);
}
