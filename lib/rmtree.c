/* A tree emptied without following links (rmtree.h). */
#include "lib/rmtree.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 64

/* Which mount a directory is on: its device and, where the kernel says
 * (statx's STATX_MNT_ID, Linux 5.8), the mount's id, which tells a bind
 * mount of the same file system from the tree it is in. */
struct mount_of {
    unsigned major, minor;
    uint64_t mnt;
    bool has_mnt;
};

static int mount_of(int fd, struct mount_of *m)
{
    struct statx sx;
    if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) < 0)
        return -1;
    *m = (struct mount_of){ sx.stx_dev_major, sx.stx_dev_minor, sx.stx_mnt_id, (sx.stx_mask & STATX_MNT_ID) != 0 };
    return 0;
}

static bool same_mount(const struct mount_of *a, const struct mount_of *b)
{
    return a->major == b->major && a->minor == b->minor && (!a->has_mnt || !b->has_mnt || a->mnt == b->mnt);
}

static int empty_fd(int dfd, int depth, const struct mount_of *top);

/* The entry name of the directory dfd, a directory's contents first; a
 * directory on another mount (something mounted there) is not entered:
 * what is mounted is not the tree's. */
static int remove_entry(int dfd, const char *name, int depth, const struct mount_of *top)
{
    if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0)
        return -1;
    struct mount_of m;
    int e = mount_of(sub, &m) < 0 ? errno : !same_mount(&m, top) ? EXDEV : 0;
    if (e) {
        close(sub);
        errno = e;
        return -1;
    }
    int r = empty_fd(sub, depth + 1, top);
    if (r == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        r = -1;
    return r;
}

/* Takes dfd (closed here). */
static int empty_fd(int dfd, int depth, const struct mount_of *top)
{
    if (depth > MAX_DEPTH) {
        close(dfd);
        errno = ELOOP;
        return -1;
    }
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        errno = e;
        return -1;
    }
    int r = 0, first = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!(e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) &&
            remove_entry(dirfd(d), e->d_name, depth, top) < 0 && r == 0) {
            r = -1;
            first = errno;
        }
    closedir(d);
    errno = first;
    return r;
}

int pm_empty_tree_fd(int fd)
{
    struct mount_of top;
    if (mount_of(fd, &top) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return empty_fd(fd, 0, &top);
}

int pm_empty_tree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    return pm_empty_tree_fd(fd);
}
