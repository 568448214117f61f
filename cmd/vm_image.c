/* pressmark __vm-image KERNEL: the VM image a suite's kernel axis would
 * boot for KERNEL (kernels/image.h), made when it is not cached, without
 * booting it; its directory (vmlinuz, initrd.img, root.img, info) on
 * standard output, the build's steps on standard error. For the tree's
 * own tools that boot more than a suite (tools/v2-host-check.sh: a
 * Debian host on cgroup v2 made from this image), so they take the
 * kernel, its modules and initramfs as pressmark installs them rather
 * than making them a second way. Under the run lock, journalled: a
 * killed build is removed by the next pressmark. */
#include <stdio.h>
#include <string.h>
#include "cmd/cli.h"
#include "kernels/image.h"
#include "kernels/spec.h"
#include "lib/quote.h"
#include "pressure/undo.h"

int cli_vm_image_main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "pressmark __vm-image: takes one kernel (accepted: a linux-image package name, a package "
                "file, or BZIMAGE@MODULES, as a suite's kernel key)\n");
        return 2;
    }
    struct kernel_spec k;
    struct pm_err err;
    int parsed = kernel_spec_parse(argv[1], &k, &err);
    if (parsed < 0 || k.kind == KERNEL_RUNNING) {
        if (parsed == 0)
            snprintf(err.msg, sizeof err.msg, "kernel = running: it has no VM image (accepted: a linux-image package "
                     "name, a package file, or BZIMAGE@MODULES)");
        /* The value is the caller's: escapes in it stay escaped. */
        char q[4 * sizeof err.msg];
        quote_terminal(err.msg, q, sizeof q);
        fprintf(stderr, "pressmark __vm-image: %s\n", q);
        return 2;
    }
    /* What a killed pressmark left goes first, a killed image build's too. */
    undo_recover(stderr);
    if (undo_lock("pressmark __vm-image", &err) < 0) {
        fprintf(stderr, "pressmark __vm-image: %s\n", err.msg);
        return 2;
    }
    struct vm_image img;
    int rc = image_prepare(&k, NULL, &img, stderr, &err);
    if (rc == 0)
        printf("%s\n", img.dir);
    else
        fprintf(stderr, "pressmark __vm-image: %s\n", err.msg);
    image_free(&img);
    char said[1024];
    undo_all(said, sizeof said);
    undo_unlock();
    return rc == 0 ? 0 : 2;
}
