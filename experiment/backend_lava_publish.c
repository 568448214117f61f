/* A LAVA job's images, put where the lab's dispatcher downloads them:
 * the kernel, its initramfs and pressmark's guest root (as a compressed
 * qcow2, made once beside the cached image) under names of their digest,
 * so a lab that has one already is not sent it again. */
#include "experiment/backend_lava_publish.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "labs/artifacts.h"
#include "lib/spawn.h"

/* The sha256 of a file, as 64 hex digits. */
static int lava_sha256(const char *path, char hex[65], struct pm_err *err)
{
    char *argv[] = { "sha256sum", "--", (char *)path, NULL };
    char out[PATH_MAX + 128];
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL };
    if (pm_spawn_capture(&sp, out, sizeof out, err) < 0)
        return -1;
    if (strspn(out, "0123456789abcdef") != 64)
        return pm_errf(err, "sha256sum %s: an answer that is not a digest", path);
    memcpy(hex, out, 64);
    hex[64] = '\0';
    return 0;
}

/* root.qcow2 beside the image's root.img: qemu-img's compressed form is
 * a tenth of the ext4 image's used blocks to download, and the device's
 * QEMU reads it as it is. Made once; a half-made one never has the name. */
static int root_qcow2(const struct vm_image *img, char *out, size_t len, struct pm_err *err)
{
    snprintf(out, len, "%s/root.qcow2", img->dir);
    struct stat st;
    if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
        return 0;
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s/root.qcow2.part", img->dir);
    unlink(tmp);
    char *argv[] = { "qemu-img", "convert", "-c", "-f", "raw", "-O", "qcow2", "--", (char *)img->root, tmp, NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = PM_FD_NULL,
                           .missing_hint = "apt-get install qemu-utils" };
    if (pm_spawn_run(&sp, err) < 0) {
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, out) < 0) {
        unlink(tmp);
        return pm_errf(err, "%s: %s", out, strerror(errno));
    }
    return 0;
}

/* One file into the store as DIGEST-NAME, unless it is there already
 * (put false: only its URL and digest, nothing sent). */
static int publish_one(const char *store, const char *path, const char *name, bool put, char *url, size_t ulen,
                       char sha[65], struct pm_err *err)
{
    if (lava_sha256(path, sha, err) < 0)
        return -1;
    snprintf(url, ulen, "%s%spressmark/%s-%s", store, store[strlen(store) - 1] == '/' ? "" : "/", sha, name);
    if (!put)
        return 0;
    int exists = 0;
    if (artifact_exists(url, &exists, err) < 0)
        return -1;
    if (exists || artifact_put(url, path, err) == 0)
        return 0;
    /* Put by another pressmark since (a name is its digest, so it is the
     * same file), or refused: asked once more. */
    struct pm_err again;
    return artifact_exists(url, &exists, &again) == 0 && exists ? 0 : -1;
}

int exp_lava_publish_image(const char *store, const struct vm_image *img, bool put, struct lava_published *out,
                       struct pm_err *err)
{
    memset(out, 0, sizeof *out);
    char root[PATH_MAX + 16];
    if (root_qcow2(img, root, sizeof root, err) < 0)
        return -1;
    if (publish_one(store, img->vmlinuz, "vmlinuz", put, out->kernel_url, sizeof out->kernel_url, out->kernel_sha, err) < 0 ||
        publish_one(store, root, "root.qcow2", put, out->rootfs_url, sizeof out->rootfs_url, out->rootfs_sha, err) < 0)
        return -1;
    if (img->initrd[0] &&
        publish_one(store, img->initrd, "initrd.img", put, out->initrd_url, sizeof out->initrd_url, out->initrd_sha, err) < 0)
        return -1;
    return 0;
}

int exp_lava_publish_file(const char *store, const char *path, const char *name, bool put, char *url, size_t ulen,
                      char sha[65], struct pm_err *err)
{
    return publish_one(store, path, name, put, url, ulen, sha, err);
}
