#ifndef PM_SYSFS_H
#define PM_SYSFS_H
/* Small reads and writes of /proc and /sys files. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "lib/err.h"

/* Read a whole small file, trailing newlines stripped. -1 with errno set. */
int pm_read_file(const char *path, char *buf, size_t len);
/* Write a string to an existing file (no create, no truncate semantics). */
int pm_write_file(const char *path, const char *value, struct pm_err *err);
/* The first number after "Key:" in a /proc/meminfo-style file, or -1. */
int64_t pm_meminfo_kb(const char *key);
/* A counter of /proc/vmstat by name, or -1. */
int64_t pm_vmstat_value(const char *key);
/* The [selected] word of a sysfs choice file such as THP's "always [madvise] never". */
int pm_read_choice(const char *path, char *buf, size_t len);
bool pm_path_exists(const char *path);
/* Is there an executable called name in $PATH? */
bool pm_in_path(const char *name);
/* The first executable called name (no '/') in $PATH into out, 0; -1
 * when none. An empty entry is the working directory, a relative one
 * relative to it, both passed over with absolute_only. */
int pm_which(const char *name, bool absolute_only, char *out, size_t len);
/* Create (or truncate) a file for writing without following a symlink at
 * path: pressmark runs as root and writes where users point it (--out,
 * --junit). NULL with errno set (ELOOP for a symlink, EINVAL for what is
 * not a regular file: a FIFO or a device planted there). */
FILE *pm_create_file(const char *path);
/* The same as a descriptor: flags O_TRUNC or O_APPEND. -1 with errno. */
int pm_open_output(const char *path, int flags);
/* A file that appears under its name only once it is written whole
 * (export's --out): written unnamed in the target's directory (O_TMPFILE;
 * under a temporary name beside it where the file system has none), then
 * given the name, replacing a regular file that was there. Its mode is the
 * replaced file's permission bits when that file is this user's (a private
 * export stays private), else 0666; under the umask either way. An export
 * refused or failed part way, or a pressmark killed while writing, leaves
 * the file that was there as it was, and with O_TMPFILE nothing else
 * either. A FIFO with a reader or a character device (/dev/null) at the
 * name is written to, never replaced, when it is this user's or root's;
 * opening never blocks. A symlink is refused: as root, following one
 * writes where someone else points, and replacing it was no better
 * (--out /dev/stdout would become a file). */
struct pm_outfile {
    FILE *f;
    char path[4096];
    char tmp[4096 + 32];        /* the temporary name, "" while the file has none */
    bool direct;                /* writing to the device or FIFO at path itself */
};
/* -1 with err naming path and why (a directory, a symlink, a block device
 * or a socket there; a FIFO or device of another user's; a FIFO nobody
 * reads). */
int pm_outfile_open(struct pm_outfile *o, const char *path, struct pm_err *err);
/* Flush, name it, close. -1 with errno, the file gone and path untouched. */
int pm_outfile_commit(struct pm_outfile *o);
void pm_outfile_abort(struct pm_outfile *o);
/* rm -rf without following symlinks (a link is removed, not its target). */
int pm_remove_all(const char *path);
/* mkdir -p, 0755. */
int pm_mkdirs(const char *path);
/* pressmark's cache directory (pm_cache_root), made and checked by
 * pm_private_dir; buf receives its path (without links). -1 with err when
 * there is none or it is not private. */
int pm_cache_dir(char *buf, size_t len, struct pm_err *err);
/* A directory of pressmark's (a cache, the VM images'), made if missing
 * (0700) and checked: its own path resolved (path is replaced by it, so a
 * link swapped later is not followed), every directory above it one only
 * root or this user can change (pm_trusted_path), it this user's with
 * mode 0700. A root pressmark never builds from, runs or reads what
 * another user could have planted or swapped. */
int pm_private_dir(char *path, size_t len, struct pm_err *err);
/* Is every directory from / down to path (absolute, without links) one
 * that only root or this user can change: theirs, and writable by nobody
 * else unless sticky? -1 with err naming the first that is not. */
int pm_trusted_path(const char *path, struct pm_err *err);
/* Open a directory of this user's that nobody else can write into or
 * read (mode 0700), made first with create: a descriptor for openat, so
 * the path is not looked up again (a directory swapped for a link after
 * the check is never written into). -1 with errno (ENOENT: not there) and
 * err saying why. */
int pm_open_private_dir(const char *path, bool create, struct pm_err *err);
/* Open rel (relative) beneath the directory root for reading, following
 * no link on the way and never leaving root (openat2's RESOLVE_BENEATH and
 * RESOLVE_NO_SYMLINKS). -1 with errno (ELOOP or EXDEV for a link or a way
 * out, ENOSYS on a kernel before 5.6). */
int pm_open_beneath(const char *root, const char *rel);
/* Give the unnamed file fd (O_TMPFILE) the contents data[0..len), on
 * disk, mode 0600, then the name name in directory dfd: the file appears
 * whole or not at all, and no name is looked up on the way. -1 with errno. */
int pm_link_tmpfile(int fd, const void *data, size_t len, int dfd, const char *name);
/* pressmark's cache directory (generated trees, fetched baselines,
 * filestream's files): $PRESSMARK_CACHE, else for root /var/cache/pressmark,
 * else $XDG_CACHE_HOME/pressmark or ~/.cache/pressmark (absolute only);
 * -1 when none of them says (never a shared place like /tmp). */
int pm_cache_root(char *buf, size_t len);

#endif
