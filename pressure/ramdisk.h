#ifndef PM_RAMDISK_H
#define PM_RAMDISK_H
/* A fresh ramdisk for one run, as the MGLRU cover letter's fio runs had
 * theirs: the brd module loaded with one disk (rd_nr=1 rd_size=KiB), an
 * ext4 made on /dev/ram0 and mounted in the run's private scratch
 * directory. Its pages are the machine's memory outside any cgroup, so
 * only the page cache over it is charged to the run's cap.
 *
 * Only a brd pressmark loads itself: one already loaded (built in, or
 * someone else's, whose disks may hold data) is refused, never used and
 * never unloaded. Every step is in the undo journal before it is taken
 * (the module, its identity once loaded, the mount), so a SIGKILLed
 * pressmark leaves nothing the next invocation does not undo: unmounted,
 * then brd unloaded only when /sys/module/brd is still the one it loaded. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"

/* The smallest and largest ramdisk, and its unit (brd's rd_size is KiB;
 * a whole number of pages keeps ext4's 4 KiB blocks whole). */
#define PM_RAMDISK_MIN (64ull << 20)
#define PM_RAMDISK_MAX (1ull << 40)
#define PM_RAMDISK_UNIT 4096u

struct pm_ramdisk {
    char mnt[PATH_MAX];          /* its file system's mount point; "" when none */
    char fs[96];                 /* what the run's metadata says of it */
    char ident[48];              /* the load of brd's that is this run's ("ino=N"); "" before it is known */
    uint64_t bytes;
    int undo_module, undo_mount; /* journal lines; -1 when none */
};

/* Why a ramdisk cannot be made under root (NULL: "/", the machine; a test
 * gives a directory of decoys): brd already there (root/sys/module/brd,
 * built in or loaded by anyone) or a root/dev/ram0 of someone else's. 0
 * when neither, else -1 with why (one phrase, no option named). */
int ramdisk_taken(const char *root, char *why, size_t len);
/* The ext4 on a ramdisk of bytes leaves at least this much for files
 * (inode tables, bitmaps, its journal: a bound, mkfs's own is less). */
uint64_t ramdisk_room(uint64_t bytes);
/* The smallest ramdisk, a whole number of MiB, whose room holds file. */
uint64_t ramdisk_for(uint64_t file);
/* Can one be made on this machine now: root, brd a module of this kernel
 * that modprobe finds, not loaded (ramdisk_taken), mkfs.ext4 there.
 * -1 with err naming what is missing, in words an option's refusal ends
 * with. */
int ramdisk_check(struct pm_err *err);
/* Load brd (journalled first; --first-time, so one loaded meanwhile is
 * refused, not taken), mkfs.ext4 /dev/ram0, and mount it on dir/ramdisk,
 * made here (dir: a private directory of root's, the run's scratch; the
 * mount journalled first). -1 with err; what was done is undone then. */
int ramdisk_make(struct pm_ramdisk *r, const char *dir, uint64_t bytes, struct pm_err *err);
/* Unmounted and brd unloaded, each line struck off once done; a step that
 * fails keeps its line, for the run's undo and the next invocation. */
void ramdisk_remove(struct pm_ramdisk *r);

#endif
