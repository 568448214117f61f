#ifndef PM_EXPERIMENT_LAVA_PUBLISH_H
#define PM_EXPERIMENT_LAVA_PUBLISH_H
/* A LAVA job's images into the lab's artifact store, named by digest. */
#include <stddef.h>
#include "kernels/image.h"
#include "lib/err.h"

struct lava_published {
    char kernel_url[1024], initrd_url[1024], rootfs_url[1024];   /* initrd_url "": none */
    char kernel_sha[65], initrd_sha[65], rootfs_sha[65];
};

/* The sha256 of a file, as 64 hex digits. */
int lava_sha256(const char *path, char hex[65], struct pm_err *err);
/* The image's kernel, initramfs and root (qcow2) into store. */
int lava_publish_image(const char *store, const struct vm_image *img, struct lava_published *out,
                       struct pm_err *err);
/* One file into store as DIGEST-name; its URL and digest. */
int lava_publish_file(const char *store, const char *path, const char *name, char *url, size_t ulen, char sha[65],
                      struct pm_err *err);

#endif
