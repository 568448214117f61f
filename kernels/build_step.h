#ifndef PM_KERNEL_BUILD_H
#define PM_KERNEL_BUILD_H
/* The steps images are made of: programs run with their output in a log,
 * files written without following links, and build directories in the
 * cache that are journalled, so a killed pressmark leaves none behind. */
#include <stddef.h>
#include <sys/types.h>
#include "lib/err.h"

/* Run argv (in dir, or here) with its output appended to log. On failure
 * err names the step and ends with the log's last line, where tools say
 * what went wrong, and where the log is kept (last-failed-build.log). */
int build_step(char *const *argv, const char *dir, const char *log, const char *what, struct pm_err *err);
/* The same for a program of the guest's root (a kernel package's dpkg -i
 * and its maintainer scripts, depmod, update-initramfs), which is not
 * trusted: run in root as its / in namespaces of its own (mount, PID,
 * network, IPC, UTS: no network, nothing it starts outlives it, no mount
 * seen outside), without /proc, in a session of its own, with a clean
 * environment and only the capabilities installing files needs (no
 * mount, chroot, module, device, raw I/O, ptrace, handle or network
 * admin). */
int build_step_in_root(const char *root, char *const *argv, const char *log, const char *what, struct pm_err *err);
int build_write_text(const char *path, const char *text, mode_t mode, struct pm_err *err);
/* Copy a file to a new or truncated one of this mode (never through a link). */
int build_copy_file(const char *from, const char *to, mode_t mode, struct pm_err *err);
/* A kernel's configuration into to (0644), refused unless a regular file
 * of at most BUILD_CONFIG_MAX bytes, owned by root or owner, writable by
 * nobody else (it may sit in a directory others can write). */
#define BUILD_CONFIG_MAX (16 << 20)
int build_copy_config(const char *from, const char *to, uid_t owner, struct pm_err *err);
/* The same for a file of the guest's root: rel is looked up beneath root
 * without following any link (a /boot/initrd.img that points at a host
 * file is refused, not copied), and must be a regular file of at most
 * BUILD_ROOT_FILE_MAX bytes. */
#define BUILD_ROOT_FILE_MAX (1ll << 30)
int build_copy_from_root(const char *root, const char *rel, const char *to, mode_t mode, struct pm_err *err);
/* A journalled build directory CACHE/pressmark-build-XXXXXX. */
int build_dir_make(const char *cache, char *dir, size_t len, int *undo_id, struct pm_err *err);
/* Keep a failed step's log as CACHE/last-failed-build.log. */
void build_keep_log(const char *cache, const char *log);
/* Remove the build directory and strike it from the journal. */
void build_dir_drop(const char *dir, int undo_id);

#endif
