#include "store/fetch.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/hash.h"
#include "lib/http.h"



/* The download goes into a file with no name, O_TMPFILE in the cache's
 * own directory, and is named only once it is whole: a fetch killed part
 * way leaves nothing behind. Where the file system has no O_TMPFILE, a
 * name of its own beside the cached copy (*tmp), which a kill leaves. */
static FILE *open_download(const char *dir, const char *path, char *tmp, size_t len)
{
    tmp[0] = '\0';
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        snprintf(tmp, len, "%s.partXXXXXX", path);
        fd = mkstemp(tmp);
        if (fd < 0)
            tmp[0] = '\0';
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (!f && fd >= 0) {
        int e = errno;
        close(fd);
        if (tmp[0])
            unlink(tmp);
        tmp[0] = '\0';
        errno = e;
    }
    return f;
}

/* The whole download at path: linkat never replaces, so straight there
 * when nothing is cached, else under a name of this process's, renamed
 * over the cached copy (one such name a dead process with this pid left
 * is removed first: no live process has it). */
static int name_download(FILE *out, const char *tmp, const char *path)
{
    if (tmp[0])
        return rename(tmp, path);
    char self[64], named[4500];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fileno(out));
    if (linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
        return 0;
    if (errno != EEXIST)
        return -1;
    snprintf(named, sizeof named, "%s.new%d", path, (int)getpid());
    unlink(named);
    if (linkat(AT_FDCWD, self, AT_FDCWD, named, AT_SYMLINK_FOLLOW) < 0)
        return -1;
    if (rename(named, path) < 0) {
        int e = errno;
        unlink(named);
        errno = e;
        return -1;
    }
    return 0;
}

/* A downloaded body replaces the cached copy only when it is an SQLite
 * file: a proxy's error page never replaces a good baseline. */
static int keep_download(const char *url, FILE *out, const char *tmp, const char *path,
                         const struct http_response *rs, const char *etag_path, const char *lm_path,
                         struct pm_err *err)
{
    char magic[16] = "";
    ssize_t n = pread(fileno(out), magic, sizeof magic, 0);
    if (n != 16 || memcmp(magic, "SQLite format 3", 16) != 0)
        return pm_errf(err, "%s: the server's answer is not an SQLite database", url);
    if (name_download(out, tmp, path) < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    FILE *e = fopen(etag_path, "w");
    if (e) {
        fputs(rs->etag, e);
        fclose(e);
    }
    FILE *l = fopen(lm_path, "w");
    if (l) {
        fputs(rs->last_modified, l);
        fclose(l);
    }
    return 0;
}

static int local_baseline(const char *url, char *path, size_t len, char *how, size_t hlen, struct pm_err *err)
{
    const char *local = strncmp(url, "file://", 7) == 0 ? url + 7 : url;
    if (!pm_path_exists(local))
        return pm_errf(err, "%s: %s", local, strerror(ENOENT));
    snprintf(path, len, "%s", local);
    snprintf(how, hlen, "local file");
    return 0;
}

int fetch_baseline(const char *url, uint64_t max_bytes, char *path, size_t len, char *how, size_t hlen,
                   struct pm_err *err)
{
    if (strncmp(url, "file://", 7) == 0 || !strstr(url, "://"))
        return local_baseline(url, path, len, how, hlen, err);
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return pm_errf(err, "'%s' is not a baseline address (accepted: a path, file://, http:// or https:// URL)", url);
    char root[4096], dir[4200], etag_path[4400], lm_path[4400], tmp[4400];
    if (pm_cache_dir(root, sizeof root, err) < 0)
        return -1;
    snprintf(dir, sizeof dir, "%s/baselines", root);
    if (pm_mkdirs(dir) < 0)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    snprintf(path, len, "%s/%016llx.db", dir, (unsigned long long)pm_fnv1a(PM_FNV1A_INIT, url, strlen(url)));
    snprintf(etag_path, sizeof etag_path, "%s.etag", path);
    snprintf(lm_path, sizeof lm_path, "%s.last-modified", path);
    bool cached = pm_path_exists(path);
    char etag[512] = "", lm[128] = "", if_etag[700] = "", if_lm[300] = "";
    const char *headers[3] = { NULL, NULL, NULL };
    size_t nh = 0;
    if (cached && pm_read_file(etag_path, etag, sizeof etag) == 0 && etag[0]) {
        snprintf(if_etag, sizeof if_etag, "If-None-Match: %s", etag);
        headers[nh++] = if_etag;
    }
    if (cached && pm_read_file(lm_path, lm, sizeof lm) == 0 && lm[0]) {
        snprintf(if_lm, sizeof if_lm, "If-Modified-Since: %s", lm);
        headers[nh++] = if_lm;
    }
    FILE *out = open_download(dir, path, tmp, sizeof tmp);
    if (!out)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    struct http_request rq = { .url = url, .headers = headers, .out = out, .timeout_s = 600,
                               .follow_redirects = true, .max_bytes = max_bytes };
    struct http_response rs;
    int result = http_perform(&rq, &rs, err);
    if (fflush(out) != 0 && result == 0)
        result = pm_errf(err, "%s: %s", dir, strerror(errno));
    if (result < 0)
        ;
    else if (rs.code == 304 && cached)
        snprintf(how, hlen, "from the cache, 304 Not Modified");
    else if (rs.code >= 400)
        result = pm_errf(err, "%s: HTTP %ld%s", url, rs.code,
                         rs.code == 404 ? " Not Found" : rs.code == 403 ? " Forbidden" : "");
    else if (rs.code != 200)
        result = pm_errf(err, "%s: unexpected HTTP %ld", url, rs.code);
    else if ((result = keep_download(url, out, tmp, path, &rs, etag_path, lm_path, err)) == 0)
        snprintf(how, hlen, "downloaded, HTTP 200");
    http_response_free(&rs);
    if (fclose(out) != 0 && result == 0)
        result = pm_errf(err, "%s: %s", path, strerror(errno));
    if (tmp[0])
        unlink(tmp);            /* what was not renamed (after a rename: gone already) */
    return result;
}
