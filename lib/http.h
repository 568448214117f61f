#ifndef PM_HTTP_H
#define PM_HTTP_H
/* pressmark's one HTTP client, over libcurl: baselines are fetched and runs
 * pushed through it. http and https only, TLS verified, at most 5 redirects
 * (when asked for) and never from https to http, a transfer slower than
 * 1 KB/s for 60 s abandoned, no signals; a transport failure comes back as
 * one line that names the URL and says what happened in words. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "lib/err.h"

struct http_request {
    const char *url;
    const char *const *headers;   /* extra "Name: value" lines, NULL-terminated, or NULL */
    const void *body;             /* POST this body when not NULL; GET otherwise */
    size_t body_len;
    FILE *upload;                 /* PUT this file's bytes, upload_len of them, when not NULL */
    uint64_t upload_len;
    FILE *out;                    /* where the answer's body goes; NULL: kept in the response */
    long timeout_s;               /* the whole exchange; 0: 120 s */
    uint64_t max_bytes;           /* a larger answer is abandoned, an error; 0: no limit */
    bool follow_redirects;
    bool no_proxy;                /* straight to the host, whatever http_proxy says (a token for loopback) */
};

struct http_response {
    long code;                    /* HTTP status, 0 when none came */
    char etag[512];               /* of the final answer, after redirects */
    char last_modified[128];
    char *body;                   /* when req.out is NULL: the body, NUL-terminated */
    size_t body_len;
};

/* 0 when an answer came, whatever its status; -1 with err otherwise. */
int http_perform(const struct http_request *rq, struct http_response *rs, struct pm_err *err);
void http_response_free(struct http_response *rs);
/* Does url, as libcurl reads it (the reader that will send to it), go
 * over https, or to this machine (localhost, 127.0.0.0/8, ::1)? Text that
 * only starts like a loopback host (127.0.0.1.example, localhost:x@host,
 * [::1]@host) is the other host it names. HTTP_URL_BAD with err when url
 * is not a URL libcurl takes; -1 with err when it cannot be read at all
 * (libcurl cannot be loaded, no memory), which says nothing of the URL. */
enum { HTTP_URL_BAD = -2 };
int http_url_private(const char *url, bool *https, bool *loopback, struct pm_err *err);

#endif
