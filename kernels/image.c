#include "kernels/image.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels/base.h"
#include "kernels/build_step.h"
#include "kernels/find.h"
#include "kernels/kconfig.h"
#include "lib/fileio.h"
#include "lib/hash.h"
#include "lib/spawn.h"
#include "pressure/undo.h"

/* The image's root file system: sparse, so only what is written takes
 * space; room for a suite's swap file and its results. */
#define ROOT_IMAGE_SIZE "6G"

static int download_deb(const char *cache, const struct kernel_info *ki, FILE *say, struct pm_err *err)
{
    if (pm_path_exists(ki->deb))
        return 0;
    char debs[PATH_MAX + 8];
    snprintf(debs, sizeof debs, "%s/debs", cache);
    if (pm_mkdirs(debs) < 0)
        return pm_errf(err, "%s: %s", debs, strerror(errno));
    char dir[PATH_MAX];
    int id;
    if (build_dir_make(cache, dir, sizeof dir, &id, err) < 0)
        return -1;
    if (say)
        fprintf(say, "pressmark: downloading %s %s\n", ki->package, ki->version);
    char what[320], log[PATH_MAX + 16];
    snprintf(what, sizeof what, "%s=%s", ki->package, ki->version);
    snprintf(log, sizeof log, "%s/apt.log", dir);
    /* As root apt would hand the download to its _apt user, who cannot
     * write into a private cache. */
    char *argv[] = { "apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", what, NULL };
    int rc = build_step(argv, dir, log, "apt-get download", err);
    if (rc == 0) {
        DIR *d = opendir(dir);
        struct dirent *e;
        char from[PATH_MAX + 300] = "";
        while (d && (e = readdir(d)))
            if (strlen(e->d_name) > 4 && strcmp(e->d_name + strlen(e->d_name) - 4, ".deb") == 0)
                snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        if (d)
            closedir(d);
        if (!from[0])
            rc = pm_errf(err, "apt-get download %s left no package file (log: %s)", what, log);
        else if (rename(from, ki->deb) < 0)
            rc = pm_errf(err, "%s: %s", ki->deb, strerror(errno));
    }
    if (rc < 0)
        build_keep_log(cache, log);
    build_dir_drop(dir, id);
    return rc;
}

