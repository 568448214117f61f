#ifndef PM_UNDO_H
#define PM_UNDO_H
/* What pressmark changes on the machine (cgroups, swap, sysctls, the
 * balloon) is written to a journal before it is changed, and struck off
 * when undone. A pressmark killed with SIGKILL leaves the journal behind;
 * the next invocation replays it in reverse. The same directory holds the
 * lock that keeps two runs from disturbing each other's numbers. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "lib/err.h"

enum undo_kind {
    UNDO_FILE,        /* a: path, b: the value to write back (sysctl, THP, zswap) */
    UNDO_CGROUP,      /* a: cgroup directory to empty and remove */
    UNDO_SWAPFILE,    /* a: swap file to swapoff and unlink */
    UNDO_ZRAM,        /* a: zram device number to swapoff, reset and remove */
    UNDO_PROCESS,     /* a: pid, b: a word its /proc/PID/cmdline must contain */
    UNDO_RMDIR,       /* a: an empty directory pressmark created */
    UNDO_SUBTREE,     /* a: cgroup v2 directory, b: controller to disable again */
    UNDO_SCRATCH,     /* a: a scratch directory of pressmark's: its files named b* go, then it;
                       * b UNDO_SCRATCH_ALL: everything in it, no link followed */
    UNDO_MOUNT,       /* a: a mount point inside a pressmark-build-* directory, unmounted */
    UNDO_TREE,        /* a: a pressmark-build-* directory (a VM image being made), removed whole */
    UNDO_TRACEFS,     /* a: /sys/kernel/tracing, where pressmark mounted tracefs: unmounted */
    UNDO_TRACE_INSTANCE, /* a: a tracefs instances/pressmark-* directory, removed */
    UNDO_MODULE,      /* a: a kernel module pressmark loaded (zram, brd), unloaded again; b: "" or the
                       * load's identity, "ino=N" of /sys/module/A: another load is left alone */
    UNDO_RAMDISK,     /* a: a ramdisk's mount point, PLACE/pressmark-NAME.X/ramdisk: unmounted */
};
/* UNDO_SCRATCH's b for a directory another user wrote into. */
#define UNDO_SCRATCH_ALL "*"


/* The state directory: $PRESSMARK_STATE_DIR, else /run/pressmark as root,
 * else $XDG_RUNTIME_DIR/pressmark or /tmp/pressmark-UID. */
const char *undo_state_dir(void);

/* Take the machine-wide run lock. -1 with a message naming the holder
 * when another pressmark holds it. The lock goes when the process does.
 * Taken again by its holder, it nests: each undo_unlock undoes one. */
int undo_lock(const char *what, struct pm_err *err);
void undo_unlock(void);
/* Does a pressmark hold the run lock now (is a run in progress here)? */
bool undo_run_in_progress(void);

/* Journal an action before doing it. Returns an id for undo_done. */
int undo_push(enum undo_kind kind, const char *a, const char *b, struct pm_err *err);
/* This process must never write the journal (a helper beside a run whose
 * pressmark owns it: the journal is rewritten whole from one process's
 * list): undo_push fails with why from now on. */
void undo_forbid(const char *why);
/* Strike an action off after it was undone (or turned out not needed). */
void undo_done(int id);
/* Undo every journalled action of this process, newest first. Each undone
 * action is described in summary (one "; "-separated phrase each). */
int undo_all(char *summary, size_t len);

/* When no pressmark holds the lock and a journal was left behind, undo it
 * and say so, a line for each action, on say (the caller's: this layer
 * never prints). Returns the number of actions undone. */
int undo_recover(FILE *say);

/* Carry out one action now (used by undo_all and recovery). */
int undo_apply(enum undo_kind kind, const char *a, const char *b, char *said, size_t len);

#endif
