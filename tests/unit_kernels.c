/* Naming kernels under test: the forms a suite's kernel key takes, the
 * memory-management options of a .config, a bzImage's header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kernels/kconfig.h"
#include "kernels/spec.h"
#include "tests/tap.h"

static const char config[] =
    "#\n# Automatically generated file; DO NOT EDIT.\n#\n"
    "CONFIG_LRU_GEN=y\n"
    "# CONFIG_LRU_GEN_ENABLED is not set\n"
    "CONFIG_ZSWAP=y\n"
    "CONFIG_ZSWAP_COMPRESSOR_DEFAULT=\"lz4\"\n"
    "CONFIG_ZSWAPPY=y\n"                 /* a prefix, not an option of it */
    "CONFIG_NET=y\n"                     /* not memory management */
    "CONFIG_HZ=250\n"
    "CONFIG_MEMCG=y\n"
    "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y\n"
    "CONFIG_lowercase=y\n"               /* not a Kconfig name */
    "# CONFIG_KSM is not set trailing\n";  /* not the form 'is not set' has */

int main(void)
{
    struct kernel_spec k;
    struct pm_err err;
    ok(kernel_spec_parse("running", &k, &err) == 0 && k.kind == KERNEL_RUNNING, "running");
    ok(kernel_spec_parse("linux-image-6.12.117+deb12-cloud-amd64", &k, &err) == 0 && k.kind == KERNEL_PACKAGE &&
           strcmp(k.package, "linux-image-6.12.117+deb12-cloud-amd64") == 0, "a package by name");
    ok(kernel_spec_parse("linux-image-cloud-amd64", &k, &err) == 0 && k.kind == KERNEL_PACKAGE, "a metapackage");
    ok(kernel_spec_parse("/srv/k/linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb", &k, &err) == 0 &&
           k.kind == KERNEL_DEB, "a package file");
    ok(kernel_spec_parse("/src/linux/arch/x86/boot/bzImage@/tmp/mods", &k, &err) == 0 && k.kind == KERNEL_BZIMAGE &&
           strcmp(k.path, "/src/linux/arch/x86/boot/bzImage") == 0 && strcmp(k.modules, "/tmp/mods") == 0,
       "a bzImage with its modules");
    ok(kernel_spec_parse("./bzImage", &k, &err) == 0 && k.kind == KERNEL_BZIMAGE && !k.modules[0],
       "a bzImage without modules");
    ok(kernel_spec_parse("6.12", &k, &err) < 0 && strstr(err.msg, "not a kernel (accepted: running,"),
       "a bare release is refused, naming the forms");
    ok(kernel_spec_parse("linux-image-X", &k, &err) < 0, "an upper-case package name is refused");
    ok(kernel_spec_parse("/a/bzImage@", &k, &err) < 0, "an empty modules path is refused");
    ok(kernel_spec_parse("/a/bz\tImage", &k, &err) < 0, "a control character is refused");

    struct kv_list m = { 0 };
    is_num(kconfig_mm(config, &m), 7, 0, "seven memory-management options found");
    is_str(pm_kv_get(&m, "kconfig.CONFIG_LRU_GEN"), "y", "CONFIG_LRU_GEN=y");
    is_str(pm_kv_get(&m, "kconfig.CONFIG_LRU_GEN_ENABLED"), "n", "'is not set' reads as n");
    is_str(pm_kv_get(&m, "kconfig.CONFIG_ZSWAP_COMPRESSOR_DEFAULT"), "lz4", "a string without its quotes");
    is_str(pm_kv_get(&m, "kconfig.CONFIG_HZ"), "250", "a number");
    ok(!pm_kv_get(&m, "kconfig.CONFIG_ZSWAPPY"), "a name that only starts like an option is not one");
    ok(!pm_kv_get(&m, "kconfig.CONFIG_NET"), "networking is not memory management");
    ok(!pm_kv_get(&m, "kconfig.CONFIG_KSM"), "a malformed 'not set' line is ignored");
    pm_kv_free(&m);

    /* A bzImage's header: the boot flag, HdrS and the version string's
     * offset, as arch/x86/boot/header.S lays them out. */
    char path[] = "/tmp/pressmark-unit-bzimage-XXXXXX";
    int fd = mkstemp(path);
    unsigned char img[0x400] = { 0 };
    img[0x1fe] = 0x55;
    img[0x1ff] = 0xaa;
    memcpy(img + 0x202, "HdrS", 4);
    img[0x20e] = 0x00;                   /* version at 0x200 + 0x100 */
    img[0x20f] = 0x01;
    strcpy((char *)img + 0x300, "6.13.0-rc1 (dev@box) #3 SMP PREEMPT_DYNAMIC Mon Dec  1 00:00:00 UTC 2026");
    ok(fd >= 0 && write(fd, img, sizeof img) == (ssize_t)sizeof img, "a bzImage header written");
    struct kernel_info ki;
    ok(kernel_bzimage_info(path, &ki, &err) == 0, "read as a bzImage");
    is_str(ki.release, "6.13.0-rc1", "its release");
    is_str(ki.version, "#3 SMP PREEMPT_DYNAMIC Mon Dec  1 00:00:00 UTC 2026", "its build");
    ok(strlen(ki.build_id) == 16, "a build id from its contents");
    kernel_info_free(&ki);
    /* The release names a cache directory: a header's '/', ".." or
     * control character is refused, not spliced into a path. */
    static const char *const hostile[] = { "6.1.0-13-cloud-amd64/../../../../tmp/x #1", "6..1 #1", "6.1\x1b[2J #1",
                                           "6.1.0/x #1" };
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        memset(img + 0x300, 0, 0x100);
        strcpy((char *)img + 0x300, hostile[i]);
        ok(pwrite(fd, img, sizeof img, 0) == (ssize_t)sizeof img &&
               kernel_bzimage_info(path, &ki, &err) < 0 && strstr(err.msg, "the release in its header is not one"),
           "hostile release %zu in the header (a path, .., an escape) is refused", i);
    }
    memset(img + 0x300, 0, 0x100);
    strcpy((char *)img + 0x300, "6.12.48+deb12-cloud-amd64 (x@y) #1 SMP");
    ok(pwrite(fd, img, sizeof img, 0) == (ssize_t)sizeof img && kernel_bzimage_info(path, &ki, &err) == 0 &&
           strcmp(ki.release, "6.12.48+deb12-cloud-amd64") == 0, "Debian's releases with + are releases");
    kernel_info_free(&ki);
    img[0x1fe] = 0;
    ok(pwrite(fd, img, sizeof img, 0) == (ssize_t)sizeof img, "the boot flag removed");
    ok(kernel_bzimage_info(path, &ki, &err) < 0 && strstr(err.msg, "not a bzImage"), "then it is not a bzImage");
    close(fd);
    unlink(path);
    return done_testing();
}