/* Read the image's info file: release, version, package, one a line. */
static bool read_info(struct vm_image *img)
{
    char path[PATH_MAX + 8], text[1024];
    snprintf(path, sizeof path, "%s/info", img->dir);
    if (pm_read_file(path, text, sizeof text) < 0)
        return false;
    /* Trailing newlines were stripped: a bzImage's empty package line too. */
    char *l2 = strchr(text, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
    if (!l2)
        return false;
    *l2++ = '\0';
    if (l3)
        *l3++ = '\0';
    else
        l3 = "";
    snprintf(img->info.release, sizeof img->info.release, "%s", text);
    snprintf(img->info.version, sizeof img->info.version, "%s", l2);
    snprintf(img->info.package, sizeof img->info.package, "%s", l3);
    snprintf(img->vmlinuz, sizeof img->vmlinuz, "%s/vmlinuz", img->dir);
    snprintf(img->root, sizeof img->root, "%s/root.img", img->dir);
    snprintf(img->initrd, sizeof img->initrd, "%s/initrd.img", img->dir);
    if (!pm_path_exists(img->initrd))
        img->initrd[0] = '\0';
    snprintf(path, sizeof path, "%s/config", img->dir);
    pm_kv_free(&img->info.config);
    img->info.config_known = kconfig_mm_file(path, &img->info.config) > 0;
    return pm_path_exists(img->vmlinuz) && pm_path_exists(img->root);
}

/* Install the kernel into the overlay mounted at merged. */

/* Is path a built tree's bzImage: .../arch/ARCH/boot/bzImage, with no
 * "." or ".." component to make it mean another place? */
static bool in_built_tree(const char *path)
{
    size_t n = strlen(path);
    for (const char *c = path; *c; c += strcspn(c, "/"), c += *c == '/') {
        size_t len = strcspn(c, "/");
        if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return false;
    }
    const char *tail = "/boot/bzImage";
    if (n < strlen(tail) || strcmp(path + n - strlen(tail), tail) != 0)
        return false;
    const char *arch_end = path + n - strlen(tail);         /* the '/' before boot */
    const char *p = arch_end;
    while (p > path && p[-1] != '/')
        p--;                                                /* the start of ARCH */
    if (p == arch_end)
        return false;                                       /* no ARCH */
    return (p - path == 5 && strncmp(path, "arch/", 5) == 0) || (p - path >= 6 && strncmp(p - 6, "/arch/", 6) == 0);
}

/* A regular file itself, not a link, a directory or nothing. */
static bool is_plain_file(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}
static int install_kernel(const struct kernel_spec *k, const struct kernel_info *ki, const char *merged,
                          const char *log, struct pm_err *err)
{
    char path[PATH_MAX + 300];
    if (k->kind != KERNEL_BZIMAGE) {
        snprintf(path, sizeof path, "%s/tmp/pressmark-kernel.deb", merged);
        if (build_copy_file(ki->deb, path, 0644, err) < 0)
            return -1;
        /* Its own maintainer scripts: depmod, and the initramfs through
         * initramfs-tools' hook, as on a machine that installs it. */
        char *argv[] = { "dpkg", "-i", "/tmp/pressmark-kernel.deb", NULL };
        int rc = build_step_in_root(merged, argv, log, "dpkg -i (in the guest's root, sandboxed)", err);
        /* Removed beneath the root: the package's scripts may have made
         * its /tmp a link to a host directory. */
        int tfd = pm_open_beneath(merged, "tmp");
        if (tfd >= 0) {
            unlinkat(tfd, "pressmark-kernel.deb", 0);
            close(tfd);
        }
        return rc;
    }
    snprintf(path, sizeof path, "%s/boot/vmlinuz-%s", merged, ki->release);
    if (build_copy_file(k->path, path, 0644, err) < 0)
        return -1;
    /* Its configuration: the tree's .config when the bzImage sits in its
     * tree (arch/ARCH/boot/bzImage), or config-RELEASE beside it (a /boot).
     * Three levels above any other path is not the kernel's (a bzImage in
     * /tmp/k/boot would take /tmp/.config, anybody's); a link or a
     * directory is not a configuration either. */
    char cfg[PATH_MAX + 32], cfg2[PATH_MAX + 200];
    const char *sl = strrchr(k->path, '/');
    if (sl) {
        snprintf(cfg, sizeof cfg, "%.*s/../../../.config", (int)(sl - k->path), k->path);
        snprintf(cfg2, sizeof cfg2, "%.*s/config-%s", (int)(sl - k->path), k->path, ki->release);
        snprintf(path, sizeof path, "%s/boot/config-%s", merged, ki->release);
        const char *from = in_built_tree(k->path) && is_plain_file(cfg) ? cfg : is_plain_file(cfg2) ? cfg2 : NULL;
        struct stat kst;
        if (from && stat(k->path, &kst) < 0)
            return pm_errf(err, "%s: %s", k->path, strerror(errno));
        if (from && build_copy_config(from, path, kst.st_uid, err) < 0)
            return -1;
    }
    if (!k->modules[0])
        return 0;
    char src[PATH_MAX + 200];
    snprintf(src, sizeof src, "%s/lib/modules/%s", k->modules, ki->release);
    if (!pm_path_exists(src))
        snprintf(src, sizeof src, "%s", k->modules);
    snprintf(path, sizeof path, "%s/lib/modules", merged);
    if (pm_mkdirs(path) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/lib/modules/%s", merged, ki->release);
    char *cp[] = { "cp", "-a", "--no-dereference", src, path, NULL };
    char *dm[] = { "depmod", (char *)ki->release, NULL };
    char *ir[] = { "update-initramfs", "-c", "-k", (char *)ki->release, NULL };
    if (build_step(cp, NULL, log, "copying the modules", err) < 0 ||
        build_step_in_root(merged, dm, log, "depmod", err) < 0 ||
        build_step_in_root(merged, ir, log, "update-initramfs", err) < 0)
        return -1;
    return 0;
}

static int build_kernel_image(const struct kernel_spec *k, const struct kernel_info *ki, const char *cache,
                              const char *base, const char *final, FILE *say, struct pm_err *err)
{
    char dir[PATH_MAX];
    int id;
    if (build_dir_make(cache, dir, sizeof dir, &id, err) < 0)
        return -1;
    if (say)
        fprintf(say, "pressmark: installing kernel %s into the guest's image (once)\n", ki->release);
    char upper[PATH_MAX + 16], work[PATH_MAX + 16], merged[PATH_MAX + 16], log[PATH_MAX + 16];
    snprintf(upper, sizeof upper, "%s/upper", dir);
    snprintf(work, sizeof work, "%s/work", dir);
    snprintf(merged, sizeof merged, "%s/merged", dir);
    snprintf(log, sizeof log, "%s/install.log", dir);
    int rc = 0, mid = -1;
    char opts[3 * PATH_MAX + 64];
    if (mkdir(upper, 0755) < 0 || mkdir(work, 0700) < 0 || mkdir(merged, 0755) < 0)
        rc = pm_errf(err, "%s: %s", dir, strerror(errno));
    /* overlayfs separates its options with ',' and lower dirs with ':'. */
    else if (strpbrk(base, ",:") || strpbrk(dir, ",:"))
        rc = pm_errf(err, "the VM image cache %s has a ',' or ':' in its path, which overlayfs cannot take (accepted: "
                     "PRESSMARK_CACHE without them)", cache);
    if (rc == 0) {
        snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s", base, upper, work);
        if ((mid = undo_push(UNDO_MOUNT, merged, "", err)) < 0)
            rc = -1;
        else if (mount("overlay", merged, "overlay", 0, opts) < 0)
            rc = pm_errf(err, "mounting an overlay of %s: %s", base, strerror(errno));
    }
    if (rc == 0)
        rc = install_kernel(k, ki, merged, log, err);
    /* The boot files from the guest's root, which a package's scripts
     * wrote: looked up without following any link. */
    char from[PATH_MAX + 200], to[PATH_MAX + 32];
    static const char *const boot_files[][3] = { { "vmlinuz", "vmlinuz", "" }, { "initrd.img", "initrd.img", "?" },
                                                 { "config", "config", "?" } };
    for (size_t i = 0; rc == 0 && i < sizeof boot_files / sizeof boot_files[0]; i++) {
        snprintf(from, sizeof from, "boot/%s-%s", boot_files[i][0], ki->release);
        snprintf(to, sizeof to, "%s/%s", dir, boot_files[i][1]);
        char full[PATH_MAX + 400];
        snprintf(full, sizeof full, "%s/%s", merged, from);
        struct stat lst;
        /* An optional file that is not there at all is no error. */
        if (boot_files[i][2][0] && lstat(full, &lst) < 0 && errno == ENOENT)
            continue;
        rc = build_copy_from_root(merged, from, to, 0644, err);
    }
    if (rc == 0) {
        snprintf(to, sizeof to, "%s/root.img", dir);
        char *argv[] = { "mkfs.ext4", "-q", "-F", "-L", "pressmark", "-d", merged, to, ROOT_IMAGE_SIZE, NULL };
        rc = build_step(argv, NULL, log, "mkfs.ext4", err);
    }
    if (mid >= 0) {
        if (umount2(merged, MNT_DETACH) < 0 && errno != EINVAL && rc == 0)
            rc = pm_errf(err, "unmounting %s: %s", merged, strerror(errno));
        undo_done(mid);
    }
    if (rc == 0) {
        char info[512];
        snprintf(info, sizeof info, "%s\n%s\n%s\n", ki->release, ki->version, ki->package);
        snprintf(to, sizeof to, "%s/info", dir);
        rc = build_write_text(to, info, 0644, err);
    }
    if (rc == 0) {
        pm_remove_all(upper);
        pm_remove_all(work);
        rmdir(merged);
        pm_remove_all(final);
        if (rename(dir, final) < 0)
            rc = pm_errf(err, "%s: %s", final, strerror(errno));
        else
            undo_done(id);
    }
    if (rc < 0) {
        build_keep_log(cache, log);
        build_dir_drop(dir, id);
    }
    return rc;
}

/* At most this many kernel images stay cached: a kernel developer's every
 * build is a new bzImage and so a new image of a few hundred MB. */
#define KEEP_IMAGES 8

static int by_time_desc(const void *a, const void *b)
{
    const struct cached { char name[300]; struct timespec t; } *x = a, *y = b;
    if (x->t.tv_sec != y->t.tv_sec)
        return x->t.tv_sec < y->t.tv_sec ? 1 : -1;
    return x->t.tv_nsec < y->t.tv_nsec ? 1 : x->t.tv_nsec > y->t.tv_nsec ? -1 : 0;
}

/* Mark img used now, and drop the least recently used images beyond
 * KEEP_IMAGES (never img itself). */
static void keep_recent(const char *cache, const struct vm_image *img)
{
    char info[PATH_MAX + 8];
    snprintf(info, sizeof info, "%s/info", img->dir);
    utimensat(AT_FDCWD, info, NULL, 0);
    struct cached { char name[300]; struct timespec t; } *v = NULL;
    size_t n = 0;
    DIR *d = opendir(cache);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "kernel-", 7) != 0)
            continue;
        struct stat st;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s/info", cache, e->d_name);
        if (stat(path, &st) < 0)
            continue;
        struct cached *nv = realloc(v, (n + 1) * sizeof *v);
        if (!nv)
            break;
        v = nv;
        snprintf(v[n].name, sizeof v[n].name, "%s", e->d_name);
        v[n++].t = st.st_mtim;
    }
    if (d)
        closedir(d);
    if (n > KEEP_IMAGES) {
        qsort(v, n, sizeof *v, by_time_desc);
        const char *mine = strrchr(img->dir, '/') + 1;
        for (size_t i = KEEP_IMAGES; i < n; i++) {
            if (strcmp(v[i].name, mine) == 0)
                continue;
            char path[PATH_MAX + 300];
            snprintf(path, sizeof path, "%s/%s", cache, v[i].name);
            pm_remove_all(path);
        }
    }
    free(v);
}

