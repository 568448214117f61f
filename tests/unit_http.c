/* lib/http's request through libcurl's table: an option libcurl refuses
 * is said as such (never read as a failed transfer), and limits larger
 * than curl takes are clamped, not refused. Nothing listens on
 * 127.0.0.1:1, so a request that gets as far as sending is "connection
 * refused". */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "lib/curl_lib.h"
#include "lib/http.h"
#include "tests/tap.h"

static __typeof__(curl_easy_setopt) *real_setopt;
static CURLoption refuse;

/* libcurl's own, but for the one option told to refuse, as a libcurl
 * older than 7.85.0 refuses CURLOPT_PROTOCOLS_STR. */
static CURLcode setopt_refusing(CURL *c, CURLoption opt, ...)
{
    va_list ap;
    va_start(ap, opt);
    CURLcode rc;
    if (opt == refuse)
        rc = CURLE_UNSUPPORTED_PROTOCOL;
    else if (opt / 10000 == 0)
        rc = real_setopt(c, opt, va_arg(ap, long));
    else if (opt / 10000 == 3)
        rc = real_setopt(c, opt, va_arg(ap, curl_off_t));
    else
        rc = real_setopt(c, opt, va_arg(ap, void *));   /* (a function pointer too, on this ABI) */
    va_end(ap);
    return rc;
}

static void refused_option(void)
{
    struct pm_err err = { "" };
    /* (the table is the loader's own, writable object: made const only for callers) */
    struct pm_curl *curl = (struct pm_curl *)pm_curl_lib(&err);
    if (!curl) {
        ok(0, "libcurl loaded: %s", err.msg);
        return;
    }
    real_setopt = curl->easy_setopt;
    curl->easy_setopt = setopt_refusing;
    refuse = CURLOPT_PROTOCOLS_STR;
    struct http_request rq = { .url = "https://127.0.0.1:1/x", .no_proxy = true };
    struct http_response rs;
    int rc = http_perform(&rq, &rs, &err);
    curl->easy_setopt = real_setopt;
    ok(rc < 0 && strstr(err.msg, "libcurl refused CURLOPT_PROTOCOLS_STR (") &&
           strstr(err.msg, "); pressmark needs libcurl4 >= 7.85.0") && !strstr(err.msg, "redirected"),
       "a refused option is named, not taken for a redirect: %s", err.msg);
}

static void large_limits(void)
{
    struct pm_err err = { "" };
    struct http_response rs;
    struct http_request rq = { .url = "http://127.0.0.1:1/x", .no_proxy = true, .max_bytes = UINT64_MAX };
    ok(http_perform(&rq, &rs, &err) < 0 && strstr(err.msg, "connection refused"),
       "a size limit over INT64_MAX is no limit to curl, the request sent: %s", err.msg);
    rq.max_bytes = 0;
    rq.timeout_s = LONG_MAX;
    ok(http_perform(&rq, &rs, &err) < 0 && strstr(err.msg, "connection refused"),
       "a timeout over what curl takes is clamped, the request sent: %s", err.msg);
}

int main(void)
{
    large_limits();
    refused_option();
    return done_testing();
}
