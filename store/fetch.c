#include "store/fetch.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/hash.h"
#include "lib/http.h"



/* A downloaded body replaces the cached copy only when it is an SQLite
 * file: a proxy's error page never replaces a good baseline. */
static int keep_download(const char *url, const char *tmp, const char *path, const struct http_response *rs,
                         const char *etag_path, const char *lm_path, struct pm_err *err)
{
    char magic[16] = "";
    FILE *t = fopen(tmp, "rb");
    size_t n = t ? fread(magic, 1, sizeof magic, t) : 0;
    if (t)
        fclose(t);
    if (n != 16 || memcmp(magic, "SQLite format 3", 16) != 0)
        return pm_errf(err, "%s: the server's answer is not an SQLite database", url);
    if (rename(tmp, path) < 0)
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
    snprintf(tmp, sizeof tmp, "%s.part%d", path, (int)getpid());
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
    FILE *out = fopen(tmp, "wb");
    if (!out)
        return pm_errf(err, "%s: %s", tmp, strerror(errno));
    struct http_request rq = { .url = url, .headers = headers, .out = out, .timeout_s = 600,
                               .follow_redirects = true, .max_bytes = max_bytes };
    struct http_response rs;
    int result = http_perform(&rq, &rs, err);
    if (fclose(out) != 0 && result == 0)
        result = pm_errf(err, "%s: %s", tmp, strerror(errno));
    if (result < 0)
        ;
    else if (rs.code == 304 && cached)
        snprintf(how, hlen, "from the cache, 304 Not Modified");
    else if (rs.code >= 400)
        result = pm_errf(err, "%s: HTTP %ld%s", url, rs.code,
                         rs.code == 404 ? " Not Found" : rs.code == 403 ? " Forbidden" : "");
    else if (rs.code != 200)
        result = pm_errf(err, "%s: unexpected HTTP %ld", url, rs.code);
    else if ((result = keep_download(url, tmp, path, &rs, etag_path, lm_path, err)) == 0)
        snprintf(how, hlen, "downloaded, HTTP 200");
    http_response_free(&rs);
    unlink(tmp);
    return result;
}
