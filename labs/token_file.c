#include "labs/token_file.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why a token file is not private enough, or 0. */
static int file_problem(const struct token_rule *r, const char *path, const struct stat *st, struct pm_err *err)
{
    if (!S_ISREG(st->st_mode))
        return pm_errf(err, "%s = %s: not a regular file (%s); accepted: a file only its owner can read", r->key,
                       path, S_ISDIR(st->st_mode) ? "a directory" : "a device, FIFO or socket");
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return pm_errf(err, "%s = %s: owned by uid %u, neither you (uid %u) nor root; accepted: "
                       "a file of yours only you can read (chmod 600 %s)", r->key, path, (unsigned)st->st_uid,
                       (unsigned)geteuid(), path);
    if (st->st_mode & 077)
        return pm_errf(err, "%s = %s: %s by others (mode %04o); accepted: a file only its owner can "
                       "read (chmod 600 %s)", r->key, path, st->st_mode & 044 ? "readable" : "writable",
                       (unsigned)(st->st_mode & 07777), path);
    return 0;
}

/* The token's characters: never echoed, a message says where it is wrong. */
static int text_problem(const struct token_rule *r, const char *path, char *text, size_t n, struct pm_err *err)
{
    if (n && text[n - 1] == '\n')
        text[--n] = '\0';
    if (n == 0)
        return pm_errf(err, "%s = %s: empty; %s", r->key, path, r->accepted);
    if (n > r->max)
        return pm_errf(err, "%s = %s: longer than %zu characters; %s", r->key, path, r->max, r->accepted);
    if (strspn(text, r->chars) < n)
        return pm_errf(err, "%s = %s: not one line of the token's characters; %s", r->key, path, r->accepted);
    if (n < r->min)
        return pm_errf(err, "%s = %s: shorter than %zu characters; %s", r->key, path, r->min, r->accepted);
    return 0;
}

/* Up to len - 1 bytes of fd into text, NUL-terminated; its length in *n. */
static int read_text(const struct token_rule *r, const char *path, int fd, char *text, size_t len, size_t *n,
                     struct pm_err *err)
{
    *n = 0;
    while (*n < len - 1) {
        ssize_t got = read(fd, text + *n, len - 1 - *n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return pm_errf(err, "%s = %s: %s", r->key, path, strerror(errno));
        if (got == 0)
            break;
        *n += (size_t)got;
    }
    text[*n] = '\0';
    return 0;
}

/* Opened without following a link and without blocking on a FIFO, and
 * judged on what was opened. */
int token_file_read(const struct token_rule *r, const char *path, char *token, size_t len, struct pm_err *err)
{
    /* Judged before it is opened: opening a device (a watchdog, a tape)
     * can do something of its own. */
    struct stat lst;
    if (lstat(path, &lst) == 0 && !S_ISLNK(lst.st_mode) && !S_ISREG(lst.st_mode))
        return file_problem(r, path, &lst, err);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ELOOP)
        return pm_errf(err, "%s = %s: a symbolic link; accepted: the file itself, only its owner can "
                       "read it (chmod 600)", r->key, path);
    if (fd < 0)
        return pm_errf(err, "%s = %s: cannot open (%s)", r->key, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return pm_errf(err, "%s = %s: %s", r->key, path, strerror(e));
    }
    char text[520];
    size_t n = 0;
    int rc = file_problem(r, path, &st, err);
    if (rc == 0)
        rc = read_text(r, path, fd, text, sizeof text, &n, err);
    close(fd);
    if (rc == 0 && strlen(text) != n)
        rc = pm_errf(err, "%s = %s: holds a NUL byte; %s", r->key, path, r->accepted);
    if (rc == 0)
        rc = text_problem(r, path, text, n, err);
    if (rc == 0 && strlen(text) >= len)
        rc = pm_errf(err, "%s = %s: longer than %zu characters; %s", r->key, path, len - 1, r->accepted);
    if (rc == 0)
        snprintf(token, len, "%s", text);
    explicit_bzero(text, sizeof text);
    return rc;
}
