/* A tree emptied without following links (rmtree.h). */
#include "lib/rmtree.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define MAX_DEPTH 64

static int empty_fd(int dfd, int depth);

/* The entry name of the directory dfd, a directory's contents first. */
static int remove_entry(int dfd, const char *name, int depth)
{
    if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0)
        return -1;
    int r = empty_fd(sub, depth + 1);
    if (r == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        r = -1;
    return r;
}

/* Takes dfd (closed here). */
static int empty_fd(int dfd, int depth)
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
            remove_entry(dirfd(d), e->d_name, depth) < 0 && r == 0) {
            r = -1;
            first = errno;
        }
    closedir(d);
    errno = first;
    return r;
}

int pm_empty_tree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    return empty_fd(fd, 0);
}
