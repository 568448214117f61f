#ifndef PM_KERNEL_IMAGE_H
#define PM_KERNEL_IMAGE_H
/* What a virtual machine boots: a kernel, its initramfs, and a root
 * file system with that kernel's modules. The root is a Debian minbase
 * made once with debootstrap (pressmark's runtime libraries, its guest
 * init) and cached; each kernel is installed into a copy-on-write overlay
 * of it, its own package's scripts building the initramfs, so modules and
 * initramfs match as on a machine that installed it. pressmark itself is
 * not in the image: each boot brings the binary that started it. */
#include <limits.h>
#include <stdio.h>
#include "kernels/spec.h"
#include "lib/err.h"

struct vm_image {
    char dir[PATH_MAX];         /* the cached image of this kernel */
    char vmlinuz[PATH_MAX], initrd[PATH_MAX], root[PATH_MAX];   /* initrd "": boots without */
    struct kernel_info info;
};

/* The image for k, built when not cached (say gets one line per step),
 * on the base with apps (base_image's) when apps names any. -1 with err
 * naming the step that failed and its last output. */
int image_prepare(const struct kernel_spec *k, const char *apps, struct vm_image *img, FILE *say, struct pm_err *err);
void image_free(struct vm_image *img);

#endif
