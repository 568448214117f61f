#include "lib/http.h"
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/curl_lib.h"
#include "lib/version.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_rc;

/* Apart from loading the library, which http_perform has done (parsing a
 * URL needs no TLS set up). */
static void global_init(void)
{
    const struct pm_curl *curl = pm_curl_lib(NULL);
    init_rc = curl ? curl->global_init(CURL_GLOBAL_DEFAULT) : CURLE_FAILED_INIT;
}

/* "pressmark/VERSION", for the User-Agent header. */
static const char *pm_user_agent(void)
{
    static char ua[96];
    if (!ua[0])
        snprintf(ua, sizeof ua, "pressmark/%s", pm_version());
    return ua;
}

static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
    struct http_response *rs = arg;
    size_t len = size * n;
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), buf);
    line[strcspn(line, "\r\n")] = '\0';
    if (strncasecmp(line, "etag:", 5) == 0)
        snprintf(rs->etag, sizeof rs->etag, "%s", line + 5 + strspn(line + 5, " "));
    else if (strncasecmp(line, "last-modified:", 14) == 0)
        snprintf(rs->last_modified, sizeof rs->last_modified, "%s", line + 14 + strspn(line + 14, " "));
    /* A redirect starts a new set of headers: keep only the final ones. */
    else if (strncmp(line, "HTTP/", 5) == 0)
        rs->etag[0] = rs->last_modified[0] = '\0';
    return len;
}

/* Where the body goes, and how much of it may come. */
struct sink {
    struct http_response *rs;
    FILE *out;
    uint64_t got, max;
    bool over;
};

static size_t take_body(char *p, size_t size, size_t n, void *arg)
{
    struct sink *s = arg;
    size_t len = size * n;
    s->got += len;
    if (s->max && s->got > s->max) {
        s->over = true;
        return 0;              /* libcurl ends the transfer with a write error */
    }
    if (s->out)
        return fwrite(p, 1, len, s->out);
    struct http_response *rs = s->rs;
    char *b = realloc(rs->body, rs->body_len + len + 1);
    if (!b)
        return 0;
    memcpy(b + rs->body_len, p, len);
    rs->body = b;
    rs->body_len += len;
    b[rs->body_len] = '\0';
    return len;
}

static void host_of(const char *url, char *buf, size_t len)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    size_t n = strcspn(p, "/:?#");
    snprintf(buf, len, "%.*s", (int)n, p);
}

static int transport_error(const struct pm_curl *curl, const char *url, CURLcode rc, const char *errbuf,
                           struct pm_err *err)
{
    const char *detail = errbuf[0] ? errbuf : curl->easy_strerror(rc);
    char host[256];
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
        host_of(url, host, sizeof host);
        return pm_errf(err, "%s: cannot resolve host %s", url, host);
    case CURLE_COULDNT_CONNECT:
        return pm_errf(err, "%s: connection refused (nothing listens there)", url);
    case CURLE_OPERATION_TIMEDOUT:
        return pm_errf(err, "%s: timed out", url);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CACERT_BADFILE:
        return pm_errf(err, "%s: TLS: %s", url, detail);
    case CURLE_TOO_MANY_REDIRECTS:
        return pm_errf(err, "%s: more than 5 redirects", url);
    default:
        return pm_errf(err, "%s: %s", url, detail);
    }
}

/* What a refused option means: this libcurl is older than pressmark needs
 * (CURLOPT_PROTOCOLS_STR is 7.85.0's), not that the transfer failed, so
 * it is said as such and never read as a transport error. */
static int refused(const struct pm_curl *curl, const char *opt, CURLcode rc, struct pm_err *err)
{
    return pm_errf(err, "libcurl refused %s (%s); pressmark needs libcurl4 >= 7.85.0", opt, curl->easy_strerror(rc));
}

/* What curl takes: curl_off_t is signed, and libcurl 7.85 to 8.x refuses
 * a timeout over INT_MAX/1000 s (its milliseconds in an int); a larger
 * limit than these is, in effect, none, and the sink holds max_bytes
 * anyway. */
static curl_off_t off_clamp(uint64_t n)
{
    _Static_assert(sizeof(curl_off_t) == sizeof(int64_t), "curl_off_t is 64 bits");
    return n > (uint64_t)INT64_MAX ? (curl_off_t)INT64_MAX : (curl_off_t)n;
}

static long timeout_clamp(long s)
{
    return s <= 0 ? 120L : s > INT_MAX / 1000 ? (long)(INT_MAX / 1000) : s;
}

/* Every option of the request, or -1 at the first one libcurl refuses: a
 * request is never sent with fewer of its guards than asked. Called
 * through the table, curl.h's type checks do not apply, so SET has its
 * own for the integer classes: a long for class 0, a curl_off_t for
 * class 3 (CURLOPTTYPE_OFF_T); an int or size_t would be read wrongly. */
