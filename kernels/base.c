#include "kernels/base.h"
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "kernels/build_step.h"
#include "lib/fileio.h"
#include "lib/hash.h"

/* The guest's packages: what pressmark links against (Debian 12 names),
 * what a kernel package needs to install (kmod, linux-base, the
 * initramfs tools), loopback for the chat (iproute2), and the sanitizer
 * runtimes so that a make check build runs in the guest as well. The
 * applications a suite's workloads run (redis-server, memcached, fio)
 * are not among them: base_image adds what it is asked for, in a base
 * of its own, so a suite without them never pays for their 130 MiB. */
static const char guest_packages[] = "libsqlite3-0,libcurl4,libgsl27,zlib1g,libinih1,libjansson4,libarchive13,libyaml-0-2,"
                                     "kmod,linux-base,initramfs-tools,zstd,e2fsprogs,iproute2,libasan8,libubsan1";

/* What both inits begin with: the mounts a run needs (cgroup v2 among
 * them), the hostname and loopback. */
#define GUEST_SETUP \
    "PATH=/usr/sbin:/usr/bin:/sbin:/bin\n" \
    "export PATH\n" \
    "mountpoint -q /proc || mount -t proc proc /proc\n" \
    "mountpoint -q /sys || mount -t sysfs sysfs /sys\n" \
    "mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev\n" \
    "mount -o remount,rw /\n" \
    "mount -t tmpfs -o mode=0755 tmpfs /run\n" \
    "mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm\n" \
    "mount -t cgroup2 cgroup2 /sys/fs/cgroup\n" \
    "echo pressmark-guest > /proc/sys/kernel/hostname\n" \
    "ip link set lo up\n"

/* Process 1 of every guest. Fixed text (no suite's string is ever put in
 * it): the job comes as a tar archive on the second disk, what came of
 * it leaves as one on the third, then the machine powers off. */
static const char guest_init[] =
    "#!/bin/sh\n"
    "# pressmark's guest init: process 1 of a virtual machine booted for one\n"
    "# kernel of a suite. Job in: a tar archive on /dev/vdb. Results out: a tar\n"
    "# archive on /dev/vdc. Then power off.\n"
    GUEST_SETUP
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

/* Process 1 of a guest that a LAVA job boots on a qemu device (pressmark
 * lava job): the same mounts, the network QEMU's user mode gives (the
 * host is 10.0.2.2, where the lab's artifact store answers), the links
 * LAVA's test shell mounts its overlay disk by (there is no udev), then
 * a root shell on the console with the prompt the job waits for. */
static const char lava_init[] =
    "#!/bin/sh\n"
    "# pressmark's init for a LAVA job on a qemu device: a root shell on the\n"
    "# console for LAVA's test shell, the network of QEMU's user mode.\n"
    GUEST_SETUP
    "mkdir -p /dev/disk/by-uuid\n"
    "for d in /dev/vd? /dev/sd?; do\n"
    "    [ -b \"$d\" ] || continue\n"
    "    u=$(blkid -s UUID -o value \"$d\") && [ -n \"$u\" ] && ln -sf \"$d\" \"/dev/disk/by-uuid/$u\"\n"
    "done\n"
    "modprobe virtio_net 2> /dev/null\n"
    "if ip link set eth0 up 2> /dev/null; then\n"
    "    ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2\n"
    "fi\n"
    "echo \"pressmark-guest: $(uname -r) up after $(cut -d' ' -f1 /proc/uptime) s\"\n"
    "PS1='pressmark-lava# '\n"
    "export PS1\n"
    "while :; do\n"
    "    setsid -cw sh -i < /dev/ttyS0 > /dev/ttyS0 2>&1\n"
    "done\n";

/* The initramfs holds only what finds the root disk: fast to build, and
 * the same for every kernel. */
static const char initramfs_conf[] = "MODULES=list\nCOMPRESS=zstd\n";
static const char initramfs_modules[] = "virtio_pci\nvirtio_blk\next4\n";


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

static bool of_core(const char *name, const char *core)
{
    size_t n = strlen(core);
    return strncmp(name, core, n) == 0 && (name[n] == '\0' || name[n] == '-');
}

/* A new core (packages, inits, mirror, release) outdates every base and
 * image made from an older one: when no base of this core exists yet,
 * the others and every kernel image go. A base of the same core with
 * other applications is no new core: nothing goes. */
