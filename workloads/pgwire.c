/* PostgreSQL's protocol, as little as pgwire.h says. Every message is a
 * type byte, a 32-bit big-endian length that counts itself, and a body. */
#include "workloads/pgwire.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Protocol 3.0, as the start-up message gives it. */
#define PG_PROTOCOL 196608u
/* The longest statement sent: pressmark's own, a few lines. */
#define PG_SQL_MAX 1024

static void put32(char *p, uint32_t v)
{
    p[0] = (char)(v >> 24);
    p[1] = (char)(v >> 16);
    p[2] = (char)(v >> 8);
    p[3] = (char)v;
}

static void put16(char *p, uint16_t v)
{
    p[0] = (char)(v >> 8);
    p[1] = (char)v;
}

static uint32_t get32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static uint16_t get16(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint16_t)(u[0] << 8 | u[1]);
}

/* One message as read: it stays in c->buf until the next is read. */
struct pg_msg {
    char type;
    const char *body;
    size_t len;
};

static int next_msg(struct pg_conn *c, struct pg_msg *m, struct pm_err *err)
{
    memmove(c->buf, c->buf + c->pending, c->have - c->pending);
    c->have -= c->pending;
    c->pending = 0;
    while (c->have < 5)
        if (kv_recv_more(c->fd, c->buf, sizeof c->buf, &c->have, c->io, err) < 0)
            return -1;
    uint32_t n = get32(c->buf + 1);
    if (n < 4 || n > PG_MSG_MAX)
        return pm_errf(err, "a message of %u bytes from the server (at most %d are read)", n, PG_MSG_MAX);
    while (c->have < 1 + (size_t)n)
        if (kv_recv_more(c->fd, c->buf, sizeof c->buf, &c->have, c->io, err) < 0)
            return -1;
    m->type = c->buf[0];
    m->body = c->buf + 5;
    m->len = n - 4;
    c->pending = 1 + (size_t)n;
    return 0;
}

