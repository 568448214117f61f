#include "store/tickblock.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tick_piece_init(struct tick_piece *p)
{
    memset(p, 0, sizeof *p);
}

void tick_piece_free(struct tick_piece *p)
{
    free(p->text);
    memset(p, 0, sizeof *p);
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int digits(uint64_t x)
{
    int d = 1;
    while (x >= 10) {
        x /= 10;
        d++;
    }
    return d;
}

/* The bytes a dense element takes for x up to max: one UTF-8 character
 * of 1 to 4 bytes, or 2 or 3 characters of 4 bytes (20 bits each); 0
 * when x needs more (the runs form takes such a piece). */
static int width_for(uint64_t max)
{
    return max < 127 ? 1 : max < 1920 ? 2 : max < 53248 ? 3 : max < (1u << 20) ? 4
         : max < (1ull << 40) ? 8 : max < (1ull << 60) ? 12 : 0;
}

/* What the SQL's unicode() arithmetic adds to x at width w (see the
 * header): the code offsets, folded into base so SQL adds nothing. */
static uint64_t offset_for(int w)
{
    switch (w) {
    case 1: return 1;
    case 2: return 0x80;
    case 3: return 0x800;
    case 4: return 0x10000;
    case 8: return 0x10000ull * ((1ull << 20) + 1);
    case 12: return 0x10000ull * ((1ull << 40) + (1ull << 20) + 1);
    }
    return 0;
}

size_t tick_dense_bound(uint64_t range, size_t n)
{
    /* No width holds it: runs, each at most "[255,1,-9223372036854775808],". */
    int w = width_for(range);
    return n * (size_t)(w ? w : 30);
}

/* One character of code c (up to 0x10FFFF) in UTF-8, in exactly len bytes. */
static char *put_utf8(char *o, uint32_t c, int len)
{
    switch (len) {
    case 1:
        *o++ = (char)c;
        break;
    case 2:
        *o++ = (char)(0xC0 | (c >> 6));
        *o++ = (char)(0x80 | (c & 0x3F));
        break;
    case 3:
        *o++ = (char)(0xE0 | (c >> 12));
        *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *o++ = (char)(0x80 | (c & 0x3F));
        break;
    default:
        *o++ = (char)(0xF0 | (c >> 18));
        *o++ = (char)(0x80 | ((c >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *o++ = (char)(0x80 | (c & 0x3F));
    }
    return o;
}

/* One character of exactly len bytes at s, as SQLite's unicode() reads
 * it; -1 for anything pressmark does not write there. */
static int64_t get_utf8(const unsigned char *s, int len)
{
    static const unsigned char lead_mask[5] = { 0, 0x80, 0xE0, 0xF0, 0xF8 };
    static const unsigned char lead_bits[5] = { 0, 0x00, 0xC0, 0xE0, 0xF0 };
    static const uint32_t lo[5] = { 0, 1, 0x80, 0x800, 0x10000 }, hi[5] = { 0, 0x7F, 0x7FF, 0xD7FF, 0x10FFFF };
    if ((s[0] & lead_mask[len]) != lead_bits[len])
        return -1;
    uint32_t c = len == 1 ? s[0] : (uint32_t)(s[0] & (0x3F >> (len - 1)));
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        c = (c << 6) | (s[i] & 0x3F);
    }
    return c >= lo[len] && c <= hi[len] ? (int64_t)c : -1;
}

/* Room for need more bytes and the NUL. */
static int reserve(struct tick_piece *p, size_t need)
{
    if (p->len + need + 1 <= p->cap)
        return 0;
    size_t cap = p->cap ? p->cap : 256;
    while (cap < p->len + need + 1)
        cap *= 2;
    char *t = realloc(p->text, cap);
    if (!t)
        return -1;
    p->text = t;
    p->cap = cap;
    return 0;
}

/* pre (a bracket or comma, or "") then v. */
static int put(struct tick_piece *p, const char *pre, int64_t v)
{
    if (reserve(p, 32) < 0)
        return -1;
    p->len += (size_t)snprintf(p->text + p->len, p->cap - p->len, "%s%" PRId64, pre, v);
    return 0;
}

static int put_end(struct tick_piece *p, const char *s)
{
    size_t n = strlen(s);
    if (reserve(p, n) < 0)
        return -1;
    memcpy(p->text + p->len, s, n + 1);
    p->len += n;
    return 0;
}

/* x_k: the value's step above base in units of scale (base 0 and scale 1:
 * the value itself). */
static int64_t x_of(const struct tick_piece *p, int64_t v)
{
    return (int64_t)(((uint64_t)v - (uint64_t)p->base) / (uint64_t)p->scale);
}

static int write_dense(struct tick_piece *p, const int64_t *v, size_t n, int w)
{
    if (reserve(p, n * (size_t)w) < 0)
        return -1;
    char *o = p->text;
    for (size_t k = 0; k < n; k++) {
        uint64_t x = (uint64_t)x_of(p, v[k]);
        if (w <= 4) {
            o = put_utf8(o, (uint32_t)(x + offset_for(w)), w);
            continue;
        }
        for (int d = w / 4 - 1; d >= 0; d--)
            o = put_utf8(o, (uint32_t)(((x >> (20 * d)) & 0xFFFFF) + 0x10000), 4);
    }
    p->len = (size_t)(o - p->text);
    p->text[p->len] = '\0';
    p->width = w;
    /* SQL computes base + scale * (x + offset): base takes the offset. */
    p->base = (int64_t)((uint64_t)p->base - (uint64_t)p->scale * offset_for(w));
    return 0;
}

static int write_runs(struct tick_piece *p, const int64_t *v, size_t n)
{
    p->len = 0;
    for (size_t k = 0; k < n;) {
        size_t e = k + 1;
        while (e < n && v[e] == v[k])
            e++;
        if (put(p, k ? ",[" : "[[", (int64_t)k) < 0 || put(p, ",", (int64_t)(e - k)) < 0 ||
            put(p, ",", x_of(p, v[k])) < 0 || put_end(p, "]") < 0)
            return -1;
        k = e;
    }
    return put_end(p, "]");
}

/* How many runs of equal values v[0..n) has: the runs form's size follows. */
static size_t runs_of(const int64_t *v, size_t n)
{
    size_t r = 1;
    for (size_t k = 1; k < n; k++)
        r += v[k] != v[k - 1];
    return r;
}

int tick_piece_encode(struct tick_piece *p, const int64_t *v, size_t n)
{
    int64_t lo = v[0], hi = v[0];
    for (size_t k = 1; k < n; k++) {
        lo = v[k] < lo ? v[k] : lo;
        hi = v[k] > hi ? v[k] : hi;
    }
    p->base = lo;
    p->scale = 1;
    p->len = 0;
    if (reserve(p, 0) < 0)
        return -1;
    p->text[0] = '\0';
    p->width = 0;
    if (lo == hi) {
        p->form = TICK_CONST;
        return 0;
    }
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    bool wide = range > (uint64_t)INT64_MAX;
    if (wide) {
        p->base = 0;
    } else {
        uint64_t g = 0;
        for (size_t k = 0; k < n && g != 1; k++)
            g = gcd64((uint64_t)v[k] - (uint64_t)lo, g);
        p->scale = (int64_t)g;
    }
    /* A run costs its three numbers and brackets, a dense tick its width:
     * an estimate decides, then the chosen form is written. Dense needs
     * the offset folded into base to fit int64 (it does, but for a scale
     * in the millions at the widest). */
    uint64_t xmax = wide ? UINT64_MAX : range / (uint64_t)p->scale;
    int w = width_for(xmax);
    int64_t folded;
    bool dense_ok = w && !__builtin_mul_overflow(p->scale, (int64_t)offset_for(w), &folded) &&
                    !__builtin_sub_overflow(p->base, folded, &folded);
    size_t runs = runs_of(v, n);
    bool use_runs = !dense_ok || runs * (size_t)(digits(xmax) + 8 + digits(n) * 2) < n * (size_t)w;
    p->form = use_runs ? TICK_RUNS : TICK_DENSE;
    p->width = 0;
    return use_runs ? write_runs(p, v, n) : write_dense(p, v, n, w);
}

/* An integer as encode writes it ("-"? digits, within int64) at *s. */
static int get_int(const char **s, const char *end, int64_t *out)
{
    const char *q = *s;
    bool neg = q < end && *q == '-';
    q += neg;
    if (q >= end || *q < '0' || *q > '9')
        return -1;
    uint64_t x = 0;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        uint64_t d = (uint64_t)(*q - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    if (x > (uint64_t)INT64_MAX + neg)
        return -1;
    *out = neg ? (int64_t)(0 - x) : (int64_t)x;
    *s = q;
    return 0;
}

static bool take(const char **s, const char *end, char c)
{
    if (*s < end && **s == c) {
        (*s)++;
        return true;
    }
    return false;
}

static int64_t value_at(int64_t base, int64_t scale, int64_t x)
{
    return (int64_t)((uint64_t)base + (uint64_t)scale * (uint64_t)x);
}

/* n elements of w bytes each, read as the view's SQL reads them. */
static int decode_dense(int64_t base, int64_t scale, int w, const char *s, const char *end, int64_t *out, size_t n)
{
    if ((w != 1 && w != 2 && w != 3 && w != 4 && w != 8 && w != 12) || (size_t)(end - s) != n * (size_t)w)
        return -1;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t k = 0; k < n; k++, u += w) {
        uint64_t raw = 0;
        for (int c = 0; c < (w <= 4 ? 1 : w / 4); c++) {
            int64_t ch = get_utf8(u + 4 * c, w <= 4 ? w : 4);
            if (ch < 0 || (w > 4 && ch < 0x10000))
                return -1;
            raw = (raw << 20) + (uint64_t)ch;
        }
        out[k] = value_at(base, scale, (int64_t)raw);
    }
    return 0;
}

static int decode_runs(int64_t base, int64_t scale, const char *s, const char *end, int64_t *out, size_t n)
{
    if (!take(&s, end, '['))
        return -1;
    for (size_t pos = 0; pos < n;) {
        int64_t k, len, x;
        if ((pos && !take(&s, end, ',')) || !take(&s, end, '[') || get_int(&s, end, &k) < 0 ||
            !take(&s, end, ',') || get_int(&s, end, &len) < 0 || !take(&s, end, ',') || get_int(&s, end, &x) < 0 ||
            !take(&s, end, ']'))
            return -1;
        /* In order, covering the piece: each run starts where the last
         * ended and stays inside it, so filling costs n at most. */
        if ((uint64_t)k != pos || len < 1 || (uint64_t)len > n - pos)
            return -1;
        int64_t v = value_at(base, scale, x);
        for (int64_t i = 0; i < len; i++)
            out[pos++] = v;
    }
    return take(&s, end, ']') && s == end ? 0 : -1;
}

int tick_piece_decode(enum tick_form form, int64_t base, int64_t scale, int width, const char *text, size_t len,
                      int64_t *out, size_t n)
{
    const char *end = text ? text + len : NULL;
    switch (form) {
    case TICK_CONST:
        for (size_t k = 0; k < n; k++)
            out[k] = base;
        return 0;
    case TICK_DENSE:
        return text ? decode_dense(base, scale, width, text, end, out, n) : -1;
    case TICK_RUNS:
        return text ? decode_runs(base, scale, text, end, out, n) : -1;
    }
    return -1;
}

/* The digits of m at buf, at least min of them: a tick's open row is some
 * 400 of these, every tick, on the sampler's thread (snprintf cost 60 us a
 * tick of it). */
static int put_digits(char *buf, uint64_t m, int min)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + m % 10);
        m /= 10;
    } while (m || n < min);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

int tick_format_value(char *buf, int64_t v, bool real)
{
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int n = 0;
    if (v < 0)
        buf[n++] = '-';
    if (!real) {
        n += put_digits(buf + n, m, 1);
    } else {
        n += put_digits(buf + n, m / 1000000, 1);
        buf[n++] = '.';
        n += put_digits(buf + n, m % 1000000, 6);
    }
    buf[n] = '\0';
    return n;
}

/* A real as tick_format_value writes it, back to millionths. */
static int get_real(const char **s, const char *end, int64_t *out)
{
    int64_t whole;
    bool neg = *s < end && **s == '-';
    if (get_int(s, end, &whole) < 0 || !take(s, end, '.'))
        return -1;
    int64_t frac = 0;
    for (int d = 0; d < 6; d++) {
        if (*s >= end || **s < '0' || **s > '9')
            return -1;
        frac = frac * 10 + (*(*s)++ - '0');
    }
    int64_t m;
    if (__builtin_mul_overflow(whole, (int64_t)1000000, &m) || __builtin_add_overflow(m, neg ? -frac : frac, &m))
        return -1;
    *out = m;
    return 0;
}

int tick_parse_open(const char *text, size_t len, const bool *real, int64_t *acc, bool *have, size_t n)
{
    const char *s = text, *end = text + len;
    if (!text || !take(&s, end, '['))
        return -1;
    size_t i = 0;
    /* A row written before a series first appeared ends before it. */
    for (; i < n && !(s < end && *s == ']'); i++) {
        if (i && !take(&s, end, ','))
            return -1;
        if (end - s >= 4 && memcmp(s, "null", 4) == 0) {
            s += 4;
            have[i] = false;
            continue;
        }
        if ((real[i] ? get_real(&s, end, &acc[i]) : get_int(&s, end, &acc[i])) < 0)
            return -1;
        have[i] = true;
    }
    for (size_t k = i; k < n; k++)
        have[k] = false;
    return take(&s, end, ']') && s == end ? 0 : -1;
}
