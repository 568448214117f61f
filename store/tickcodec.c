#include "store/tickcodec.h"
#include <stdlib.h>
#include <string.h>

void tick_encoder_init(struct tick_encoder *e)
{
    memset(e, 0, sizeof *e);
}

void tick_encoder_free(struct tick_encoder *e)
{
    free(e->last);
    free(e->stored);
    free(e->buf);
    memset(e, 0, sizeof *e);
}

static int reserve(struct tick_encoder *e, size_t nseries)
{
    if (nseries > e->cap) {
        size_t cap = nseries < 256 ? 256 : nseries * 2;
        int64_t *l = realloc(e->last, cap * sizeof *l);
        if (!l)
            return -1;
        e->last = l;
        bool *s = realloc(e->stored, cap * sizeof *s);
        if (!s)
            return -1;
        e->stored = s;
        memset(e->last + e->cap, 0, (cap - e->cap) * sizeof *l);
        memset(e->stored + e->cap, 0, (cap - e->cap) * sizeof *s);
        e->cap = cap;
    }
    if (nseries > e->n)
        e->n = nseries;
    /* Worst case: every series changes, 10 bytes for each varint. */
    size_t need = nseries * 20 + 16;
    if (need > e->bufcap) {
        uint8_t *b = realloc(e->buf, need);
        if (!b)
            return -1;
        e->buf = b;
        e->bufcap = need;
    }
    e->len = 0;
    return 0;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* The change as an unsigned number, small for small changes either way;
 * computed in unsigned arithmetic so a wrap of a 64-bit counter is a
 * change like any other. */
static uint64_t zigzag(int64_t now, int64_t before)
{
    uint64_t d = (uint64_t)now - (uint64_t)before;
    return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static uint8_t *put_value(struct tick_encoder *e, uint8_t *p, size_t i, int64_t v, size_t *prev)
{
    if (e->stored[i] && e->last[i] == v)
        return p;
    p = put_varint(p, i - *prev);
    p = put_varint(p, zigzag(v, e->stored[i] ? e->last[i] : 0));
    e->last[i] = v;
    e->stored[i] = true;
    *prev = i + 1;
    return p;
}

int tick_encode_values(struct tick_encoder *e, size_t nseries, const size_t *idx, const int64_t *v, size_t k)
{
    if (reserve(e, nseries) < 0)
        return -1;
    uint8_t *p = e->buf;
    size_t prev = 0;
    for (size_t j = 0; j < k; j++)
        if (idx[j] < nseries && (j == 0 || idx[j] > idx[j - 1]))
            p = put_value(e, p, idx[j], v[j], &prev);
    e->len = (size_t)(p - e->buf);
    return 0;
}

static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*p >= end)
            return -1;
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

int tick_decode(const uint8_t *p, size_t len, int64_t *acc, bool *changed, size_t n)
{
    const uint8_t *end = p + len;
    size_t next = 0;
    while (p < end) {
        uint64_t gap, z;
        if (get_varint(&p, end, &gap) < 0 || get_varint(&p, end, &z) < 0)
            return -1;
        if (next >= n || gap >= n - next)
            return -1;
        size_t i = next + (size_t)gap;
        uint64_t d = (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
        acc[i] = (int64_t)((uint64_t)acc[i] + d);
        if (changed)
            changed[i] = true;
        next = i + 1;
    }
    return 0;
}
