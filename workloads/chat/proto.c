#include "workloads/chat/proto.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

int chat_mutf8_encode(const char *utf8, size_t len, uint8_t *out, size_t cap)
{
    const uint8_t *s = (const uint8_t *)utf8;
    size_t o = 0;
    for (size_t i = 0; i < len; ) {
        uint32_t cp;
        uint8_t c = s[i];
        if (c < 0x80) {
            cp = c;
            i += 1;
        } else if ((c & 0xe0) == 0xc0 && i + 1 < len && (s[i + 1] & 0xc0) == 0x80) {
            cp = ((uint32_t)(c & 0x1f) << 6) | (s[i + 1] & 0x3f);
            i += 2;
        } else if ((c & 0xf0) == 0xe0 && i + 2 < len && (s[i + 1] & 0xc0) == 0x80 && (s[i + 2] & 0xc0) == 0x80) {
            cp = ((uint32_t)(c & 0x0f) << 12) | ((uint32_t)(s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f);
            i += 3;
        } else if ((c & 0xf8) == 0xf0 && i + 3 < len && (s[i + 1] & 0xc0) == 0x80 && (s[i + 2] & 0xc0) == 0x80 &&
                   (s[i + 3] & 0xc0) == 0x80) {
            cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3f) << 12) |
                 ((uint32_t)(s[i + 2] & 0x3f) << 6) | (s[i + 3] & 0x3f);
            i += 4;
        } else {
            return -1;
        }
        /* Java strings are UTF-16: a character above U+FFFF is two
         * surrogates, each written as a 3-byte form. */
        uint32_t units[2];
        int nu = 1;
        units[0] = cp;
        if (cp > 0xffff) {
            cp -= 0x10000;
            units[0] = 0xd800 | (cp >> 10);
            units[1] = 0xdc00 | (cp & 0x3ff);
            nu = 2;
        }
        for (int k = 0; k < nu; k++) {
            uint32_t u = units[k];
            if (u >= 1 && u <= 0x7f) {
                if (o + 1 > cap)
                    return -1;
                out[o++] = (uint8_t)u;
            } else if (u <= 0x7ff) {
                if (o + 2 > cap)
                    return -1;
                out[o++] = (uint8_t)(0xc0 | (u >> 6));
                out[o++] = (uint8_t)(0x80 | (u & 0x3f));
            } else {
                if (o + 3 > cap)
                    return -1;
                out[o++] = (uint8_t)(0xe0 | (u >> 12));
                out[o++] = (uint8_t)(0x80 | ((u >> 6) & 0x3f));
                out[o++] = (uint8_t)(0x80 | (u & 0x3f));
            }
        }
    }
    return o > CHAT_MAX_STR ? -1 : (int)o;
}

static int put_utf8(char *out, size_t cap, size_t *o, uint32_t cp)
{
    uint8_t b[4];
    int n;
    if (cp < 0x80) { b[0] = (uint8_t)cp; n = 1; }
    else if (cp < 0x800) { b[0] = (uint8_t)(0xc0 | (cp >> 6)); b[1] = (uint8_t)(0x80 | (cp & 0x3f)); n = 2; }
    else if (cp < 0x10000) {
        b[0] = (uint8_t)(0xe0 | (cp >> 12)); b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (uint8_t)(0x80 | (cp & 0x3f)); n = 3;
    } else {
        b[0] = (uint8_t)(0xf0 | (cp >> 18)); b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f)); b[3] = (uint8_t)(0x80 | (cp & 0x3f)); n = 4;
    }
    if (*o + (size_t)n >= cap)
        return -1;
    memcpy(out + *o, b, (size_t)n);
    *o += (size_t)n;
    return 0;
}

int chat_mutf8_decode(const uint8_t *in, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    uint32_t high = 0;          /* a pending high surrogate */
    for (size_t i = 0; i < len; ) {
        uint8_t c = in[i];
        uint32_t u;
        if (c >= 0x01 && c < 0x80) {
            u = c;
            i += 1;
        } else if ((c & 0xe0) == 0xc0 && i + 1 < len && (in[i + 1] & 0xc0) == 0x80) {
            u = ((uint32_t)(c & 0x1f) << 6) | (in[i + 1] & 0x3f);
            if (u < 0x80 && u != 0)
                return -1;              /* overlong, except Java's NUL */
            i += 2;
        } else if ((c & 0xf0) == 0xe0 && i + 2 < len && (in[i + 1] & 0xc0) == 0x80 && (in[i + 2] & 0xc0) == 0x80) {
            u = ((uint32_t)(c & 0x0f) << 12) | ((uint32_t)(in[i + 1] & 0x3f) << 6) | (in[i + 2] & 0x3f);
            if (u < 0x800)
                return -1;
            i += 3;
        } else {
            return -1;                  /* 0x00, 4-byte forms, bad continuations */
        }
        if (u >= 0xd800 && u <= 0xdbff) {
            if (high)
                return -1;
            high = u;
            continue;
        }
        if (u >= 0xdc00 && u <= 0xdfff) {
            if (!high)
                return -1;
            u = 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00);
            high = 0;
        } else if (high) {
            return -1;
        }
        if (put_utf8(out, cap, &o, u) < 0)
            return -1;
    }
    if (high)
        return -1;
    out[o] = '\0';
    return (int)o;
}