void pg_error_text(const char *body, size_t len, char *out, size_t olen)
{
    const char *sev = "", *msg = "";
    size_t sl = 0, ml = 0;
    /* Fields: a type byte and a NUL-terminated string each, then a 0. */
    for (size_t i = 0; i < len && body[i];) {
        const char *v = body + i + 1, *end = memchr(v, '\0', len - i - 1);
        if (!end)
            break;
        if (body[i] == 'V' || (body[i] == 'S' && !sev[0]))
            sev = v, sl = (size_t)(end - v);
        else if (body[i] == 'M')
            msg = v, ml = (size_t)(end - v);
        i = (size_t)(end - body) + 1;
    }
    char raw[512];
    snprintf(raw, sizeof raw, "%.*s%s%.*s", (int)(sl < 32 ? sl : 32), sev, sl ? ": " : "",
             (int)(ml < 400 ? ml : 400), msg);
    size_t o = 0;
    for (const char *p = raw; *p && o + 1 < olen; p++)
        out[o++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
    if (olen)
        out[o] = '\0';
}

/* Until ReadyForQuery: a session as role postgres, without a password
 * (peer authentication on the socket is the cluster's only way in). */
int pg_startup(struct pg_conn *c, struct pm_err *err)
{
    static const char params[] = "user\0postgres\0database\0postgres\0application_name\0pressmark\0";
    char pkt[8 + sizeof params];
    put32(pkt, (uint32_t)sizeof pkt);
    put32(pkt + 4, PG_PROTOCOL);
    memcpy(pkt + 8, params, sizeof params);      /* its own NUL ends the list */
    if (kv_send_all(c->fd, pkt, sizeof pkt, c->io, err) < 0)
        return -1;
    struct pg_msg m;
    char text[512];
    for (;;) {
        if (next_msg(c, &m, err) < 0)
            return -1;
        switch (m.type) {
        case 'R':
            if (m.len < 4 || get32(m.body) != 0)
                return pm_errf(err, "the server asks for a password (authentication request %u), which this "
                               "cluster's pg_hba.conf never does on its socket", m.len < 4 ? 0 : get32(m.body));
            break;
        case 'E':
            pg_error_text(m.body, m.len, text, sizeof text);
            return pm_errf(err, "%s", text);
        case 'S':           /* ParameterStatus */
        case 'K':           /* BackendKeyData */
        case 'N':           /* NoticeResponse */
            break;
        case 'Z':
            return 0;
        default:
            return pm_errf(err, "a message of type 0x%02x while the session started", (unsigned char)m.type);
        }
    }
}

int pg_connect(struct pg_conn *c, const struct kv_server *s, const char *sock, const struct kv_io *io,
               struct pm_err *err)
{
    c->io = io;
    c->have = c->pending = 0;
    c->fd = kv_connect(sock, s->uid, 0, 0, err);
    if (c->fd < 0)
        return -1;
    if (kv_peer_check(s, c->fd, 0, err) < 0 || pg_startup(c, err) < 0) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    return 0;
}

void pg_close(struct pg_conn *c)
{
    if (c->fd < 0)
        return;
    char x[5] = { 'X' };
    put32(x + 1, 4);
    struct pm_err err;
    kv_send_all(c->fd, x, sizeof x, c->io, &err);
    close(c->fd);
    c->fd = -1;
}

int pg_row_u64(const char *body, size_t len, uint64_t *v, size_t n, struct pm_err *err)
{
    if (len < 2 || get16(body) != n)
        return pm_errf(err, "a row of %u columns where %zu were asked for", len < 2 ? 0 : get16(body), n);
    size_t at = 2;
    for (size_t i = 0; i < n; i++) {
        if (len - at < 4)
            return pm_errf(err, "a row shorter than its columns");
        uint32_t l = get32(body + at);
        at += 4;
        if (l == 0xffffffffu)
            return pm_errf(err, "column %zu is NULL, not a number", i + 1);
        /* UINT64_MAX has 20 digits: more is no counter, whatever it says. */
        char digits[21], q[128];
        if (l > len - at || l == 0 || l >= sizeof digits) {
            snprintf(q, sizeof q, "%s", l > len - at ? "beyond the row" : l ? "over 20 characters" : "empty");
            return pm_errf(err, "column %zu is not a whole number (%s)", i + 1, q);
        }
        memcpy(digits, body + at, l);
        digits[l] = '\0';
        at += l;
        const char *end;
        if (kv_u64(digits, &end, &v[i]) < 0 || *end) {
            kv_quote_line(digits, q, sizeof q);
            return pm_errf(err, "column %zu is not a whole number: '%s'", i + 1, q);
        }
    }
    return at == len ? 0 : pm_errf(err, "a row longer than its columns");
}

/* Parse, Bind, Execute and Sync of sql, one message after another. */
static size_t extended(const char *sql, char *out)
{
    size_t q = strlen(sql), o = 0;
    out[o++] = 'P';                              /* the unnamed statement, no parameter types */
    put32(out + o, (uint32_t)(4 + 1 + q + 1 + 2));
    o += 4;
    out[o++] = '\0';
    memcpy(out + o, sql, q + 1);
    o += q + 1;
    put16(out + o, 0);
    o += 2;
    out[o++] = 'B';                              /* the unnamed portal: no parameters, text results */
    put32(out + o, 4 + 1 + 1 + 2 + 2 + 2);
    o += 4;
    memset(out + o, 0, 8);
    o += 8;
    out[o++] = 'E';                              /* every row */
    put32(out + o, 4 + 1 + 4);
    o += 4;
    memset(out + o, 0, 5);
    o += 5;
    out[o++] = 'S';
    put32(out + o, 4);
    return o + 4;
}

int pg_query_u64(struct pg_conn *c, const char *sql, uint64_t *v, size_t n, struct pm_err *err)
{
    char out[PG_SQL_MAX + 64];
    if (strlen(sql) > PG_SQL_MAX)
        return pm_errf(err, "internal: a statement over %d bytes", PG_SQL_MAX);
    if (kv_send_all(c->fd, out, extended(sql, out), c->io, err) < 0)
        return -1;
    struct pg_msg m;
    struct pm_err first = { .msg = "" };
    unsigned rows = 0;
    /* Read to ReadyForQuery whatever came before: the session stays in step. */
    for (;;) {
        if (next_msg(c, &m, err) < 0)
            return -1;
        if (m.type == 'Z')
            break;
        if (m.type == 'D' && ++rows == 1 && !first.msg[0])
            pg_row_u64(m.body, m.len, v, n, &first);
        else if (m.type == 'E' && !first.msg[0])
            pg_error_text(m.body, m.len, first.msg, sizeof first.msg);
        else if (!strchr("12CNSnsD", m.type) || m.type == '\0')
            return pm_errf(err, "a message of type 0x%02x in reply to a statement", (unsigned char)m.type);
    }
    if (first.msg[0])
        return pm_errf(err, "%s", first.msg);
    return rows == 1 ? 0 : pm_errf(err, "%u rows where one was asked for", rows);
}
