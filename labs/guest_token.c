#include "labs/guest_token.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TOKEN_MAX 512
#define TOKEN_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/-"

/* Does sys_block/name/serial say GUEST_TOKEN_SERIAL (a newline after it or not)? */
static int is_token_disk(const char *sys_block, const char *name)
{
    char path[512], serial[64];
    snprintf(path, sizeof path, "%s/%s/serial", sys_block, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, serial, sizeof serial - 1);
    close(fd);
    if (n <= 0)
        return 0;
    serial[n] = '\0';
    serial[strcspn(serial, "\n")] = '\0';
    return strcmp(serial, GUEST_TOKEN_SERIAL) == 0;
}

/* The first line of the device, judged; token gets it. */
static int read_first_line(const char *path, char *token, size_t len, struct pm_err *err)
{
    /* One byte past the longest token: its end must be in sight. */
    char buf[TOKEN_MAX + 2];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return pm_errf(err, "%s: cannot open (%s)", path, strerror(errno));
    size_t n = 0;
    while (n < sizeof buf - 1) {
        ssize_t got = read(fd, buf + n, sizeof buf - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    size_t end = 0;
    while (end < n && buf[end] != '\n' && buf[end] != '\0')
        end++;
    int rc = 0;
    if (end > TOKEN_MAX)
        rc = pm_errf(err, "%s: its first line is longer than %d bytes (accepted: a token of 16 to %d of "
                     "A-Z a-z 0-9 . _ ~ + / -)", path, TOKEN_MAX, TOKEN_MAX);
    else if (end < 16 || end >= len || strspn(buf, TOKEN_CHARS) < end)
        rc = pm_errf(err, "%s: its first line is not a token (accepted: 16 to %d of A-Z a-z 0-9 . _ ~ + / -)", path,
                     TOKEN_MAX);
    else {
        memcpy(token, buf, end);
        token[end] = '\0';
    }
    explicit_bzero(buf, sizeof buf);
    return rc;
}

int lava_guest_token_find(const char *sys_block, const char *dev, char *token, size_t len, struct pm_err *err)
{
    token[0] = '\0';
    DIR *d = opendir(sys_block);
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (strncmp(e->d_name, "vd", 2) != 0 || !is_token_disk(sys_block, e->d_name))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dev, e->d_name);
        rc = read_first_line(path, token, len, err) < 0 ? -1 : 1;
    }
    closedir(d);
    return rc;
}
