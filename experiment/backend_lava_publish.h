#ifndef PM_EXPERIMENT_BACKEND_LAVA_PUBLISH_H
#define PM_EXPERIMENT_BACKEND_LAVA_PUBLISH_H
/* A LAVA job's images into the lab's artifact store, named by digest.
 * With put false nothing is sent: the URLs and digests a job made now
 * names, to hold a stored job's definition to. */
#include <stdbool.h>
#include <stddef.h>
#include "kernels/image.h"
#include "lib/err.h"

struct lava_published {
    char kernel_url[1024], initrd_url[1024], rootfs_url[1024];   /* initrd_url "": none */
    char kernel_sha[65], initrd_sha[65], rootfs_sha[65];
};

/* The image's kernel, initramfs and root (qcow2) into store (when put). */
int exp_lava_publish_image(const char *store, const struct vm_image *img, bool put, struct lava_published *out,
                       struct pm_err *err);
/* One file into store as DIGEST-name (when put); its URL and digest. */
int exp_lava_publish_file(const char *store, const char *path, const char *name, bool put, char *url, size_t ulen,
                      char sha[65], struct pm_err *err);

#endif