void chat_frame_init(struct frame *f, uint8_t *storage, size_t cap)
{
    f->buf = storage;
    f->cap = cap;
    f->len = 0;
    f->bad = false;
}

static void put(struct frame *f, const void *p, size_t n)
{
    if (f->len + n > f->cap) {
        f->bad = true;
        return;
    }
    memcpy(f->buf + f->len, p, n);
    f->len += n;
}

void chat_frame_u16(struct frame *f, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
    put(f, b, 2);
}

void chat_frame_i32(struct frame *f, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t b[4] = { (uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u };
    put(f, b, 4);
}

void chat_frame_bool(struct frame *f, bool v)
{
    uint8_t b = v ? 1 : 0;
    put(f, &b, 1);
}

void chat_frame_u8(struct frame *f, uint8_t v)
{
    put(f, &v, 1);
}

void chat_frame_utf(struct frame *f, const char *s)
{
    size_t n = strlen(s);
    /* ASCII without NUL is its own modified UTF-8: the common case. */
    bool ascii = true;
    for (size_t i = 0; i < n && ascii; i++)
        ascii = (unsigned char)s[i] < 0x80;
    if (ascii && n <= CHAT_MAX_STR && f->len + 2 + n <= f->cap) {
        chat_frame_u16(f, (uint16_t)n);
        put(f, s, n);
        return;
    }
    if (f->len + 2 > f->cap) {
        f->bad = true;
        return;
    }
    int m = chat_mutf8_encode(s, n, f->buf + f->len + 2, f->cap - f->len - 2);
    if (m < 0) {
        f->bad = true;
        return;
    }
    chat_frame_u16(f, (uint16_t)m);
    f->len += (size_t)m;
}

void chat_reader_init(struct reader *r, int fd)
{
    r->fd = fd;
    r->pos = r->len = 0;
    r->raw = NULL;
    r->str = NULL;
    r->rawcap = r->strcap = 0;
}

void chat_reader_free(struct reader *r)
{
    free(r->raw);
    free(r->str);
    r->raw = NULL;
    r->str = NULL;
    r->rawcap = r->strcap = 0;
}

static bool fill(struct reader *r)
{
    if (r->pos < r->len)
        return true;
    for (;;) {
        ssize_t n = read(r->fd, r->buf, sizeof r->buf);
        if (n > 0) {
            r->pos = 0;
            r->len = (size_t)n;
            return true;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return false;
    }
}

static bool read_bytes(struct reader *r, void *dst, size_t n)
{
    uint8_t *d = dst;
    while (n > 0) {
        if (!fill(r))
            return false;
        size_t k = r->len - r->pos < n ? r->len - r->pos : n;
        memcpy(d, r->buf + r->pos, k);
        r->pos += k;
        d += k;
        n -= k;
    }
    return true;
}

bool chat_read_u16(struct reader *r, uint16_t *v)
{
    uint8_t b[2];
    if (!read_bytes(r, b, 2))
        return false;
    *v = (uint16_t)((b[0] << 8) | b[1]);
    return true;
}

bool chat_read_i32(struct reader *r, int32_t *v)
{
    uint8_t b[4];
    if (!read_bytes(r, b, 4))
        return false;
    *v = (int32_t)(((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3]);
    return true;
}

bool chat_read_bool(struct reader *r, bool *v)
{
    uint8_t b;
    if (!read_bytes(r, &b, 1))
        return false;
    *v = b != 0;
    return true;
}

bool chat_read_u8(struct reader *r, uint8_t *v)
{
    return read_bytes(r, v, 1);
}

bool chat_read_utf(struct reader *r, size_t *len)
{
    uint16_t n;
    if (!chat_read_u16(r, &n))
        return false;
    /* Decoding never makes a string longer (C0 80 -> 1 byte, a surrogate
     * pair's 6 -> 4), so n + 1 bytes always hold the result. */
    if (n + 1u > r->rawcap) {
        size_t cap = n + 1u < 256 ? 256 : n + 1u;
        uint8_t *raw = realloc(r->raw, cap);
        char *str = realloc(r->str, cap);
        if (raw)
            r->raw = raw;
        if (str)
            r->str = str;
        if (!raw || !str)
            return false;
        r->rawcap = r->strcap = cap;
    }
    if (!read_bytes(r, r->raw, n))
        return false;
    int m = chat_mutf8_decode(r->raw, n, r->str, r->strcap);
    if (m < 0)
        return false;
    if (len)
        *len = (size_t)m;
    return true;
}

bool chat_read_utf_copy(struct reader *r, char *dst, size_t cap)
{
    size_t n;
    if (!chat_read_utf(r, &n) || n >= cap)
        return false;
    memcpy(dst, r->str, n + 1);
    return true;
}

void chat_build_access_request(struct frame *f, const char *room)
{
    struct utsname u;
    if (uname(&u) < 0)
        memset(&u, 0, sizeof u);
    chat_frame_u16(f, PKT_ACCESS);
    chat_frame_i32(f, CHAT_REQUEST);
    chat_frame_utf(f, room);
    chat_frame_utf(f, CHAT_APPLET_VERSION);
    chat_frame_utf(f, "http://www.volano.com/chat.html");
    chat_frame_utf(f, "http://chat.volano.net/vcclient");
    /* The JVM property values Mark sends; pressmark is the "JVM" here. */
    chat_frame_utf(f, "pressmark");
    chat_frame_utf(f, "https://packages.debian.org/");
    chat_frame_utf(f, "1.3.1");
    chat_frame_utf(f, "47.0");
    chat_frame_utf(f, "Linux");
    chat_frame_utf(f, u.release);
    chat_frame_utf(f, u.machine);
}

void chat_build_enter_request(struct frame *f, const char *room, const char *user, const char *profile)
{
    chat_frame_u16(f, PKT_ENTER_ROOM);
    chat_frame_i32(f, CHAT_REQUEST);
    chat_frame_utf(f, profile);
    chat_frame_utf(f, room);
    chat_frame_utf(f, user);
}

void chat_build_chat_request(struct frame *f, const char *room, const char *user, const char *text)
{
    chat_frame_u16(f, PKT_CHAT);
    chat_frame_i32(f, CHAT_REQUEST);
    chat_frame_bool(f, false);
    chat_frame_i32(f, 0);
    chat_frame_utf(f, room);
    chat_frame_utf(f, user);
    chat_frame_utf(f, text);
}

void chat_build_exit_request(struct frame *f, const char *room, const char *user)
{
    chat_frame_u16(f, PKT_EXIT_ROOM);
    chat_frame_i32(f, CHAT_REQUEST);
    chat_frame_utf(f, room);
    chat_frame_utf(f, user);
}

void chat_build_roomlist_request(struct frame *f)
{
    chat_frame_u16(f, PKT_ROOM_LIST);
    chat_frame_i32(f, CHAT_REQUEST);
    chat_frame_utf(f, "");
    chat_frame_i32(f, 0);
}

char *chat_trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

void chat_stamp_text(char *out, uint64_t ns)
{
    memcpy(out, CHAT_TEXT, CHAT_STAMP_AT);
    out[CHAT_STAMP_AT] = '@';
    /* Digits from the right, so the field is always 18 wide. */
    for (int i = CHAT_STAMP_DIGITS; i >= 1; i--) {
        out[CHAT_STAMP_AT + i] = (char)('0' + ns % 10);
        ns /= 10;
    }
    out[CHAT_TEXT_LEN - 1] = ' ';
    out[CHAT_TEXT_LEN] = '\0';
}

bool chat_text_stamp(const char *text, size_t len, uint64_t *ns)
{
    /* 59 after the server's trim, 60 as sent. */
    if (len < CHAT_STAMP_AT + 1 + CHAT_STAMP_DIGITS || len > CHAT_TEXT_LEN || text[CHAT_STAMP_AT] != '@' ||
        memcmp(text, CHAT_TEXT, CHAT_STAMP_AT) != 0)
        return false;
    uint64_t v = 0;
    for (int i = 1; i <= CHAT_STAMP_DIGITS; i++) {
        char c = text[CHAT_STAMP_AT + i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (uint64_t)(c - '0');
    }
    for (size_t i = CHAT_STAMP_AT + 1 + CHAT_STAMP_DIGITS; i < len; i++)
        if (text[i] != ' ')
            return false;
    *ns = v;
    return true;
}
