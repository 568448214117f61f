#include "export/push.h"
#include "export/lineproto.h"
#include "store/pushed.h"
#include "store/ticks.h"
#include "lib/http.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "lib/fileio.h"

/* A run's lines: its point, then with samples every tick's (lineproto.h). */
static int run_lines(struct pm_db *db, const struct run_head *h, bool samples, struct lp_buf *b, size_t *lines,
                     struct pm_err *err)
{
    if (lp_run_point(db, h, NULL, NULL, b, err) < 0)
        return -1;
    (*lines)++;
    if (!samples)
        return 0;
    struct tick_reader rd;
    if (tick_reader_open(&rd, db, h->id, err) < 0)
        return -1;
    int more = 0, rc = 0;
    while (rc == 0 && (more = tick_reader_next(&rd, err)) == 1) {
        rc = lp_tick_point(h, &rd, NULL, b);
        (*lines)++;
    }
    tick_reader_close(&rd);
    if (rc)
        return pm_errf(err, "out of memory");
    return more < 0 ? -1 : 0;
}

static int gzip_body(const struct lp_buf *in, struct lp_buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = deflateBound(&z, in->n) + 64;
    out->p = malloc(cap);
    if (!out->p) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)in->p;
    z.avail_in = (uInt)in->n;
    z.next_out = (Bytef *)out->p;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    out->n = cap - z.avail_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* POST one gzip-compressed batch; retried on 5xx and connection errors. */
static int post(const struct push_request *rq, const struct lp_buf *body, struct pm_err *err)
{
    struct lp_buf gz = { 0 };
    if (gzip_body(body, &gz) < 0) {
        free(gz.p);
        return pm_errf(err, "cannot compress the batch");
    }
    char auth[1200] = "";
    const char *headers[4] = { "Content-Type: text/plain; charset=utf-8", "Content-Encoding: gzip", NULL, NULL };
    if (rq->token && *rq->token) {
        snprintf(auth, sizeof auth, "Authorization: %s %s", strstr(rq->url, "/api/v2/") ? "Token" : "Bearer", rq->token);
        headers[2] = auth;
    }
    /* A loopback host is reached directly: a token allowed over plain http
     * because it stays on this machine must not go to a proxy. */
    bool https = false, loopback = false;
    struct pm_err uerr;
    http_url_private(rq->url, &https, &loopback, &uerr);
    struct http_request hr = { .url = rq->url, .headers = headers, .body = gz.p, .body_len = gz.n, .timeout_s = 120,
                               .no_proxy = loopback };
    int result = -1;
    for (int attempt = 0; attempt < 4; attempt++) {
        if (attempt) {
            uint64_t ms = 500ull << (attempt - 1);
            struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };
            nanosleep(&ts, NULL);
        }
        struct http_response rs;
        if (http_perform(&hr, &rs, err) < 0)
            continue;            /* err says why; retried */
        char reply[512];
        snprintf(reply, sizeof reply, "%s", rs.body ? rs.body : "");
        reply[strcspn(reply, "\r\n")] = '\0';
        http_response_free(&rs);
        if (rs.code >= 200 && rs.code < 300) {
            result = 0;
            break;
        }
        if (rs.code >= 400 && rs.code < 500) {
            /* The server refused the data or the credentials: retrying will not help. */
            result = pm_errf(err, "%s: HTTP %ld%s%s", rq->url, rs.code, reply[0] ? ": " : "", reply);
            break;
        }
        pm_errf(err, "%s: HTTP %ld after 4 attempts", rq->url, rs.code);
    }
    memset(auth, 0, sizeof auth);
    free(gz.p);
    return result;
}

int push_token(const char *token_file, char *buf, size_t len, struct pm_err *err)
{
    buf[0] = '\0';
    if (token_file) {
        /* As ssh refuses a private key others can read: the token file
         * must be ours (or root's) and readable by nobody else. */
        int fd = open(token_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb) < 0) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return pm_errf(err, "--token-file: %s: %s", token_file, strerror(e));
        }
        close(fd);
        if (!S_ISREG(sb.st_mode) || (sb.st_mode & 077) || (sb.st_uid != geteuid() && sb.st_uid != 0))
            return pm_errf(err, "--token-file: %s is %s (accepted: a file of yours with mode 0600 or 0400; chmod 600 it)",
                           token_file, !S_ISREG(sb.st_mode) ? "not a regular file"
                                       : (sb.st_mode & 077) ? "readable or writable by others" : "someone else's");
        if (pm_read_file(token_file, buf, len) < 0)
            return pm_errf(err, "--token-file: %s: %s", token_file, strerror(errno));
        buf[strcspn(buf, "\r\n")] = '\0';
        return 0;
    }
    const char *env = getenv("PRESSMARK_PUSH_TOKEN");
    if (env)
        snprintf(buf, len, "%s", env);
    return 0;
}

int push_runs(struct pm_db *db, const struct push_request *rq, int *runs, size_t *lines, struct pm_err *err)
{
    *runs = 0;
    *lines = 0;
    struct run_head *heads;
    size_t nheads;
    if (pushed_pending(db, rq->url, rq->only_run, &heads, &nheads, err) < 0)
        return -1;
    int rc = 0;
    size_t batch = rq->batch_lines ? rq->batch_lines : 5000;
    for (size_t i = 0; i < nheads && rc == 0; ) {
        /* Whole runs per batch: a run is marked delivered only when all of
         * its lines were accepted. */
        struct lp_buf body = { 0 };
        size_t first = i, blines = 0;
        while (i < nheads && (blines == 0 || blines < batch)) {
            if ((rc = run_lines(db, &heads[i], rq->samples, &body, &blines, err)) < 0)
                break;
            i++;
        }
        if (rc == 0 && body.n)
            rc = post(rq, &body, err);
        if (rc == 0) {
            int64_t *ids = malloc((i - first) * sizeof *ids);
            for (size_t k = first; ids && k < i; k++)
                ids[k - first] = heads[k].id;
            rc = ids ? pushed_mark(db, rq->url, ids, i - first, err) : pm_errf(err, "out of memory");
            free(ids);
            if (rc == 0) {
                *runs += (int)(i - first);
                *lines += blines;
            }
        }
        free(body.p);
    }
    free(heads);
    return rc;
}

int push_token_allowed(const char *url, bool allow_plain_http, struct pm_err *err)
{
    bool https, loopback;
    if (http_url_private(url, &https, &loopback, err) < 0)
        return -1;
    if (https || loopback || allow_plain_http)
        return 0;
    return pm_errf(err, "a token would go over plain http to %s (accepted: an https:// URL, a loopback address, "
                   "or --allow-plain-http-token)", url);
}
