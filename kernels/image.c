#include "kernels/image.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels/kconfig.h"
#include "lib/fileio.h"
#include "lib/hash.h"
#include "lib/spawn.h"
#include "pressure/undo.h"

/* The guest's packages: what pressmark links against (Debian 12 names),
 * what a kernel package needs to install (kmod, linux-base, the
 * initramfs tools), loopback for the chat (iproute2), and the sanitizer
 * runtimes so that a make check build runs in the guest as well. */
static const char guest_packages[] = "libsqlite3-0,libcurl4,libgsl27,zlib1g,libinih1,libjansson4,kmod,linux-base,"
                                     "initramfs-tools,zstd,e2fsprogs,iproute2,libasan8,libubsan1";

/* Process 1 of every guest. Fixed text (no suite's string is ever put in
 * it): the job comes as a tar archive on the second disk, what came of
 * it leaves as one on the third, then the machine powers off. */
static const char guest_init[] =
    "#!/bin/sh\n"
    "# pressmark's guest init: process 1 of a virtual machine booted for one\n"
    "# kernel of a suite. Job in: a tar archive on /dev/vdb. Results out: a tar\n"
    "# archive on /dev/vdc. Then power off.\n"
    "PATH=/usr/sbin:/usr/bin:/sbin:/bin\n"
    "export PATH\n"
    "mountpoint -q /proc || mount -t proc proc /proc\n"
    "mountpoint -q /sys || mount -t sysfs sysfs /sys\n"
    "mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev\n"
    "mount -o remount,rw /\n"
    "mount -t tmpfs -o mode=0755 tmpfs /run\n"
    "mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm\n"
    "mount -t cgroup2 cgroup2 /sys/fs/cgroup\n"
    "echo pressmark-guest > /proc/sys/kernel/hostname\n"
    "ip link set lo up\n"
    "job=/var/lib/pressmark-job\n"
    "out=/var/lib/pressmark-out\n"
    "rm -rf $job $out && mkdir -p $job $out\n"
    "echo \"pressmark-guest: $(uname -r) up after $(cut -d' ' -f1 /proc/uptime) s\"\n"
    "if tar -xf /dev/vdb -C $job; then\n"
    "    cd $job\n"
    "    (PRESSMARK_DB=$out/results.db ./pressmark suite run $(cat args); echo $? > $out/status) 2>&1 |\n"
    "        tee $out/guest.log\n"
    "else\n"
    "    echo 'pressmark-guest: no job on /dev/vdb' | tee $out/guest.log\n"
    "fi\n"
    "dmesg > $out/dmesg.txt 2>&1\n"
    "tar -cf /dev/vdc -C $out .\n"
    "sync\n"
    "echo 'pressmark-guest: done'\n"
    "echo o > /proc/sysrq-trigger\n"
    "sleep 60\n";

/* The initramfs holds only what finds the root disk: fast to build, and
 * the same for every kernel. */
static const char initramfs_conf[] = "MODULES=list\nCOMPRESS=zstd\n";
static const char initramfs_modules[] = "virtio_pci\nvirtio_blk\next4\n";

/* The image's root file system: sparse, so only what is written takes
 * space; room for a suite's swap file and its results. */
#define ROOT_IMAGE_SIZE "6G"

int image_cache_dir(char *buf, size_t len, struct pm_err *err)
{
    const char *env = getenv("PRESSMARK_CACHE");
    if (env && *env)
        snprintf(buf, len, "%s/vm", env);
    else
        snprintf(buf, len, "/var/cache/pressmark/vm");
    mode_t old = umask(077);
    int made = pm_mkdirs(buf);
    umask(old);
    struct stat st;
    if (made < 0 || lstat(buf, &st) < 0)
        return pm_errf(err, "%s: %s", buf, strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
        return pm_errf(err, "the VM image cache %s is not a directory of this user that only it can write (owner %u, "
                       "mode %04o; PRESSMARK_CACHE chooses another)", buf, (unsigned)st.st_uid,
                       (unsigned)(st.st_mode & 07777));
    return 0;
}

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

int image_check_kernel(const struct kernel_spec *k, struct kernel_info *ki, struct pm_err *err)
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
        if (image_cache_dir(cache, sizeof cache, err) < 0)
            return -1;
        snprintf(ki->deb, sizeof ki->deb, "%s/debs/%s_%s_%s.deb", cache, ki->package, ver, arch);
        return 0;
    }
    }
    return pm_errf(err, "kernel = %s: unknown kind", k->value);
}