static int set_options(const struct pm_curl *curl, CURL *c, const struct http_request *rq,
                       struct http_response *rs, struct sink *sink, struct curl_slist *hdrs, char *errbuf,
                       struct pm_err *err)
{
#define SET(opt, val)                                                                                    \
    do {                                                                                                 \
        _Static_assert((opt) / 10000 != 0 || __builtin_types_compatible_p(__typeof__(val), long),        \
                       #opt " takes a long");                                                            \
        _Static_assert((opt) / 10000 != 3 || __builtin_types_compatible_p(__typeof__(val), curl_off_t),  \
                       #opt " takes a curl_off_t");                                                      \
        CURLcode r_ = curl->easy_setopt(c, opt, val);                                                    \
        if (r_ != CURLE_OK)                                                                              \
            return refused(curl, #opt, r_, err);                                                         \
    } while (0)
    SET(CURLOPT_ERRORBUFFER, errbuf);
    SET(CURLOPT_URL, rq->url);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    if (rq->no_proxy)
        SET(CURLOPT_NOPROXY, "*");
    /* A redirect never takes an https request to plain http. */
    SET(CURLOPT_REDIR_PROTOCOLS_STR, strncmp(rq->url, "https://", 8) == 0 ? "https" : "http,https");
    SET(CURLOPT_FOLLOWLOCATION, rq->follow_redirects ? 1L : 0L);
    SET(CURLOPT_MAXREDIRS, 5L);
    SET(CURLOPT_CONNECTTIMEOUT, 10L);
    SET(CURLOPT_TIMEOUT, timeout_clamp(rq->timeout_s));
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    /* A fleet server with a private CA: its bundle, as curl's --cacert. */
    const char *ca = getenv("PRESSMARK_CA_FILE");
    if (ca && *ca)
        SET(CURLOPT_CAINFO, ca);
    SET(CURLOPT_USERAGENT, pm_user_agent());
    SET(CURLOPT_HTTPHEADER, hdrs);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, rs);
    SET(CURLOPT_WRITEFUNCTION, take_body);
    SET(CURLOPT_WRITEDATA, sink);
    if (rq->max_bytes)
        SET(CURLOPT_MAXFILESIZE_LARGE, off_clamp(rq->max_bytes));
    SET(CURLOPT_LOW_SPEED_LIMIT, 1024L);
    SET(CURLOPT_LOW_SPEED_TIME, 60L);
    if (rq->upload) {
        SET(CURLOPT_UPLOAD, 1L);
        SET(CURLOPT_READDATA, rq->upload);
        SET(CURLOPT_INFILESIZE_LARGE, off_clamp(rq->upload_len));
    } else if (rq->body) {
        SET(CURLOPT_POST, 1L);
        SET(CURLOPT_POSTFIELDS, rq->body);
        SET(CURLOPT_POSTFIELDSIZE_LARGE, off_clamp(rq->body_len));
    }
    SET(CURLOPT_NOSIGNAL, 1L);
#undef SET
    return 0;
}

int http_perform(const struct http_request *rq, struct http_response *rs, struct pm_err *err)
{
    memset(rs, 0, sizeof *rs);
    const struct pm_curl *curl = pm_curl_lib(err);
    if (!curl)
        return -1;
    int e = pthread_once(&init_once, global_init);
    if (e != 0)
        return pm_errf(err, "libcurl: cannot start: %s", strerror(e));
    if (init_rc != CURLE_OK)
        return pm_errf(err, "libcurl: %s", curl->easy_strerror(init_rc));
    CURL *c = curl->easy_init();
    if (!c)
        return pm_errf(err, "libcurl: cannot start");
    struct curl_slist *hdrs = NULL;
    for (const char *const *h = rq->headers; h && *h; h++) {
        struct curl_slist *n = curl->slist_append(hdrs, *h);
        if (!n) {
            curl->slist_free_all(hdrs);
            curl->easy_cleanup(c);
            return pm_errf(err, "out of memory");
        }
        hdrs = n;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    struct sink sink = { .rs = rs, .out = rq->out, .max = rq->max_bytes };
    if (set_options(curl, c, rq, rs, &sink, hdrs, errbuf, err) < 0) {
        curl->easy_cleanup(c);
        curl->slist_free_all(hdrs);
        return -1;
    }
    CURLcode rc = curl->easy_perform(c);
    /* (none read: 0, as when no status came) */
    if (curl->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rs->code) != CURLE_OK)
        rs->code = 0;
    curl->easy_cleanup(c);
    curl->slist_free_all(hdrs);
    if (rc != CURLE_OK) {
        http_response_free(rs);
        if (sink.over || rc == CURLE_FILESIZE_EXCEEDED)
            return pm_errf(err, "%s: the answer is larger than the limit of %llu bytes", rq->url,
                           (unsigned long long)rq->max_bytes);
        if (rc == CURLE_UNSUPPORTED_PROTOCOL && strncmp(rq->url, "https://", 8) == 0)
            return pm_errf(err, "%s: redirected away from https (refused: the answer could be changed on the way)",
                           rq->url);
        return transport_error(curl, rq->url, rc, errbuf, err);
    }
    return 0;
}

void http_response_free(struct http_response *rs)
{
    free(rs->body);
    rs->body = NULL;
    rs->body_len = 0;
}

int http_url_private(const char *url, bool *https, bool *loopback, struct pm_err *err)
{
    *https = *loopback = false;
    const struct pm_curl *curl = pm_curl_lib(err);
    if (!curl)
        return -1;
    CURLU *u = curl->url();
    char *scheme = NULL, *host = NULL;
    int rc = 0;
    if (!u)
        return pm_errf(err, "out of memory");
    if (curl->url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl->url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl->url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
        pm_errf(err, "'%s' is not a URL (accepted: http://HOST[:PORT]/PATH or https://...)", url);
        rc = HTTP_URL_BAD;
        goto out;
    }
    *https = strcasecmp(scheme, "https") == 0;
    struct in_addr a4;
    struct in6_addr a6;
    size_t n = strlen(host);
    char bare[64] = "";
    /* An IPv6 literal comes back in brackets. */
    if (n > 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof bare)
        snprintf(bare, sizeof bare, "%.*s", (int)(n - 2), host + 1);
    *loopback = strcasecmp(host, "localhost") == 0 ||
                (inet_pton(AF_INET, host, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127) ||
                (bare[0] && inet_pton(AF_INET6, bare, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6));
out:
    curl->free(scheme);
    curl->free(host);
    curl->url_cleanup(u);
    return rc;
}