static void prune_images(const char *cache, const char *core)
{
    DIR *d = opendir(cache);
    struct dirent *e;
    bool current = false;
    while (d && (e = readdir(d)))
        current |= of_core(e->d_name, core);
    if (d)
        rewinddir(d);
    while (d && !current && (e = readdir(d))) {
        if (strncmp(e->d_name, "base-", 5) != 0 && strncmp(e->d_name, "kernel-", 7) != 0)
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", cache, e->d_name);
        pm_remove_all(path);
    }
    if (d)
        closedir(d);
}

/* Debian package names (policy 5.6.1), comma-separated: what debootstrap's
 * --include takes and nothing else. */
static bool package_list_ok(const char *s)
{
    const char *p = s;
    while (*p) {
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789+-.");
        if (n < 2 || !((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= '0' && p[0] <= '9')))
            return false;
        p += n;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return false;
    }
    return true;
}

int base_image(const char *cache, const char *apps, char *base, size_t len, FILE *say, struct pm_err *err)
{
    if (!apps)
        apps = "";
    if (*apps && !package_list_ok(apps))
        return pm_errf(err, "the guest's application packages '%s' are not a comma-separated list of Debian "
                       "package names", apps);
    if (strlen(apps) > GUEST_APPS_MAX)
        return pm_errf(err, "the guest's application packages are longer than %d characters", GUEST_APPS_MAX);
    char mir[256], code[64];
    mirror(mir, sizeof mir);
    codename(code, sizeof code);
    uint64_t h = PM_FNV1A_INIT;
    const char *parts[] = { guest_packages, guest_init, lava_init, initramfs_conf, initramfs_modules, mir, code };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        h = pm_fnv1a(h, parts[i], strlen(parts[i]) + 1);
    char core[96];
    int w = snprintf(core, sizeof core, "base-%s-%016llx", code, (unsigned long long)h);
    if (w < 0 || (size_t)w >= sizeof core)
        return pm_errf(err, "the release's codename '%s' is too long for a base's name", code);
    if (*apps)
        w = snprintf(base, len, "%s/%s-%016llx", cache, core,
                     (unsigned long long)pm_fnv1a(PM_FNV1A_INIT, apps, strlen(apps)));
    else
        w = snprintf(base, len, "%s/%s", cache, core);
    if (w < 0 || (size_t)w >= len)
        return pm_errf(err, "%s: the cache's path is too long for a base's name", cache);
    char stamp[PATH_MAX + 16];
    snprintf(stamp, sizeof stamp, "%s/usr/lib/pressmark/guest-init", base);
    if (pm_path_exists(stamp))
        return 0;
    prune_images(cache, core);
    char dir[PATH_MAX];
    int id;
    if (build_dir_make(cache, dir, sizeof dir, &id, err) < 0)
        return -1;
    if (say)
        fprintf(say, "pressmark: building the guest's root file system (debootstrap %s from %s%s%s, once)\n", code, mir,
                *apps ? ", with " : "", apps);
    char root[PATH_MAX + 8], log[PATH_MAX + 16], incl[sizeof guest_packages + GUEST_APPS_MAX + 16];
    snprintf(root, sizeof root, "%s/root", dir);
    snprintf(log, sizeof log, "%s/debootstrap.log", dir);
    snprintf(incl, sizeof incl, "--include=%s%s%s", guest_packages, *apps ? "," : "", apps);
    char *argv[] = { "debootstrap", "--variant=minbase", incl, code, root, mir, NULL };
    char path[PATH_MAX + 64];
    int rc = build_step(argv, NULL, log, "debootstrap", err);
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/usr/lib/pressmark", root);
        rc = pm_mkdirs(path) < 0 ? pm_errf(err, "%s: %s", path, strerror(errno)) : 0;
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/etc/initramfs-tools/conf.d/pressmark.conf", root);
        rc = build_write_text(path, initramfs_conf, 0644, err);
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/etc/initramfs-tools/modules", root);
        rc = build_write_text(path, initramfs_modules, 0644, err);
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/usr/lib/pressmark/lava-init", root);
        rc = build_write_text(path, lava_init, 0755, err);
    }
    /* The init last: its presence says the base is complete. */
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/usr/lib/pressmark/guest-init", root);
        rc = build_write_text(path, guest_init, 0755, err);
    }
    if (rc == 0) {
        pm_remove_all(base);        /* an incomplete one of an older attempt */
        if (rename(root, base) < 0)
            rc = pm_errf(err, "%s: %s", base, strerror(errno));
    }
    if (rc < 0)
        build_keep_log(cache, log);
    build_dir_drop(dir, id);
    return rc;
}

