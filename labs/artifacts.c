#include "labs/artifacts.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/http.h"

/* Images are hundreds of MB: the whole exchange may take this long; a
 * stalled one is abandoned sooner by lib/http's speed floor. */
#define ARTIFACT_TIMEOUT_S 3600

/* A store on this machine is reached directly, never through a proxy. */
static bool on_loopback(const char *url)
{
    bool https = false, loopback = false;
    struct pm_err e;
    return http_url_private(url, &https, &loopback, &e) == 0 && loopback;
}

/* The token artifact_put sends, and the store it is for (see the header). */
static char store_url[512], store_token[520];

int artifact_store_token(const char *store, const char *token)
{
    explicit_bzero(store_token, sizeof store_token);
    store_url[0] = '\0';
    if (!store || !token)
        return 0;
    if (strlen(store) >= sizeof store_url || strlen(token) >= sizeof store_token)
        return -1;
    snprintf(store_url, sizeof store_url, "%s", store);
    snprintf(store_token, sizeof store_token, "%s", token);
    return 0;
}

/* Is url under the store the token is for: its text, then its end or a
 * '/' (http://h:80/s is not http://h:80/store, nor http://h:8000)? */
static const char *token_for(const char *url)
{
    size_t n = strlen(store_url);
    if (!n || strncmp(url, store_url, n) != 0)
        return NULL;
    return store_url[n - 1] == '/' || url[n] == '/' || url[n] == '\0' ? store_token : NULL;
}

/* A refused PUT's status in words: what the store means by it. */
static const char *put_refusal(long code, bool had_token)
{
    switch (code) {
    case 401:
        return had_token ? "the store does not take this token (accepted: its own token file, a lab's "
                           "ARTIFACTS_TOKEN_FILE, in lava-artifacts-token-file)"
                         : "the store wants a token (accepted: lava-artifacts-token-file = the store's token file)";
    case 403: return "this token may not write this name (a guest's token writes only its results)";
    case 409: return "the name is taken (the store writes each name once)";
    case 413: return "the file is larger than the store takes";
    case 507: return "the store is full (its cap on all its files)";
    default: return "not one it takes (accepted: 200, 201, 204)";
    }
}

int artifact_put(const char *url, const char *path, struct pm_err *err)
{
    return artifact_put_bearer(url, path, token_for(url), err);
}

int artifact_put_bearer(const char *url, const char *path, const char *token, struct pm_err *err)
{
    FILE *f = fopen(path, "rbe");
    if (!f)
        return pm_errf(err, "%s: cannot open (%s)", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) < 0) {
        int e = errno;
        fclose(f);
        return pm_errf(err, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        fclose(f);
        return pm_errf(err, "%s: not a regular file (accepted: a file to put to %s)", path, url);
    }
    /* In a header only: never in the URL or an argv, where logs and ps show it. */
    char auth[sizeof store_token + 32];
    const char *headers[] = { auth, NULL };
    if (token)
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct http_request rq = { .url = url, .headers = token ? headers : NULL, .upload = f,
                               .upload_len = (uint64_t)st.st_size, .timeout_s = ARTIFACT_TIMEOUT_S,
                               .max_bytes = 1 << 20, .no_proxy = on_loopback(url) };
    struct http_response rs;
    int rc = http_perform(&rq, &rs, err);
    explicit_bzero(auth, sizeof auth);
    bool read_failed = ferror(f) != 0;
    fclose(f);
    if (rc < 0)
        return -1;
    http_response_free(&rs);
    if (read_failed)
        return pm_errf(err, "%s: a read failed while putting it to %s", path, url);
    if (rs.code != 200 && rs.code != 201 && rs.code != 204)
        return pm_errf(err, "%s: the artifact store answered HTTP %ld to a PUT: %s", url, rs.code,
                       put_refusal(rs.code, token != NULL));
    return 0;
}

/* The body into a file that is new (O_EXCL: nothing planted there, no
 * link followed) and only ours; anything but a whole 200 answer leaves no
 * file behind. */
int artifact_get(const char *url, const char *path, uint64_t max, int *missing, struct pm_err *err)
{
    *missing = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: cannot create (%s)", path, strerror(errno));
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(path);
        return pm_errf(err, "%s: %s", path, strerror(e));
    }
    struct http_request rq = { .url = url, .out = f, .timeout_s = ARTIFACT_TIMEOUT_S, .max_bytes = max,
                               .follow_redirects = true, .no_proxy = on_loopback(url) };
    struct http_response rs;
    int rc = http_perform(&rq, &rs, err);
    int write_failed = ferror(f);
    if (fclose(f) != 0)
        write_failed = 1;
    if (rc == 0)
        http_response_free(&rs);
    /* The status decides, also when its body was cut (a 404 page over max). */
    if (rs.code == 404) {
        *missing = 1;
        rc = 0;
    } else if (rs.code != 200 && rs.code != 0)
        rc = pm_errf(err, "%s: the artifact store answered HTTP %ld to a GET (accepted: 200, or 404 for none)", url,
                     rs.code);
    else if (rc == 0 && write_failed)
        rc = pm_errf(err, "%s: cannot write what %s answered", path, url);
    if ((rc < 0 || *missing) && unlink(path) < 0 && errno != ENOENT && rc == 0)
        rc = pm_errf(err, "%s: cannot remove (%s)", path, strerror(errno));
    return rc;
}

/* A GET of the first byte (Range) with a limit of one byte: a store that
 * ignores the range is cut off after it, its status still known. An empty
 * file cannot give its first byte: 416 says it is there. */
int artifact_exists(const char *url, int *exists, struct pm_err *err)
{
    *exists = 0;
    const char *headers[] = { "Range: bytes=0-0", NULL };
    struct http_request rq = { .url = url, .headers = headers, .timeout_s = 60, .max_bytes = 1,
                               .follow_redirects = true, .no_proxy = on_loopback(url) };
    struct http_response rs;
    struct pm_err herr;
    int rc = http_perform(&rq, &rs, &herr);
    if (rc == 0)
        http_response_free(&rs);
    if (rs.code == 200 || rs.code == 206 || rs.code == 416) {
        *exists = 1;
        return 0;
    }
    if (rs.code == 404)         /* its page may be over the limit: the status decides */
        return 0;
    if (rc < 0)
        return pm_errf(err, "%s", herr.msg);
    return pm_errf(err, "%s: the artifact store answered HTTP %ld (accepted: 200, 206 or 416, or 404 for none)", url, rs.code);
}
