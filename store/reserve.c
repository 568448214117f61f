#include "store/reserve.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>
#include <stdio.h>
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
    snprintf(r->path, sizeof r->path, "%s.reserve", db_path);
    FILE *f = pm_create_file(r->path);
    if (!f)
        return;
    /* On a filesystem already nearly full, a smaller reserve still helps. */
    bool ok = false;
    for (off_t bytes = PM_RESERVE_BYTES; !ok && bytes >= PM_RESERVE_BYTES / 16; bytes /= 4)
        ok = ftruncate(fileno(f), 0) == 0 && allocate(fileno(f), bytes);
    if (fclose(f) != 0 || !ok) {
        unlink(r->path);
        return;
    }
    r->held = true;
}

void db_reserve_release(struct db_reserve *r)
{
    if (!r->held)
        return;
    unlink(r->path);
    r->held = false;
}
