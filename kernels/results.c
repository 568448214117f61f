#include "kernels/results.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/archive_lib.h"
#include "lib/fileio.h"
#include "lib/quote.h"

/* The names the guest init writes, each with the most it may hold. */
static const struct {
    const char *name;
    int64_t max;
} members[] = {
    { "results.db", (int64_t)RESULTS_DISK_BYTES },
    { "status", 16 },
    { "guest.log", 64ll << 20 },
    { "dmesg.txt", 16ll << 20 },
};
#define NMEMBERS (sizeof members / sizeof members[0])

/* libarchive's words may quote the archive: shown, never obeyed. */
static void quote_err(struct pm_err *err)
{
    char was[sizeof err->msg];
    snprintf(was, sizeof was, "%s", err->msg);
    quote_terminal(was, err->msg, sizeof err->msg);
}

/* A member's name without "./" in front; "" for the archive's own root. */
static const char *plain_name(const char *name)
{
    while (name[0] == '.' && name[1] == '/')
        name += 2;
    return strcmp(name, ".") == 0 ? "" : name;
}

static const char *kind(mode_t type)
{
    return type == AE_IFLNK ? "a symbolic link" : type == AE_IFCHR ? "a character device"
         : type == AE_IFBLK ? "a block device" : type == AE_IFIFO ? "a FIFO" : type == AE_IFSOCK ? "a socket"
         : type == AE_IFDIR ? "a directory" : "not a regular file";
}

/* The member's data into a new file of its name in dfd, at most max bytes. */
static int copy_member(const struct pm_archive *ar, struct archive *a, int dfd, const char *name, int64_t max,
                       struct pm_err *err)
{
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", name, strerror(errno));
    char buf[65536];
    int64_t total = 0;
    int rc = 0;
    for (;;) {
        la_ssize_t n = ar->read_data(a, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0) {
            rc = pm_errf(err, "%s: %s", name, ar->error_string(a));
            quote_err(err);
            break;
        }
        total += n;
        if (total > max) {
            rc = pm_errf(err, "%s holds more than its %lld bytes", name, (long long)max);
            break;
        }
        for (char *p = buf; n > 0;) {
            ssize_t w = write(fd, p, (size_t)n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                rc = pm_errf(err, "%s: %s", name, strerror(errno));
                break;
            }
            p += w;
            n -= w;
        }
        if (rc < 0)
            break;
    }
    if (close(fd) < 0 && rc == 0)
        rc = pm_errf(err, "%s: %s", name, strerror(errno));
    return rc;
}

/* One member: the root directory is passed over, a regular file of a
 * known name is written once; anything else refuses the archive. */
static int take_member(const struct pm_archive *ar, struct archive *a, struct archive_entry *e, int dfd, bool *taken,
                       struct pm_err *err)
{
    char shown[1100];
    quote_terminal(ar->entry_pathname(e) ? ar->entry_pathname(e) : "", shown, sizeof shown);
    const char *name = plain_name(ar->entry_pathname(e) ? ar->entry_pathname(e) : "");
    mode_t type = ar->entry_filetype(e);
    if (!name[0] && type == AE_IFDIR)
        return 0;
    if (ar->entry_hardlink(e) || type != AE_IFREG)
        return pm_errf(err, "member '%s' is %s (accepted: regular files)", shown,
                       ar->entry_hardlink(e) ? "a hard link" : kind(type));
    size_t i = 0;
    while (i < NMEMBERS && strcmp(name, members[i].name) != 0)
        i++;
    if (i == NMEMBERS)
        return pm_errf(err, "member '%s' is not one the guest writes (accepted: results.db, status, guest.log, "
                       "dmesg.txt)", shown);
    if (taken[i])
        return pm_errf(err, "member '%s' comes twice", shown);
    taken[i] = true;
    if (!ar->entry_size_is_set(e) || ar->entry_size(e) < 0 || ar->entry_size(e) > members[i].max)
        return pm_errf(err, "member '%s' is larger than its %lld bytes", shown, (long long)members[i].max);
    return copy_member(ar, a, dfd, members[i].name, members[i].max, err);
}

int results_unpack(const char *image, const char *dir, struct pm_err *err)
{
    const struct pm_archive *ar = pm_archive_lib(err);
    if (!ar)
        return -1;
    int dfd = pm_open_private_dir(dir, false, err);
    if (dfd < 0)
        return -1;
    /* O_NONBLOCK: a FIFO in the image's place must not hold us at open. */
    int fd = open(image, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        pm_errf(err, "%s: %s", image, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        close(dfd);
        return -1;
    }
    struct archive *a = ar->read_new();
    bool taken[NMEMBERS] = { false };
    int rc = 0;
    /* Plain tar only: no filter is enabled, so a compressed archive (one
     * that would expand past the disk) is not a tar archive here. */
    if (!a || ar->read_support_format_tar(a) != ARCHIVE_OK ||
        ar->read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
        rc = pm_errf(err, "the results are not a tar archive (%s)", a ? ar->error_string(a) : "out of memory");
        quote_err(err);
    } else {
        struct archive_entry *e;
        int r;
        while (rc == 0 && (r = ar->read_next_header(a, &e)) == ARCHIVE_OK)
            rc = take_member(ar, a, e, dfd, taken, err);
        if (rc == 0 && r != ARCHIVE_EOF) {
            rc = pm_errf(err, "the results archive is broken (%s)", ar->error_string(a));
            quote_err(err);
        }
    }
    if (a)
        ar->read_free(a);
    close(fd);
    /* Refused whole: nothing of it is left to be merged. */
    for (size_t i = 0; rc < 0 && i < NMEMBERS; i++)
        if (taken[i])
            unlinkat(dfd, members[i].name, 0);
    close(dfd);
    return rc;
}
