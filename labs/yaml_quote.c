#include "labs/lava_job.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "lib/utf8.h"

/* What may stand as it is in a double-quoted scalar: YAML's printable set
 * (YAML 1.1 and 1.2, 5.1) less the line breaks a loader folds into a space
 * (U+2028, U+2029; NEL is C1) and the byte order mark, which a reader may
 * drop. Everything else is escaped, so the scalar means exactly its text. */
static bool yaml_printable(unsigned long c)
{
    return (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff && c != 0x2028 && c != 0x2029) ||
           (c >= 0xe000 && c <= 0xfffd && c != 0xfeff) || (c >= 0x10000 && c <= 0x10ffff);
}

static unsigned long decode(const unsigned char *p, size_t n)
{
    if (n == 1)
        return p[0];
    unsigned long c = p[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++)
        c = (c << 6) | (p[i] & 0x3f);
    return c;
}

/* The text of the next piece of the scalar into out (at most 7 bytes with
 * its NUL): one character as it is or escaped, or one byte that is not
 * UTF-8 as \xNN (a loader reads it as U+00NN: YAML text is Unicode, a
 * lone byte has no other spelling). *used: the bytes of p it stands for. */
static size_t next_piece(const unsigned char *p, char out[8], size_t *used)
{
    size_t n = utf8_seq(p);
    if (n == 0) {
        *used = 1;
        return (size_t)snprintf(out, 8, "\\x%02x", p[0]);
    }
    *used = n;
    unsigned long c = decode(p, n);
    if (c == '"' || c == '\\')
        return (size_t)snprintf(out, 8, "\\%c", (int)c);
    if (!yaml_printable(c))
        return (size_t)(c < 0x100 ? snprintf(out, 8, "\\x%02lx", c) : snprintf(out, 8, "\\u%04lx", c));
    memcpy(out, p, n);
    out[n] = '\0';
    return n;
}

/* Always a whole scalar: a piece that does not fit is left out with all
 * that follows, never cut, and the closing quote always fits (len >= 3;
 * below that buf gets ""). A NULL value is the empty scalar. */
void yaml_quote(const char *value, char *buf, size_t len)
{
    if (len == 0)
        return;
    if (len < 3) {
        buf[0] = '\0';
        return;
    }
    size_t pos = 0;
    buf[pos++] = '"';
    const unsigned char *p = (const unsigned char *)(value ? value : "");
    while (*p) {
        char piece[8];
        size_t used, n = next_piece(p, piece, &used);
        if (pos + n + 2 > len)
            break;
        memcpy(buf + pos, piece, n);
        pos += n;
        p += used;
    }
    buf[pos++] = '"';
    buf[pos] = '\0';
}
