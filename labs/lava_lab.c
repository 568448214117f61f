#include "labs/lava_api.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "labs/token_file.h"
#include "lib/curl_lib.h"

#define URL_ACCEPTED "accepted: http://HOST[:PORT][/PATH] or https://..., without user:password, query or fragment"
#define TOKEN_ACCEPTED "accepted: one line of 1 to 255 characters of A-Z a-z 0-9 . _ -"

static const struct token_rule token_rule = {
    .key = "lava-token-file", .chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-",
    .min = 1, .max = 255, .accepted = TOKEN_ACCEPTED,
};

/* Is this part of the URL there, as libcurl reads it? */
static bool has_part(const struct pm_curl *curl, CURLU *u, CURLUPart part)
{
    char *p = NULL;
    bool has = curl->url_get(u, part, &p, 0) == CURLUE_OK;
    curl->free(p);
    return has;
}

/* The URL's checks on libcurl's own reading of it (the reader that will
 * send the requests), so text that only looks like a host cannot pass. A
 * URL with a user:password is never echoed: its password would go into
 * logs with the message. */
static int url_problem(const struct pm_curl *curl, CURLU *u, const char *url, struct pm_err *err)
{
    char *scheme = NULL;
    if (curl->url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK)
        return pm_errf(err, "lava-url = %s: not a URL; " URL_ACCEPTED, url);
    bool web = strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0;
    curl->free(scheme);
    if (!web)
        return pm_errf(err, "lava-url = %s: not http or https; " URL_ACCEPTED, url);
    if (has_part(curl, u, CURLUPART_USER) || has_part(curl, u, CURLUPART_PASSWORD)) {
        char *bare = NULL;
        /* Echoed only with both taken out. */
        bool cut = curl->url_set(u, CURLUPART_USER, NULL, 0) == CURLUE_OK &&
                   curl->url_set(u, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK;
        int rc = pm_errf(err, "lava-url = %s (with a user:password): " URL_ACCEPTED "; the token goes in lava-token-file",
                         cut && curl->url_get(u, CURLUPART_URL, &bare, 0) == CURLUE_OK ? bare : "(the URL)");
        curl->free(bare);
        return rc;
    }
    if (has_part(curl, u, CURLUPART_QUERY) || has_part(curl, u, CURLUPART_FRAGMENT))
        return pm_errf(err, "lava-url = %s: has a query or fragment; " URL_ACCEPTED, url);
    return 0;
}

/* The server's root as libcurl writes it, ending in '/', so the API's
 * paths are appended to it. */
static int check_url(const char *url, char *out, size_t len, struct pm_err *err)
{
    if (!url || !*url)
        return pm_errf(err, "lava-url: none given; " URL_ACCEPTED);
    const struct pm_curl *curl = pm_curl_lib(err);
    if (!curl)
        return -1;
    CURLU *u = curl->url();
    if (!u)
        return pm_errf(err, "out of memory");
    char *norm = NULL;
    int rc;
    if (curl->url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK)
        rc = pm_errf(err, "lava-url = %s: not a URL; " URL_ACCEPTED, url);
    else if ((rc = url_problem(curl, u, url, err)) == 0) {
        if (curl->url_get(u, CURLUPART_URL, &norm, 0) != CURLUE_OK)
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
    curl->free(norm);
    curl->url_cleanup(u);
    return rc;
}

int lava_lab_open(struct lava_lab *lab, const char *url, const char *token_file, struct pm_err *err)
{
    memset(lab, 0, sizeof *lab);
    if (check_url(url, lab->url, sizeof lab->url, err) < 0)
        return -1;
    if (token_file && token_file_read(&token_rule, token_file, lab->token, sizeof lab->token, err) < 0) {
        explicit_bzero(lab, sizeof *lab);
        return -1;
    }
    return 0;
}
