#include "labs/lava.h"
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define URL_ACCEPTED "accepted: http://HOST[:PORT][/PATH] or https://..., without user:password, query or fragment"
#define TOKEN_ACCEPTED "accepted: one line of 1 to 255 characters of A-Z a-z 0-9 . _ -"

static const char token_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";

/* Is this part of the URL there, as libcurl reads it? */
static bool has_part(CURLU *u, CURLUPart part)
{
    char *p = NULL;
    bool has = curl_url_get(u, part, &p, 0) == CURLUE_OK;
    curl_free(p);
    return has;
}

/* The URL's checks on libcurl's own reading of it (the reader that will
 * send the requests), so text that only looks like a host cannot pass. A
 * URL with a user:password is never echoed: its password would go into
 * logs with the message. */
static int url_problem(CURLU *u, const char *url, struct pm_err *err)
{
    char *scheme = NULL;
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK)
        return pm_errf(err, "lava-url = %s: not a URL; " URL_ACCEPTED, url);
    bool web = strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0;
    curl_free(scheme);
    if (!web)
        return pm_errf(err, "lava-url = %s: not http or https; " URL_ACCEPTED, url);
    if (has_part(u, CURLUPART_USER) || has_part(u, CURLUPART_PASSWORD)) {
        char *bare = NULL;
        curl_url_set(u, CURLUPART_USER, NULL, 0);
        curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
        int rc = pm_errf(err, "lava-url = %s (with a user:password): " URL_ACCEPTED "; the token goes in lava-token-file",
                         curl_url_get(u, CURLUPART_URL, &bare, 0) == CURLUE_OK ? bare : "(the URL)");
        curl_free(bare);
        return rc;
    }
    if (has_part(u, CURLUPART_QUERY) || has_part(u, CURLUPART_FRAGMENT))
        return pm_errf(err, "lava-url = %s: has a query or fragment; " URL_ACCEPTED, url);
    return 0;
}

/* The server's root as libcurl writes it, ending in '/', so the API's
 * paths are appended to it. */
static int check_url(const char *url, char *out, size_t len, struct pm_err *err)
{
    if (!url || !*url)
        return pm_errf(err, "lava-url: none given; " URL_ACCEPTED);
    CURLU *u = curl_url();
    if (!u)
        return pm_errf(err, "out of memory");
    char *norm = NULL;
    int rc;
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK)
        rc = pm_errf(err, "lava-url = %s: not a URL; " URL_ACCEPTED, url);
    else if ((rc = url_problem(u, url, err)) == 0) {
        if (curl_url_get(u, CURLUPART_URL, &norm, 0) != CURLUE_OK)
            rc = pm_errf(err, "lava-url = %s: not a URL; " URL_ACCEPTED, url);
        else {
            size_t n = strlen(norm);
            bool slash = n && norm[n - 1] == '/';
            if (n + !slash >= len)
                rc = pm_errf(err, "lava-url = %.100s...: longer than %zu characters; " URL_ACCEPTED, url, len - 2);
            else
                snprintf(out, len, "%s%s", norm, slash ? "" : "/");
        }
    }
    curl_free(norm);
    curl_url_cleanup(u);
    return rc;
}

/* Why a token file is not private enough, or 0. */
static int token_file_problem(const char *path, const struct stat *st, struct pm_err *err)
{
    if (!S_ISREG(st->st_mode))
        return pm_errf(err, "lava-token-file = %s: not a regular file (%s); accepted: a file only its owner can read",
                       path, S_ISDIR(st->st_mode) ? "a directory" : "a device, FIFO or socket");
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return pm_errf(err, "lava-token-file = %s: owned by uid %u, neither you (uid %u) nor root; accepted: "
                       "a file of yours only you can read (chmod 600 %s)", path, (unsigned)st->st_uid,
                       (unsigned)geteuid(), path);
    if (st->st_mode & 077)
        return pm_errf(err, "lava-token-file = %s: %s by others (mode %04o); accepted: a file only its owner can "
                       "read (chmod 600 %s)", path, st->st_mode & 044 ? "readable" : "writable",
                       (unsigned)(st->st_mode & 07777), path);
    return 0;
}

/* The token's characters: never echoed, a message says where it is wrong. */
static int token_text_problem(const char *path, char *text, size_t n, struct pm_err *err)
{
    if (n && text[n - 1] == '\n')
        text[--n] = '\0';
    if (n == 0)
        return pm_errf(err, "lava-token-file = %s: empty; " TOKEN_ACCEPTED, path);
    if (n > 255)
        return pm_errf(err, "lava-token-file = %s: longer than 255 characters; " TOKEN_ACCEPTED, path);
    size_t good = strspn(text, token_chars);
    if (good < n)
        return pm_errf(err, "lava-token-file = %s: not one line of the token's characters; " TOKEN_ACCEPTED, path);
    return 0;
}

/* The token, from a file only its owner reads: opened without following a
 * link and without blocking on a FIFO, and judged on what was opened. */
static int read_token(const char *path, char *token, size_t len, struct pm_err *err)
{
    /* Judged before it is opened: opening a device (a watchdog, a tape)
     * can do something of its own. */
    struct stat lst;
    if (lstat(path, &lst) == 0 && !S_ISLNK(lst.st_mode) && !S_ISREG(lst.st_mode))
        return token_file_problem(path, &lst, err);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ELOOP)
        return pm_errf(err, "lava-token-file = %s: a symbolic link; accepted: the file itself, only its owner can "
                       "read it (chmod 600)", path);
    if (fd < 0)
        return pm_errf(err, "lava-token-file = %s: cannot open (%s)", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return pm_errf(err, "lava-token-file = %s: %s", path, strerror(e));
    }
    int rc = token_file_problem(path, &st, err);
    char text[260];
    size_t n = 0;
    while (rc == 0 && n < sizeof text - 1) {
        ssize_t r = read(fd, text + n, sizeof text - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            rc = pm_errf(err, "lava-token-file = %s: %s", path, strerror(errno));
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    text[n] = '\0';
    if (rc == 0 && strlen(text) != n)
        rc = pm_errf(err, "lava-token-file = %s: holds a NUL byte; " TOKEN_ACCEPTED, path);
    if (rc == 0)
        rc = token_text_problem(path, text, n, err);
    if (rc == 0)
        snprintf(token, len, "%s", text);
    explicit_bzero(text, sizeof text);
    return rc;
}

int lava_lab_open(struct lava_lab *lab, const char *url, const char *token_file, struct pm_err *err)
{
    memset(lab, 0, sizeof *lab);
    if (check_url(url, lab->url, sizeof lab->url, err) < 0)
        return -1;
    if (token_file && read_token(token_file, lab->token, sizeof lab->token, err) < 0) {
        explicit_bzero(lab, sizeof *lab);
        return -1;
    }
    return 0;
}
