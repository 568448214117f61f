#include "harness/fetch.h"
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness/sysfs.h"
#include "workloads/build_tree.h"

struct headers {
    char etag[512];
    char last_modified[128];
};

static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
    struct headers *h = arg;
    size_t len = size * n;
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), buf);
    line[strcspn(line, "\r\n")] = '\0';
    if (strncasecmp(line, "etag:", 5) == 0)
        snprintf(h->etag, sizeof h->etag, "%s", line + 5 + strspn(line + 5, " "));
    else if (strncasecmp(line, "last-modified:", 14) == 0)
        snprintf(h->last_modified, sizeof h->last_modified, "%s", line + 14 + strspn(line + 14, " "));
    /* A redirect starts a new set of headers: keep only the final ones. */
    else if (strncmp(line, "HTTP/", 5) == 0)
        memset(h, 0, sizeof *h);
    return len;
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}


/* Host part of a URL, for messages. */
static void host_of(const char *url, char *buf, size_t len)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    size_t n = strcspn(p, "/:?#");
    snprintf(buf, len, "%.*s", (int)n, p);
}

int fetch_baseline(const char *url, char *path, size_t len, char *how, size_t hlen, struct pm_err *err)
{
    if (strncmp(url, "file://", 7) == 0 || !strstr(url, "://")) {
        const char *local = strncmp(url, "file://", 7) == 0 ? url + 7 : url;
        if (!pm_path_exists(local))
            return pm_errf(err, "%s: %s", local, strerror(ENOENT));
        snprintf(path, len, "%s", local);
        snprintf(how, hlen, "local file");
        return 0;
    }
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return pm_errf(err, "'%s' is not a baseline address (accepted: a path, file://, http:// or https:// URL)", url);
    char root[4096], dir[4200], etag_path[4400], lm_path[4400], tmp[4400];
    build_tree_cache_root(root, sizeof root);
    snprintf(dir, sizeof dir, "%s/baselines", root);
    if (pm_mkdirs(dir) < 0)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    uint64_t h = fnv(url);
    snprintf(path, len, "%s/%016llx.db", dir, (unsigned long long)h);
    snprintf(etag_path, sizeof etag_path, "%s.etag", path);
    snprintf(lm_path, sizeof lm_path, "%s.last-modified", path);
    snprintf(tmp, sizeof tmp, "%s.part%d", path, (int)getpid());
    bool cached = pm_path_exists(path);
    char etag[512] = "", lm[128] = "";
    if (cached) {
        pm_read_file(etag_path, etag, sizeof etag);
        pm_read_file(lm_path, lm, sizeof lm);
    }
    static bool inited;
    if (!inited) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        inited = true;
    }
    CURL *c = curl_easy_init();
    if (!c)
        return pm_errf(err, "libcurl: cannot start");
    FILE *out = fopen(tmp, "wb");
    if (!out) {
        curl_easy_cleanup(c);
        return pm_errf(err, "%s: %s", tmp, strerror(errno));
    }
    struct curl_slist *hdrs = NULL;
    char line[700];
    if (cached && etag[0]) {
        snprintf(line, sizeof line, "If-None-Match: %s", etag);
        hdrs = curl_slist_append(hdrs, line);
    }
    if (cached && lm[0]) {
        snprintf(line, sizeof line, "If-Modified-Since: %s", lm);
        hdrs = curl_slist_append(hdrs, line);
    }
    struct headers got = { "", "" };
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 600L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "pressmark/0.1");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &got);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(c);
    curl_slist_free_all(hdrs);
    int closed = fclose(out);
    char host[256];
    host_of(url, host, sizeof host);
    int result = 0;
    if (rc == CURLE_COULDNT_RESOLVE_HOST)
        result = pm_errf(err, "%s: cannot resolve host %s", url, host);
    else if (rc == CURLE_COULDNT_CONNECT)
        result = pm_errf(err, "%s: connection refused (nothing listens there)", url);
    else if (rc == CURLE_OPERATION_TIMEDOUT)
        result = pm_errf(err, "%s: timed out", url);
    else if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CACERT_BADFILE)
        result = pm_errf(err, "%s: TLS: %s", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
    else if (rc == CURLE_TOO_MANY_REDIRECTS)
        result = pm_errf(err, "%s: more than 5 redirects", url);
    else if (rc != CURLE_OK)
        result = pm_errf(err, "%s: %s", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
    else if (code == 304 && cached) {
        snprintf(how, hlen, "from the cache, 304 Not Modified");
    } else if (code >= 400) {
        result = pm_errf(err, "%s: HTTP %ld%s", url, code, code == 404 ? " Not Found" : code == 403 ? " Forbidden" : "");
    } else if (code != 200) {
        result = pm_errf(err, "%s: unexpected HTTP %ld", url, code);
    } else if (closed != 0) {
        result = pm_errf(err, "%s: %s", tmp, strerror(errno));
    } else {
        /* A body that is not an SQLite file is refused before it replaces
         * a good cached copy. */
        char magic[16] = "";
        FILE *t = fopen(tmp, "rb");
        size_t n = t ? fread(magic, 1, sizeof magic, t) : 0;
        if (t)
            fclose(t);
        if (n != 16 || memcmp(magic, "SQLite format 3", 16) != 0) {
            result = pm_errf(err, "%s: the server's answer is not an SQLite database", url);
        } else if (rename(tmp, path) < 0) {
            result = pm_errf(err, "%s: %s", path, strerror(errno));
        } else {
            FILE *e = fopen(etag_path, "w");
            if (e) {
                fputs(got.etag, e);
                fclose(e);
            }
            FILE *l = fopen(lm_path, "w");
            if (l) {
                fputs(got.last_modified, l);
                fclose(l);
            }
            snprintf(how, hlen, "downloaded, HTTP 200");
        }
    }
    unlink(tmp);
    return result;
}
