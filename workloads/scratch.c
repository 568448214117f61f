/* A run's scratch directory in the operator's place (scratch.h). */
#include "workloads/scratch.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "pressure/undo.h"

/* The place itself: not a link (lstat; a trailing slash would follow
 * one), a directory, and nobody else's to change. pm_trusted_path says
 * the same of it and every directory above it, in words about what is
 * below: here the operator named it, so the error names it. */
static int check_place(const char *given, const char *what, struct pm_err *err)
{
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s", given);
    for (size_t n = strlen(name); n > 1 && name[n - 1] == '/'; n--)
        name[n - 1] = '\0';
    struct stat st;
    if (lstat(name, &st) < 0)
        return pm_errf(err, "%s: '%s': %s", what, given, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return pm_errf(err, "%s: '%s' is a symbolic link (accepted: the directory itself, one only root or this "
                       "user can change)", what, given);
    if (!S_ISDIR(st.st_mode))
        return pm_errf(err, "%s: '%s' is not a directory", what, given);
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return pm_errf(err, "%s: '%s' is owned by uid %u (accepted: a directory of root's or this user's)", what,
                       given, (unsigned)st.st_uid);
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
        return pm_errf(err, "%s: '%s' is writable by other users (mode %04o; accepted: a directory nobody else can "
                       "write, or sticky as /tmp)", what, given, (unsigned)(st.st_mode & 07777));
    return 0;
}

int wl_scratch_place(const char *given, const char *what, char *out, size_t len, struct pm_err *err)
{
    const char *tmp = getenv("TMPDIR");
    const char *place = given[0] ? given : tmp && tmp[0] == '/' ? tmp : "/tmp";
    const char *said = given[0] ? what : tmp && tmp[0] == '/' ? "TMPDIR" : what;
    char real[PATH_MAX];
    if (check_place(place, said, err) < 0)
        return -1;
    if (!realpath(place, real))
        return pm_errf(err, "%s: '%s': %s", said, place, strerror(errno));
    struct pm_err terr;
    if (pm_trusted_path(real, &terr) < 0)
        return pm_errf(err, "%s: %s", said, terr.msg);
    if (strlen(real) >= len)
        return pm_errf(err, "%s: '%s' is too long a path", said, real);
    snprintf(out, len, "%s", real);
    return 0;
}

int wl_scratch_make(struct wl_scratch *s, const char *place, const char *name, struct pm_err *err)
{
    s->dir[0] = '\0';
    s->undo = -1;
    /* The journal's line first, then the directory: a kill between the two
     * leaves a line whose directory is not there, which recovery passes
     * over. A name that is taken is someone else's: its line goes unapplied. */
    for (int tries = 0; tries < 16; tries++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            return pm_errf(err, "getrandom: %s", strerror(errno));
        char dir[PATH_MAX];
        int n = snprintf(dir, sizeof dir, "%s/pressmark-%s.%02x%02x%02x%02x%02x%02x", place, name, r[0], r[1], r[2],
                         r[3], r[4], r[5]);
        if (n < 0 || (size_t)n >= sizeof dir)
            return pm_errf(err, "%s: too long a path for a scratch directory", place);
        int id = undo_push(UNDO_SCRATCH, dir, UNDO_SCRATCH_ALL, err);
        if (id < 0)
            return -1;
        if (mkdir(dir, 0700) == 0) {
            snprintf(s->dir, sizeof s->dir, "%s", dir);
            s->undo = id;
            return 0;
        }
        int e = errno;
        undo_done(id);
        if (e != EEXIST)
            return pm_errf(err, "%s: %s", dir, strerror(e));
    }
    return pm_errf(err, "%s: no free name for a scratch directory in 16 tries", place);
}

void wl_scratch_remove(struct wl_scratch *s)
{
    if (s->undo < 0)
        return;
    char said[1024];
    if (undo_apply(UNDO_SCRATCH, s->dir, UNDO_SCRATCH_ALL, said, sizeof said) == 0)
        undo_done(s->undo);
    s->undo = -1;
}