/* Run a step with its output in log; on failure err names the step and
 * ends with the log's last line, where tools say what went wrong. */
static int step(char *const *argv, const char *dir, const char *log, const char *what, struct pm_err *err)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", log, strerror(errno));
    /* die_with_parent: a killed pressmark's recovery removes the build
     * directory, which no dpkg of its may still be writing into. */
    struct pm_spawn sp = { .argv = argv, .dir = dir, .in = PM_FD_NULL, .out = fd, .err = fd, .what = what,
                           .die_with_parent = true };
    struct pm_err e;
    int rc = pm_spawn_run(&sp, &e);
    close(fd);
    if (rc == 0)
        return 0;
    char tail[4096] = "", last[400] = "";
    FILE *f = fopen(log, "re");
    if (f) {
        while (fgets(tail, sizeof tail, f))
            if (tail[0] != '\n')
                snprintf(last, sizeof last, "%s", tail);
        fclose(f);
    }
    last[strcspn(last, "\n")] = '\0';
    /* A failed build's log is kept as last-failed-build.log in the cache. */
    const char *sl = strrchr(log, '/');
    char bdir[PATH_MAX];
    snprintf(bdir, sizeof bdir, "%.*s", sl ? (int)(sl - log) : 0, log);
    sl = strrchr(bdir, '/');
    return pm_errf(err, "%s%s%s (log: %.*s/last-failed-build.log)", e.msg, last[0] ? ": " : "", last,
                   sl ? (int)(sl - bdir) : 0, bdir);
}

static int write_text(const char *path, const char *text, mode_t mode, struct pm_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
    size_t n = strlen(text);
    if (fd < 0 || write(fd, text, n) != (ssize_t)n || fchmod(fd, mode) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return pm_errf(err, "%s: %s", path, strerror(e));
    }
    if (close(fd) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    return 0;
}

static int copy_file(const char *from, const char *to, struct pm_err *err)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return pm_errf(err, "%s: %s", from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        close(in);
        return pm_errf(err, "%s: %s", to, strerror(errno));
    }
    char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            rc = -1;
            break;
        }
    if (n < 0)
        rc = -1;
    int e = errno;
    close(in);
    if (close(out) < 0)
        rc = -1;
    return rc < 0 ? pm_errf(err, "copying %s to %s: %s", from, to, strerror(e)) : 0;
}

/* The Debian mirror the host's apt uses, so the guest comes from where
 * this machine's packages come from (a closed network reaches only that). */
static void mirror(char *buf, size_t len)
{
    const char *env = getenv("PRESSMARK_DEBIAN_MIRROR");
    snprintf(buf, len, "%s", env && *env ? env : "http://deb.debian.org/debian");
    if (env && *env)
        return;
    FILE *f = fopen("/etc/apt/sources.list.d/debian.sources", "re");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "URIs:", 5) == 0) {
            char *u = line + 5;
            u += strspn(u, " \t");
            if (strncmp(u, "http", 4) == 0 && !strstr(u, "security")) {
                snprintf(buf, len, "%.*s", (int)strcspn(u, " \t"), u);
                break;
            }
        }
    }
    if (f)
        fclose(f);
}

/* Debian's codename of this host (bookworm): the guest's release. */
static void codename(char *buf, size_t len)
{
    snprintf(buf, len, "bookworm");
    FILE *f = fopen("/etc/os-release", "re");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VERSION_CODENAME=", 17) == 0 && line[17] != '\n' &&
            strspn(line + 17, "abcdefghijklmnopqrstuvwxyz\n") == strlen(line + 17)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(buf, len, "%s", line + 17);
        }
    if (f)
        fclose(f);
}

/* A build directory in the cache, journalled: a pressmark killed while
 * building leaves nothing half-made behind after the next start. */
static int build_dir(const char *cache, char *dir, size_t len, int *undo_id, struct pm_err *err)
{
    snprintf(dir, len, "%s/pressmark-build-XXXXXX", cache);
    if (!mkdtemp(dir))
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    if ((*undo_id = undo_push(UNDO_TREE, dir, "", err)) < 0) {
        rmdir(dir);
        return -1;
    }
    return 0;
}

/* A failed step's log outlives its build directory: step's err names it. */
static void keep_log(const char *cache, const char *log)
{
    char kept[PATH_MAX + 32];
    snprintf(kept, sizeof kept, "%s/last-failed-build.log", cache);
    rename(log, kept);
}

