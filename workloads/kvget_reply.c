/* A get's reply, checked whole (kvget_reply.h). */
#include "workloads/kvget_reply.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "workloads/kvclient.h"

static enum kv_get_reply bad(char *why, size_t wlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static enum kv_get_reply bad(char *why, size_t wlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, wlen, fmt, ap);
    va_end(ap);
    return KV_GET_BAD;
}

/* A plain decimal word at *s, ending at stop: at most 10 digits. */
static int number(const char **s, char stop, uint64_t *v)
{
    const char *d = *s;
    uint64_t x = 0;
    for (; *d >= '0' && *d <= '9' && d - *s < 11; d++)
        x = x * 10 + (uint64_t)(*d - '0');
    if (d == *s || d - *s > 10 || *d != stop)
        return -1;
    *v = x;
    *s = d;
    return 0;
}

/* "VALUE KEY FLAGS LEN" (line without its CRLF): the length into *len. */
static enum kv_get_reply value_line(const char *line, const char *key, size_t vlen, uint64_t *len, char *why,
                                    size_t wlen)
{
    size_t kl = strlen(key);
    char q[128];
    kv_quote_line(line, q, sizeof q);
    if (strncmp(line + 6, key, kl) != 0 || line[6 + kl] != ' ')
        return bad(why, wlen, "the reply to get %s names another key: '%s'", key, q);
    const char *s = line + 6 + kl + 1;
    uint64_t flags;
    if (number(&s, ' ', &flags) < 0)
        return bad(why, wlen, "the reply to get %s is not 'VALUE key flags bytes': '%s'", key, q);
    s++;
    if (number(&s, '\0', len) < 0)
        return bad(why, wlen, "the reply to get %s is not 'VALUE key flags bytes': '%s'", key, q);
    if (flags != 0 || *len != vlen)
        return bad(why, wlen, "get %s came back with flags %llu and %llu bytes; the loader stored flags 0 and %zu "
                   "bytes", key, (unsigned long long)flags, (unsigned long long)*len, vlen);
    return KV_GET_HIT;
}

/* After VALUE's line (head bytes): the value and END, whole and as stored. */
static enum kv_get_reply value_body(const char *buf, size_t have, size_t head, const char *key, const char *want,
                                    size_t vlen, char *why, size_t wlen)
{
    size_t total = head + vlen + 7;
    if (have < total)
        return KV_GET_MORE;
    if (have > total)
        return bad(why, wlen, "bytes after the reply to get %s", key);
    if (memcmp(buf + head + vlen, "\r\nEND\r\n", 7) != 0)
        return bad(why, wlen, "the reply to get %s does not end with END after its %zu bytes", key, vlen);
    if (memcmp(buf + head, want, vlen) != 0)
        return bad(why, wlen, "get %s came back with other bytes than the loader stored", key);
    return KV_GET_HIT;
}

enum kv_get_reply kv_get_reply(const char *buf, size_t have, const char *key, const char *want, size_t vlen,
                               char *why, size_t wlen)
{
    why[0] = '\0';
    const char *eol = memchr(buf, '\n', have < KV_GET_LINE_MAX ? have : KV_GET_LINE_MAX);
    if (!eol && have < KV_GET_LINE_MAX)
        return KV_GET_MORE;
    char line[KV_GET_LINE_MAX], q[128];
    size_t ll = eol ? (size_t)(eol - buf) : 0;
    if (!eol || ll == 0 || buf[ll - 1] != '\r' || memchr(buf, '\0', ll)) {
        kv_quote_line(buf, q, sizeof q);
        return bad(why, wlen, "the reply to get %s has a first line of another shape: '%s'", key, q);
    }
    memcpy(line, buf, ll - 1);
    line[ll - 1] = '\0';
    size_t head = ll + 1;
    bool error = strcmp(line, "ERROR") == 0 || strncmp(line, "SERVER_ERROR ", 13) == 0 ||
                 strncmp(line, "CLIENT_ERROR ", 13) == 0;
    if ((error || strcmp(line, "END") == 0) && have > head)
        return bad(why, wlen, "bytes after the reply to get %s", key);
    if (error) {
        kv_quote_line(line, why, wlen);
        return KV_GET_ERROR;
    }
    if (strcmp(line, "END") == 0)
        return KV_GET_MISS;
    if (strncmp(line, "VALUE ", 6) != 0) {
        kv_quote_line(line, q, sizeof q);
        return bad(why, wlen, "the reply to get %s is of another shape: '%s'", key, q);
    }
    uint64_t len;
    enum kv_get_reply r = value_line(line, key, vlen, &len, why, wlen);
    return r == KV_GET_HIT ? value_body(buf, have, head, key, want, vlen, why, wlen) : r;
}
