#include "labs/lava_url.h"
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static bool scheme_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
           c == '.';
}

static bool letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Does libcurl read a user or a password in url (n bytes)? */
static bool curl_reads_userinfo(const char *url, size_t n)
{
    char buf[4096];
    if (n >= sizeof buf)
        return false;           /* the authority's '@' is judged all the same */
    memcpy(buf, url, n);
    buf[n] = '\0';
    CURLU *u = curl_url();
    bool has = false;
    if (u && curl_url_set(u, CURLUPART_URL, buf, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
        static const CURLUPart parts[] = { CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS };
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            char *p = NULL;
            has |= curl_url_get(u, parts[i], &p, 0) == CURLUE_OK;
            curl_free(p);
        }
    }
    curl_url_cleanup(u);
    return has;
}

bool lava_text_userinfo(const char *text, char *bare, size_t len)
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
        if (!at && !curl_reads_userinfo(b, n))
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
        return true;
    }
    return false;
}