static void build_dir_drop(const char *dir, int undo_id)
{
    pm_remove_all(dir);
    undo_done(undo_id);
}

static void prune_images(const char *cache)
{
    DIR *d = opendir(cache);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "base-", 5) != 0 && strncmp(e->d_name, "kernel-", 7) != 0)
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", cache, e->d_name);
        pm_remove_all(path);
    }
    if (d)
        closedir(d);
}

static int base_image(const char *cache, char *base, size_t len, FILE *say, struct pm_err *err)
{
    char mir[256], code[64];
    mirror(mir, sizeof mir);
    codename(code, sizeof code);
    uint64_t h = PM_FNV1A_INIT;
    const char *parts[] = { guest_packages, guest_init, initramfs_conf, initramfs_modules, mir, code };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        h = pm_fnv1a(h, parts[i], strlen(parts[i]) + 1);
    snprintf(base, len, "%s/base-%s-%016llx", cache, code, (unsigned long long)h);
    char stamp[PATH_MAX + 16];
    snprintf(stamp, sizeof stamp, "%s/usr/lib/pressmark/guest-init", base);
    if (pm_path_exists(stamp))
        return 0;
    /* A new base outdates every image made from an older one. */
    prune_images(cache);
    char dir[PATH_MAX];
    int id;
    if (build_dir(cache, dir, sizeof dir, &id, err) < 0)
        return -1;
    if (say)
        fprintf(say, "pressmark: building the guest's root file system (debootstrap %s from %s, once)\n", code, mir);
    char root[PATH_MAX + 8], log[PATH_MAX + 16], incl[sizeof guest_packages + 16];
    snprintf(root, sizeof root, "%s/root", dir);
    snprintf(log, sizeof log, "%s/debootstrap.log", dir);
    snprintf(incl, sizeof incl, "--include=%s", guest_packages);
    char *argv[] = { "debootstrap", "--variant=minbase", incl, code, root, mir, NULL };
    char path[PATH_MAX + 64];
    int rc = step(argv, NULL, log, "debootstrap", err);
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/usr/lib/pressmark", root);
        rc = pm_mkdirs(path) < 0 ? pm_errf(err, "%s: %s", path, strerror(errno)) : 0;
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/etc/initramfs-tools/conf.d/pressmark.conf", root);
        rc = write_text(path, initramfs_conf, 0644, err);
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/etc/initramfs-tools/modules", root);
        rc = write_text(path, initramfs_modules, 0644, err);
    }
    /* The init last: its presence says the base is complete. */
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/usr/lib/pressmark/guest-init", root);
        rc = write_text(path, guest_init, 0755, err);
    }
    if (rc == 0) {
        pm_remove_all(base);        /* an incomplete one of an older attempt */
        if (rename(root, base) < 0)
            rc = pm_errf(err, "%s: %s", base, strerror(errno));
    }
    if (rc < 0)
        keep_log(cache, log);
    build_dir_drop(dir, id);
    return rc;
}

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
    if (build_dir(cache, dir, sizeof dir, &id, err) < 0)
        return -1;
    if (say)
        fprintf(say, "pressmark: downloading %s %s\n", ki->package, ki->version);
    char what[320], log[PATH_MAX + 16];
    snprintf(what, sizeof what, "%s=%s", ki->package, ki->version);
    snprintf(log, sizeof log, "%s/apt.log", dir);
    /* As root apt would hand the download to its _apt user, who cannot
     * write into a private cache. */
    char *argv[] = { "apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", what, NULL };
    int rc = step(argv, dir, log, "apt-get download", err);
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
        keep_log(cache, log);
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
    kv_free(&img->info.config);
    img->info.config_known = kconfig_mm_file(path, &img->info.config) > 0;
    return pm_path_exists(img->vmlinuz) && pm_path_exists(img->root);
}

