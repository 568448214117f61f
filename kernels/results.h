#ifndef PM_KERNEL_RESULTS_H
#define PM_KERNEL_RESULTS_H
/* What a guest leaves on its results disk: one tar archive of the few
 * files pressmark's guest init writes (results.db, status, guest.log,
 * dmesg.txt). The guest is not trusted (a kernel under test, or anything
 * that runs in it), so the archive is read by libarchive as plain tar (no
 * decompression) and only regular files with those names are taken, each
 * within its size, written 0600 into the boot's private directory through
 * a descriptor (never through a link), mode, owner and times of the
 * archive ignored; links, devices, FIFOs, other names, a second copy of a
 * name or a size past its limit make the whole archive refused. */
#include <stdint.h>
#include "lib/err.h"

/* The most the results disk can hold, and so any archive on it. */
#define RESULTS_DISK_BYTES (2ull << 30)

/* Unpack the archive at image into the directory dir (which must be a
 * private directory of this user's). 0, or -1 with err saying in one line
 * what was wrong; files already written are removed then. */
int results_unpack(const char *image, const char *dir, struct pm_err *err);

#endif
