/* PostgreSQL's programs (pgbin.h). */
#include "workloads/pgbin.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"

#define DEBIAN_ROOT "/usr/lib/postgresql"

/* The programs, in the order a missing one is named. */
static const char *const pg_programs[] = { "postgres", "initdb", "pgbench", NULL };

/* The first of pg_programs dir lacks (as a regular executable file), NULL
 * when it has them all. */
static const char *lacks(const char *dir)
{
    for (size_t i = 0; pg_programs[i]; i++) {
        char path[4200];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, pg_programs[i]);
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) < 0)
            return pg_programs[i];
    }
    return NULL;
}

static bool from_path(char *out, size_t len)
{
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        /* An empty or relative entry is the working directory: never a
         * place to take a server for another user from. */
        if (n && p[0] == '/' && (size_t)snprintf(out, len, "%.*s", (int)n, p) < len && !lacks(out))
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

/* Debian's newest version directory (a whole number) that holds every
 * program into out, 0; else the newest of any into out ("" when none),
 * -1. */
static int newest_debian(char *out, size_t len)
{
    out[0] = '\0';
    DIR *d = opendir(DEBIAN_ROOT);
    if (!d)
        return -1;
    long best = -1, any = -1;
    char dir[64];
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || *end || v >= 100000)
            continue;
        snprintf(dir, sizeof dir, DEBIAN_ROOT "/%ld/bin", v);
        bool whole = !lacks(dir);
        if ((whole && v > best) || (best < 0 && v > any))
            snprintf(out, len, "%s", dir);
        if (whole && v > best)
            best = v;
        if (v > any)
            any = v;
    }
    closedir(d);
    return best >= 0 ? 0 : -1;
}

/* pm_trusted_path of real (resolved), said of dir's programs. */
static int trusted_below(const char *dir, const char *real, struct pm_err *err)
{
    char why[sizeof err->msg];
    if (pm_trusted_path(real, err) == 0)
        return 0;
    snprintf(why, sizeof why, "%s", err->msg);
    return pm_errf(err, "PostgreSQL's programs in %s: %s", dir, why);
}

/* May dir's programs run for root: the file each resolves to, and the
 * directories down to it and to dir (links resolved: merged /usr has
 * /bin a link), root's or this user's, changeable by nobody else? A
 * program another user could replace would run as the server's user with
 * the run's password and make its figures. -1 with err naming the first
 * that may not. */
static int trusted(const char *dir, struct pm_err *err)
{
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    if (trusted_below(dir, real, err) < 0)
        return -1;
    for (size_t i = 0; pg_programs[i]; i++) {
        char path[PATH_MAX + 64];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, pg_programs[i]);
        if (!realpath(path, real) || stat(real, &st) < 0)
            return pm_errf(err, "%s: %s", path, strerror(errno));
        if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022))
            return pm_errf(err, "PostgreSQL's programs in %s: %s is one another user could change (owner %u, mode "
                           "%04o; accepted: root's or this user's, writable by nobody else)", dir, real,
                           (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        char *slash = strrchr(real, '/');
        slash[slash == real] = '\0';
        if (trusted_below(dir, real, err) < 0)
            return -1;
    }
    return 0;
}

int pg_find_bindir(char *out, size_t len, struct pm_err *err)
{
    if (from_path(out, len) || newest_debian(out, len) == 0)
        return trusted(out, err);
    return pm_errf(err, "%s is not installed (apt-get install postgresql)", out[0] ? lacks(out) : pg_programs[0]);
}