/* Install the kernel into the overlay mounted at merged. */
static int install_kernel(const struct kernel_spec *k, const struct kernel_info *ki, const char *merged,
                          const char *log, struct pm_err *err)
{
    char path[PATH_MAX + 300];
    if (k->kind != KERNEL_BZIMAGE) {
        snprintf(path, sizeof path, "%s/tmp/pressmark-kernel.deb", merged);
        if (copy_file(ki->deb, path, err) < 0)
            return -1;
        /* Its own maintainer scripts: depmod, and the initramfs through
         * initramfs-tools' hook, as on a machine that installs it. */
        char *argv[] = { "chroot", (char *)merged, "dpkg", "-i", "/tmp/pressmark-kernel.deb", NULL };
        int rc = step(argv, NULL, log, "dpkg -i (in the guest's root)", err);
        unlink(path);
        return rc;
    }
    snprintf(path, sizeof path, "%s/boot/vmlinuz-%s", merged, ki->release);
    if (copy_file(k->path, path, err) < 0)
        return -1;
    /* The tree's .config, when the bzImage sits in its tree. */
    /* Its configuration: the tree's .config when the bzImage sits in its
     * tree (arch/x86/boot/bzImage), or config-RELEASE beside it (a /boot). */
    char cfg[PATH_MAX + 32], cfg2[PATH_MAX + 200];
    const char *sl = strrchr(k->path, '/');
    if (sl) {
        snprintf(cfg, sizeof cfg, "%.*s/../../../.config", (int)(sl - k->path), k->path);
        snprintf(cfg2, sizeof cfg2, "%.*s/config-%s", (int)(sl - k->path), k->path, ki->release);
        snprintf(path, sizeof path, "%s/boot/config-%s", merged, ki->release);
        const char *from = pm_path_exists(cfg) ? cfg : pm_path_exists(cfg2) ? cfg2 : NULL;
        if (from && copy_file(from, path, err) < 0)
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
    char *dm[] = { "chroot", (char *)merged, "depmod", (char *)ki->release, NULL };
    char *ir[] = { "chroot", (char *)merged, "update-initramfs", "-c", "-k", (char *)ki->release, NULL };
    if (step(cp, NULL, log, "copying the modules", err) < 0 || step(dm, NULL, log, "depmod", err) < 0 ||
        step(ir, NULL, log, "update-initramfs", err) < 0)
        return -1;
    return 0;
}

static int build_kernel_image(const struct kernel_spec *k, const struct kernel_info *ki, const char *cache,
                              const char *base, const char *final, FILE *say, struct pm_err *err)
{
    char dir[PATH_MAX];
    int id;
    if (build_dir(cache, dir, sizeof dir, &id, err) < 0)
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
    char from[PATH_MAX + 200], to[PATH_MAX + 32];
    if (rc == 0) {
        snprintf(from, sizeof from, "%s/boot/vmlinuz-%s", merged, ki->release);
        snprintf(to, sizeof to, "%s/vmlinuz", dir);
        rc = copy_file(from, to, err);
    }
    if (rc == 0) {
        snprintf(from, sizeof from, "%s/boot/initrd.img-%s", merged, ki->release);
        snprintf(to, sizeof to, "%s/initrd.img", dir);
        if (pm_path_exists(from))
            rc = copy_file(from, to, err);
    }
    if (rc == 0) {
        snprintf(from, sizeof from, "%s/boot/config-%s", merged, ki->release);
        snprintf(to, sizeof to, "%s/config", dir);
        if (pm_path_exists(from))
            rc = copy_file(from, to, err);
    }
    if (rc == 0) {
        snprintf(to, sizeof to, "%s/root.img", dir);
        char *argv[] = { "mkfs.ext4", "-q", "-F", "-L", "pressmark", "-d", merged, to, ROOT_IMAGE_SIZE, NULL };
        rc = step(argv, NULL, log, "mkfs.ext4", err);
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
        rc = write_text(to, info, 0644, err);
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
        keep_log(cache, log);
        build_dir_drop(dir, id);
    }
    return rc;
}

int image_prepare(const struct kernel_spec *k, struct vm_image *img, FILE *say, struct pm_err *err)
{
    memset(img, 0, sizeof *img);
    if (k->kind == KERNEL_RUNNING)
        return pm_errf(err, "kernel = running: the running kernel runs on this machine, not in a VM");
    if (image_check_kernel(k, &img->info, err) < 0)
        return -1;
    char cache[PATH_MAX], base[PATH_MAX];
    if (image_cache_dir(cache, sizeof cache, err) < 0 || base_image(cache, base, sizeof base, say, err) < 0)
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
    if (read_info(img)) {
        snprintf(img->info.build_id, sizeof img->info.build_id, "%s", keep.build_id);
        return 0;
    }
    if (build_kernel_image(k, &keep, cache, base, img->dir, say, err) < 0)
        return -1;
    if (!read_info(img))
        return pm_errf(err, "%s: the image just built is incomplete", img->dir);
    snprintf(img->info.build_id, sizeof img->info.build_id, "%s", keep.build_id);
    return 0;
}

void image_free(struct vm_image *img)
{
    kernel_info_free(&img->info);
}
