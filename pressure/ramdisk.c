/* A run's brd ramdisk with an ext4 on it (ramdisk.h). */
#include "pressure/ramdisk.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include "lib/fileio.h"
#include "lib/spawn.h"
#include "lib/units.h"
#include "pressure/undo.h"
#include "pressure/undo_line.h"

/* /dev/ram0: brd's major (RAMDISK_MAJOR), its first disk. */
#define RAM_MAJOR 1
#define RAM_DEV "/dev/ram0"
/* How long brd's disk may take to appear in /dev (devtmpfs makes it as
 * the module adds it; udev may still be at it). */
#define DEV_WAIT_MS 5000

int ramdisk_taken(const char *root, char *why, size_t len)
{
    char p[PATH_MAX];
    struct stat st;
    snprintf(p, sizeof p, "%s/sys/module/brd", root ? root : "");
    if (lstat(p, &st) == 0) {
        snprintf(why, len, "brd is loaded already (/sys/module/brd: built in, or loaded by someone else, whose "
                 "disks may hold data; pressmark uses and unloads only a brd it loaded itself)");
        return -1;
    }
    snprintf(p, sizeof p, "%s" RAM_DEV, root ? root : "");
    if (lstat(p, &st) == 0) {
        snprintf(why, len, RAM_DEV " exists already, without brd (someone else's node or driver)");
        return -1;
    }
    return 0;
}

/* mke2fs's default journal for a file system of bytes (e2fsprogs'
 * ext2fs_default_journal_size, 4 KiB blocks), at least. */
static uint64_t journal_bound(uint64_t bytes)
{
    static const struct {
        uint64_t upto, journal;
    } t[] = { { 128ull << 20, 4ull << 20 }, { 1ull << 30, 16ull << 20 }, { 2ull << 30, 32ull << 20 },
              { 16ull << 30, 64ull << 20 }, { 32ull << 30, 128ull << 20 } };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (bytes <= t[i].upto)
            return t[i].journal;
    return 1ull << 30;
}

uint64_t ramdisk_room(uint64_t bytes)
{
    /* Inode tables at one 256-byte inode per 16 KiB (1/64), bitmaps, group
     * descriptors and the blocks kept for growing them: under 1/32, and a
     * few MiB for the rest. */
    uint64_t used = bytes / 32 + (4ull << 20) + journal_bound(bytes);
    return bytes > used ? bytes - used : 0;
}

uint64_t ramdisk_for(uint64_t file)
{
    /* room(s) = s - s/32 - 4M - journal(s): s = (file + 4M + journal) x
     * 32/31 a few times over (the journal grows with s), then the whole
     * MiB that holds it and the one below does not. */
    uint64_t s = file < PM_RAMDISK_MIN ? PM_RAMDISK_MIN : file;
    for (int i = 0; i < 4; i++) {
        uint64_t need = file + (4ull << 20) + journal_bound(s);
        s = need / 31 * 32 + 32;
    }
    s = (s + (1ull << 20) - 1) & ~((1ull << 20) - 1);
    while (ramdisk_room(s) < file)
        s += 1ull << 20;
    while (s > PM_RAMDISK_MIN && ramdisk_room(s - (1ull << 20)) >= file)
        s -= 1ull << 20;
    return s < PM_RAMDISK_MIN ? PM_RAMDISK_MIN : s;
}

int ramdisk_check(struct pm_err *err)
{
    char why[256], mkfs[PATH_MAX];
    if (geteuid() != 0)
        return pm_errf(err, "loading brd and mounting its disk need root");
    if (ramdisk_taken(NULL, why, sizeof why) < 0)
        return pm_errf(err, "%s", why);
    char *argv[] = { "modprobe", "--dry-run", "--quiet", "brd", NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = PM_FD_NULL, .err = PM_FD_NULL };
    struct pm_err e;
    if (pm_spawn_run(&sp, &e) < 0) {
        struct utsname u;
        const char *rel = uname(&u) == 0 ? u.release : "?";
        return pm_errf(err, "this kernel (%s) has no brd module that modprobe finds (accepted: a kernel whose brd "
                       "is a module, CONFIG_BLK_DEV_RAM=m, as Debian's 6.12; without one the nearest is a tmpfs, "
                       "whose files are shmem, not page cache)", rel);
    }
    if (pm_which("mkfs.ext4", true, mkfs, sizeof mkfs) < 0)
        return pm_errf(err, "no mkfs.ext4 in PATH (apt-get install e2fsprogs)");
    return 0;
}

