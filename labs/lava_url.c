#include "labs/lava_url.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "lib/curl_lib.h"

static bool scheme_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
           c == '.';
}

static bool letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Does libcurl read a user or a password in url (n bytes)? 1 or 0; -1
 * with err when libcurl cannot be loaded. */
static int curl_reads_userinfo(const char *url, size_t n, struct pm_err *err)
{
    char buf[4096];
    if (n >= sizeof buf)
        return 0;               /* the authority's '@' is judged all the same */
    const struct pm_curl *curl = pm_curl_lib(err);
    if (!curl)
        return -1;
    memcpy(buf, url, n);
    buf[n] = '\0';
    CURLU *u = curl->url();
    if (!u)
        return pm_errf(err, "out of memory");
    bool has = false;
    if (curl->url_set(u, CURLUPART_URL, buf, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
        static const CURLUPart parts[] = { CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS };
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            char *p = NULL;
            has |= curl->url_get(u, parts[i], &p, 0) == CURLUE_OK;
            curl->free(p);
        }
    }
    curl->url_cleanup(u);
    return has;
}

int lava_text_userinfo(const char *text, char *bare, size_t len, struct pm_err *err)
{
    for (const char *s = strstr(text, "://"); s; s = strstr(s + 3, "://")) {
        const char *b = s;
        while (b > text && scheme_char(b[-1]))
            b--;
        while (b < s && !letter(*b))
            b++;                /* a scheme begins with a letter */
        if (b == s)
            continue;
        const char *auth = s + 3;
        size_t n = (size_t)(auth - b) + strcspn(auth, " \t\r\n\"'`<>");
        size_t alen = strcspn(auth, "/?# \t\r\n\"'`<>");
        /* libcurl's reading is what a client would send; the authority's
         * '@' catches what it does not take for a URL at all. */
        const char *at = memchr(auth, '@', alen);
        int reads = at ? 1 : curl_reads_userinfo(b, n, err);
        if (reads < 0)
            return -1;
        if (!reads)
            continue;
        /* The host and what follows: after the authority's last '@'. A
         * user only libcurl finds is not echoed at all. */
        const char *host = NULL;
        for (const char *c = auth; c < auth + alen; c++)
            if (*c == '@')
                host = c + 1;
        if (host)
            snprintf(bare, len, "%.*s%.*s", (int)(auth - b), b, (int)(b + n - host), host);
        else
            snprintf(bare, len, "%.*s...", (int)(auth - b), b);
        return 1;
    }
    return 0;
}
