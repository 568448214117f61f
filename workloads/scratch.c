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
#include "lib/quote.h"
#include "pressure/undo.h"
#include "pressure/undo_line.h"

/* What a refusal shows of a name the operator or the environment gave:
 * its control characters escaped, so one line stays one line. */
struct shown {
    char s[4 * 256 + 1];
};

static const char *show(struct shown *b, const char *s)
{
    quote_terminal(s, b->s, sizeof b->s);
    return b->s;
}

/* The place itself: not a link (lstat; a trailing slash would follow
 * one), a directory, and nobody else's to change. pm_trusted_path says
 * the same of it and every directory above it, in words about what is
 * below: here the operator named it, so the error names it. */
static int check_place(const char *given, const char *what, struct pm_err *err)
{
    char name[PATH_MAX];
    struct shown g;
    if ((size_t)snprintf(name, sizeof name, "%s", given) >= sizeof name)
        return pm_errf(err, "%s: '%.64s...' is too long a path", what, show(&g, given));
    for (size_t n = strlen(name); n > 1 && name[n - 1] == '/'; n--)
        name[n - 1] = '\0';
    struct stat st;
    if (lstat(name, &st) < 0)
        return pm_errf(err, "%s: '%s': %s", what, show(&g, given), strerror(errno));
    if (S_ISLNK(st.st_mode))
        return pm_errf(err, "%s: '%s' is a symbolic link (accepted: the directory itself, one only root or this "
                       "user can change)", what, show(&g, given));
    if (!S_ISDIR(st.st_mode))
        return pm_errf(err, "%s: '%s' is not a directory", what, show(&g, given));
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return pm_errf(err, "%s: '%s' is owned by uid %u (accepted: a directory of root's or this user's)", what,
                       show(&g, given), (unsigned)st.st_uid);
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
        return pm_errf(err, "%s: '%s' is writable by other users (mode %04o; accepted: a directory nobody else can "
                       "write, or sticky as /tmp)", what, show(&g, given), (unsigned)(st.st_mode & 07777));
    return 0;
}

/* given as an absolute path with no empty, "." or ".." component, ".."
 * taken as the directory above (lexically, no link read): what the path
 * names when none of its components is a link. A relative path is taken
 * from the working directory. -1 when it does not fit. */
static int clean_lexically(const char *given, char *out, size_t len)
{
    char cwd[PATH_MAX];
    size_t o = 0;
    if (given[0] != '/') {
        if (!getcwd(cwd, sizeof cwd) || strlen(cwd) >= len)
            return -1;
        o = strcmp(cwd, "/") == 0 ? 0 : strlen(cwd);   /* (a component appends its own slash) */
        memcpy(out, cwd, o);
    }
    out[o] = '\0';
    for (const char *c = given; *c;) {
        c += strspn(c, "/");
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            char *up = strrchr(out, '/');
            o = up ? (size_t)(up - out) : 0;
        } else if (n && !(n == 1 && c[0] == '.')) {
            if (o + 1 + n >= len)
                return -1;
            out[o++] = '/';
            memcpy(out + o, c, n);
            o += n;
        }
        out[o] = '\0';
        c += n;
    }
    if (!o)
        snprintf(out, len, "/");
    return 0;
}

/* The place named, and the name that named it in p->said: the option,
 * TMPDIR, or the option's default. */
static const char *choose_place(const char *given, const char *what, struct wl_place *p)
{
    const char *tmp = getenv("TMPDIR");
    if (given[0]) {
        snprintf(p->said, sizeof p->said, "%s", what);
        return given;
    }
    if (tmp && tmp[0] == '/') {
        snprintf(p->said, sizeof p->said, "TMPDIR");
        return tmp;
    }
    snprintf(p->said, sizeof p->said, "%s's default", what);
    return WL_SCRATCH_DEFAULT;
}

int wl_scratch_place(const char *given, const char *what, struct wl_place *p, struct pm_err *err)
{
    const char *place = choose_place(given, what, p);
    char real[PATH_MAX], clean[PATH_MAX];
    struct shown g, r;
    p->path[0] = '\0';
    if (check_place(place, p->said, err) < 0)
        return -1;
    if (!realpath(place, real))
        return pm_errf(err, "%s: '%s': %s", p->said, show(&g, place), strerror(errno));
    /* check_place looked at the last component only: a link above it
     * would put root's files wherever its owner points it. */
    if (clean_lexically(place, clean, sizeof clean) < 0 || strcmp(clean, real) != 0)
        return pm_errf(err, "%s: '%s' passes through a symbolic link (it is %s; accepted: a path with none)", p->said,
                       show(&g, place), show(&r, real));
    struct pm_err terr;
    if (pm_trusted_path(real, &terr) < 0)
        return pm_errf(err, "%s: %s", p->said, terr.msg);
    if (strlen(real) >= sizeof p->path)
        return pm_errf(err, "%s: '%.64s...' is too long a path", p->said, show(&g, real));
    snprintf(p->path, sizeof p->path, "%s", real);
    return 0;
}

int wl_scratch_make(struct wl_scratch *s, const char *place, const char *name, struct pm_err *err)
{
    s->dir[0] = '\0';
    s->undo = -1;
    /* "/" ends in its slash already: "//pressmark-..." would be a line the
     * journal's recovery refuses (an empty component). */
    const char *sep = place[0] && place[strlen(place) - 1] == '/' ? "" : "/";
    /* The journal's line first, then the directory: a kill between the two
     * leaves a line whose directory is not there, which recovery passes
     * over. A name that is taken is someone else's: its line goes unapplied. */
    for (int tries = 0; tries < 16; tries++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            return pm_errf(err, "getrandom: %s", strerror(errno));
        char dir[PATH_MAX];
        int n = snprintf(dir, sizeof dir, "%s%spressmark-%s.%02x%02x%02x%02x%02x%02x", place, sep, name, r[0], r[1],
                         r[2], r[3], r[4], r[5]);
        if (n < 0 || (size_t)n >= sizeof dir)
            return pm_errf(err, "%s: too long a path for a scratch directory", place);
        /* A line recovery would refuse is a directory nothing removes
         * after a kill, and recovery stops reading at it. */
        if (!undo_place_ours(UNDO_SCRATCH, dir))
            return pm_errf(err, "%s: not a path the undo journal can hold", dir);
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