/* brd loaded with one disk of r->bytes: the journal's line first, then
 * modprobe --first-time (a brd loaded since the check fails it, and its
 * line goes unapplied); then the line again with the load's identity, the
 * inode of /sys/module/brd, which a later load of anyone's does not have. */
static int load_brd(struct pm_ramdisk *r, struct pm_err *err)
{
    int id = undo_push(UNDO_MODULE, "brd", "", err);
    if (id < 0)
        return -1;
    char size[32];
    snprintf(size, sizeof size, "rd_size=%llu", (unsigned long long)(r->bytes >> 10));
    char *argv[] = { "modprobe", "--first-time", "brd", "rd_nr=1", size, NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = PM_FD_NULL, .err = PM_FD_NULL };
    struct pm_err e;
    if (pm_spawn_run(&sp, &e) < 0) {
        undo_done(id);
        return pm_errf(err, "could not load brd: %s (loaded meanwhile by someone else?)", e.msg);
    }
    r->undo_module = id;
    struct stat st;
    if (stat("/sys/module/brd", &st) < 0)
        return pm_errf(err, "brd loaded, but /sys/module/brd: %s", strerror(errno));
    char ident[sizeof r->ident];
    snprintf(ident, sizeof ident, "ino=%llu", (unsigned long long)st.st_ino);
    int id2 = undo_push(UNDO_MODULE, "brd", ident, err);
    if (id2 < 0)
        return -1;
    undo_done(id);
    r->undo_module = id2;
    snprintf(r->ident, sizeof r->ident, "%s", ident);
    return 0;
}

/* /dev/ram0 as brd's first disk, of the size asked for. */
static int wait_disk(const struct pm_ramdisk *r, struct pm_err *err)
{
    struct stat st;
    int waited = 0;
    while (lstat(RAM_DEV, &st) < 0 && waited < DEV_WAIT_MS) {
        struct timespec ts = { 0, 20 * 1000000 };
        nanosleep(&ts, NULL);
        waited += 20;
    }
    if (lstat(RAM_DEV, &st) < 0)
        return pm_errf(err, "brd loaded, but no " RAM_DEV " after %d ms", DEV_WAIT_MS);
    if (!S_ISBLK(st.st_mode) || major(st.st_rdev) != RAM_MAJOR || minor(st.st_rdev) != 0)
        return pm_errf(err, RAM_DEV " is not brd's first disk (not block device 1:0)");
    char sectors[32];
    if (pm_read_file("/sys/block/ram0/size", sectors, sizeof sectors) < 0)
        return pm_errf(err, "/sys/block/ram0/size: %s", strerror(errno));
    unsigned long long n;
    char *end;
    errno = 0;
    n = strtoull(sectors, &end, 10);
    if (errno || *end || n * 512 != r->bytes)
        return pm_errf(err, RAM_DEV " has %s sectors of 512 bytes, not %llu", sectors,
                       (unsigned long long)(r->bytes / 512));
    return 0;
}

/* ext4 with 4 KiB blocks whatever the size (mke2fs would give a small
 * one 1 KiB blocks, which a 4 KiB read spans four of), its inode tables
 * and journal written now rather than by a kernel thread during the
 * run, no blocks kept for root (the room is the file's). */
