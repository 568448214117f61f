#include "store/reserve.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "lib/fileio.h"

static bool allocate(int fd, off_t bytes)
{
    int rc = posix_fallocate(fd, 0, bytes);
    if (rc == EOPNOTSUPP || rc == EINVAL) {
        /* A filesystem without fallocate: the blocks are written instead. */
        static const char zeros[65536];
        for (off_t done = 0; done < bytes; done += (off_t)sizeof zeros)
            if (write(fd, zeros, sizeof zeros) != (ssize_t)sizeof zeros)
                return false;
        return true;
    }
    return rc == 0;
}

void db_reserve_take(struct db_reserve *r, const char *db_path)
{
    r->held = false;
    r->fd = -1;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", db_path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    /* On a filesystem already nearly full, a smaller reserve still helps. */
    bool ok = false;
    for (off_t bytes = PM_RESERVE_BYTES; !ok && bytes >= PM_RESERVE_BYTES / 16; bytes /= 4)
        ok = ftruncate(fd, 0) == 0 && allocate(fd, bytes);
    if (!ok) {
        close(fd);
        return;
    }
    r->fd = fd;
    r->held = true;
}

void db_reserve_release(struct db_reserve *r)
{
    if (!r->held)
        return;
    close(r->fd);
    r->fd = -1;
    r->held = false;
}

int db_reserve_keep(struct db_reserve *r, int dfd, const char *name, const void *data, size_t len)
{
    if (!r->held) {
        errno = ENOENT;
        return -1;
    }
    int rc = pm_link_tmpfile(r->fd, data, len, dfd, name);
    int e = errno;
    db_reserve_release(r);
    errno = e;
    return rc;
}
