#ifndef PM_ARCHIVE_LIB_H
#define PM_ARCHIVE_LIB_H
/* libarchive, opened on first use (lib/dynlib.h says why it is not
 * linked): only a kernel's results archive and linux_source need it. Call
 * through the table, never archive_* by name: a direct call would link
 * libarchive again. */
#include <archive.h>
#include <archive_entry.h>
#include "lib/err.h"

/* The functions pressmark calls, without their archive_ prefix. */
#define PM_ARCHIVE_FNS(X)                                                                                \
    X(read_new) X(read_support_format_tar) X(read_support_filter_xz) X(read_open_fd) X(read_next_header) \
    X(read_data) X(read_data_block) X(read_free) X(error_string) X(write_disk_new)                       \
    X(write_disk_set_options) X(write_header) X(write_data_block) X(write_finish_entry) X(write_close)   \
    X(write_free) X(entry_pathname) X(entry_filetype) X(entry_hardlink) X(entry_size)                    \
    X(entry_size_is_set) X(entry_perm) X(entry_set_perm) X(entry_copy_pathname) X(entry_copy_hardlink)

/* Each pointer has the type archive.h declares for the function. */
struct pm_archive {
#define PM_ARCHIVE_FIELD(name) __typeof__(archive_##name) *name;
    PM_ARCHIVE_FNS(PM_ARCHIVE_FIELD)
#undef PM_ARCHIVE_FIELD
};

/* The table, libarchive.so.13 loaded once for the process (thread-safe);
 * NULL with err when it or one of its functions is missing, the same one
 * line each time. */
const struct pm_archive *pm_archive_lib(struct pm_err *err);

#endif