int image_prepare(const struct kernel_spec *k, const char *apps, struct vm_image *img, FILE *say, struct pm_err *err)
{
    memset(img, 0, sizeof *img);
    if (k->kind == KERNEL_RUNNING)
        return pm_errf(err, "kernel = running: the running kernel runs on this machine, not in a VM");
    if (kernel_find(k, &img->info, err) < 0)
        return -1;
    char cache[PATH_MAX], base[PATH_MAX];
    if (kernel_cache_dir(cache, sizeof cache, err) < 0 || base_image(cache, apps, base, sizeof base, say, err) < 0)
        return -1;
    if (k->kind == KERNEL_PACKAGE && download_deb(cache, &img->info, say, err) < 0)
        return -1;
    /* The image is the base's and this kernel's: either changing makes another. */
    uint64_t h = pm_fnv1a(PM_FNV1A_INIT, base, strlen(base) + 1);
    struct stat st;
    if (k->kind == KERNEL_BZIMAGE) {
        h = pm_fnv1a(h, img->info.build_id, strlen(img->info.build_id) + 1);
        h = pm_fnv1a(h, k->modules, strlen(k->modules) + 1);
        if (k->modules[0] && stat(k->modules, &st) == 0)
            h = pm_fnv1a(h, &st.st_mtim, sizeof st.st_mtim);
    } else {
        const char *b = strrchr(img->info.deb, '/');
        b = b ? b + 1 : img->info.deb;
        h = pm_fnv1a(h, b, strlen(b) + 1);
        if (stat(img->info.deb, &st) == 0)
            h = pm_fnv1a(h, &st.st_size, sizeof st.st_size);
    }
    snprintf(img->dir, sizeof img->dir, "%s/kernel-%s-%016llx", cache, img->info.release, (unsigned long long)h);
    struct kernel_info keep = img->info;
    if (!read_info(img)) {
        if (build_kernel_image(k, &keep, cache, base, img->dir, say, err) < 0)
            return -1;
        if (!read_info(img))
            return pm_errf(err, "%s: the image just built is incomplete", img->dir);
    }
    snprintf(img->info.build_id, sizeof img->info.build_id, "%s", keep.build_id);
    keep_recent(cache, img);
    return 0;
}

void image_free(struct vm_image *img)
{
    kernel_info_free(&img->info);
}