static int make_fs(struct pm_err *err)
{
    char mkfs[PATH_MAX];
    if (pm_which("mkfs.ext4", true, mkfs, sizeof mkfs) < 0)
        return pm_errf(err, "no mkfs.ext4 in PATH (apt-get install e2fsprogs)");
    char *argv[] = { mkfs, "-q", "-F", "-b", "4096", "-i", "16384", "-m", "0",
                     "-E", "lazy_itable_init=0,lazy_journal_init=0", RAM_DEV, NULL };
    struct pm_spawn sp = { .argv = argv, .path = mkfs, .in = PM_FD_NULL, .out = PM_FD_NULL, .err = PM_FD_NULL };
    return pm_spawn_run(&sp, err);
}

/* dir/ramdisk made (0700) and /dev/ram0's ext4 mounted on it, through a
 * descriptor of the directory made (/proc/self/fd/N), so the mount lands
 * on it and on nothing a name could be made to point at meanwhile. */
static int mount_disk(struct pm_ramdisk *r, const char *dir, struct pm_err *err)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    int mfd = -1;
    if (mkdirat(dfd, "ramdisk", 0700) == 0)
        mfd = openat(dfd, "ramdisk", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    close(dfd);
    if (mfd < 0)
        return pm_errf(err, "%s/ramdisk: %s", dir, strerror(e));
    snprintf(r->mnt, sizeof r->mnt, "%s/ramdisk", dir);
    int id = undo_place_ours(UNDO_RAMDISK, r->mnt) ? undo_push(UNDO_RAMDISK, r->mnt, "", err)
                                                    : pm_errf(err, "%s: not a path the undo journal can hold", r->mnt);
    char via[64];
    snprintf(via, sizeof via, "/proc/self/fd/%d", mfd);
    if (id >= 0 && mount(RAM_DEV, via, "ext4", MS_NOSUID | MS_NODEV | MS_NOEXEC, "") < 0) {
        pm_errf(err, "mount " RAM_DEV " on %s: %s", r->mnt, strerror(errno));
        undo_done(id);
        id = -1;
    }
    close(mfd);
    r->undo_mount = id;
    return id < 0 ? -1 : 0;
}

int ramdisk_make(struct pm_ramdisk *r, const char *dir, uint64_t bytes, struct pm_err *err)
{
    *r = (struct pm_ramdisk){ .bytes = bytes, .undo_module = -1, .undo_mount = -1 };
    char why[256];
    if (ramdisk_taken(NULL, why, sizeof why) < 0)
        return pm_errf(err, "%s", why);
    if (load_brd(r, err) < 0 || wait_disk(r, err) < 0 || make_fs(err) < 0 || mount_disk(r, dir, err) < 0) {
        ramdisk_remove(r);
        return -1;
    }
    struct statvfs vfs;
    if (statvfs(r->mnt, &vfs) < 0) {
        pm_errf(err, "%s: %s", r->mnt, strerror(errno));
        ramdisk_remove(r);
        return -1;
    }
    char sz[32], room[32];
    pm_fmt_size(sz, sizeof sz, bytes);
    pm_fmt_size(room, sizeof room, (uint64_t)vfs.f_bavail * vfs.f_frsize);
    snprintf(r->fs, sizeof r->fs, "ext4 on a brd ramdisk of %s made for the run (" RAM_DEV ", %s free)", sz, room);
    return 0;
}

void ramdisk_remove(struct pm_ramdisk *r)
{
    char said[1024];
    if (r->undo_mount >= 0 && undo_apply(UNDO_RAMDISK, r->mnt, "", said, sizeof said) == 0) {
        undo_done(r->undo_mount);
        r->undo_mount = -1;
    }
    /* (brd goes only once its disk is unmounted: a mount still there keeps
     * the module's line too, for the run's undo to try again) */
    if (r->undo_mount < 0 && r->undo_module >= 0) {
        if (undo_apply(UNDO_MODULE, "brd", r->ident, said, sizeof said) == 0) {
            undo_done(r->undo_module);
            r->undo_module = -1;
        }
    }
}
