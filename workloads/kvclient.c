/* RESP and memcached's text protocol, as little as kvclient.h says. */
#include "workloads/kvclient.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/timeutil.h"
#include "workloads/kvserver.h"
#include "workloads/kvuser.h"

/* Wait until fd can be read or written, at most until io's deadline, in
 * slices that look at the run's abort (Ctrl-C, --timeout's stop): a
 * signal's EINTR never starts the wait anew. -1 with err. */
static int wait_fd(int fd, short events, const struct kv_io *io, struct pm_err *err)
{
    struct pollfd p = { .fd = fd, .events = events };
    for (;;) {
        uint64_t now = pm_now_ns();
        if (io->rc && run_check_abort(io->rc))
            return pm_errf(err, "interrupted while waiting for the server");
        if (now >= io->deadline_ns)
            return pm_errf(err, "the server did not answer in time");
        uint64_t left = (io->deadline_ns - now) / 1000000ull + 1;
        int r = poll(&p, 1, left > 200 ? 200 : (int)left);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return pm_errf(err, "poll: %s", strerror(errno));
    }
}

int kv_send_all(int fd, const char *buf, size_t n, const struct kv_io *io, struct pm_err *err)
{
    while (n) {
        if (wait_fd(fd, POLLOUT, io, err) < 0)
            return -1;
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return pm_errf(err, "writing to the server: %s", w < 0 ? strerror(errno) : "closed");
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

int kv_recv_more(int fd, char *buf, size_t len, size_t *have, const struct kv_io *io, struct pm_err *err)
{
    if (*have + 1 >= len)
        return pm_errf(err, "the server's reply is longer than %zu bytes", len - 1);
    if (wait_fd(fd, POLLIN, io, err) < 0)
        return -1;
    ssize_t r;
    while ((r = recv(fd, buf + *have, len - 1 - *have, 0)) < 0 && errno == EINTR)
        ;
    if (r <= 0)
        return pm_errf(err, "reading from the server: %s", r < 0 ? strerror(errno) : "it closed the connection");
    *have += (size_t)r;
    buf[*have] = '\0';
    return 0;
}

void kv_quote_text(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (; *s && *s != '\r' && *s != '\n' && o + 1 < len; s++)
        out[o++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
    out[o] = '\0';
}

void kv_quote_line(const char *s, char *out, size_t len)
{
    kv_quote_text(s, out, len < 121 ? len : 121);
}

void kv_printable_lines(char *s)
{
    for (; *s; s++)
        if (*s != '\n' && !(*s >= 0x20 && *s < 0x7f))
            *s = '?';
}

/* INFO's "$N\r\n" then N bytes and "\r\n"; buf gets the N bytes. */
static int redis_info(int fd, char *buf, size_t len, const struct kv_io *io, struct pm_err *err)
{
    static const char cmd[] = "*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n";
    if (kv_send_all(fd, cmd, sizeof cmd - 1, io, err) < 0)
        return -1;
    size_t have = 0;
    char *eol;
    while (!(eol = memchr(buf, '\n', have)))
        if (kv_recv_more(fd, buf, len, &have, io, err) < 0)
            return -1;
    char q[128];
    kv_quote_line(buf, q, sizeof q);
    char *end = buf;
    errno = 0;
    unsigned long long n = buf[0] == '$' && buf[1] >= '0' && buf[1] <= '9' ? strtoull(buf + 1, &end, 10) : 0;
    size_t head = (size_t)(eol + 1 - buf);
    if (errno || end != eol - 1 || *end != '\r' || n == 0 || n > len || head + n + 2 > len - 1)
        return pm_errf(err, "INFO's reply is not a bulk string of at most %zu bytes: '%s'", len, q);
    size_t start = head, want = start + (size_t)n + 2;
    while (have < want)
        if (kv_recv_more(fd, buf, len, &have, io, err) < 0)
            return -1;
    if (have != want || memcmp(buf + start + n, "\r\n", 2) != 0)
        return pm_errf(err, "INFO's reply does not end where its length says");
    memmove(buf, buf + start, (size_t)n);
    buf[n] = '\0';
    if (memchr(buf, '\0', (size_t)n))
        return pm_errf(err, "INFO's reply holds a NUL byte");
    return 0;
}

/* "STAT name value\r\n" lines, then "END\r\n". */
static int memcached_stats(int fd, char *buf, size_t len, const struct kv_io *io, struct pm_err *err)
{
    static const char cmd[] = "stats\r\n";
    if (kv_send_all(fd, cmd, sizeof cmd - 1, io, err) < 0)
        return -1;
    size_t have = 0;
    for (;;) {
        if (kv_recv_more(fd, buf, len, &have, io, err) < 0)
            return -1;
        if (memchr(buf, '\0', have))
            return pm_errf(err, "stats' reply holds a NUL byte");
        if (have >= 5 && strcmp(buf + have - 5, "END\r\n") == 0 && (have == 5 || buf[have - 6] == '\n'))
            break;
    }
    for (const char *l = buf; *l; l = strchr(l, '\n') + 1) {
        char q[128];
        kv_quote_line(l, q, sizeof q);
        if (strncmp(l, "STAT ", 5) != 0 && strcmp(l, "END\r\n") != 0)
            return pm_errf(err, "stats' reply has a line of another shape: '%s'", q);
    }
    return 0;
}

int kv_stats(int fd, enum kv_proto p, const struct kv_io *io, char *buf, size_t len, struct pm_err *err)
{
    buf[0] = '\0';
    return p == KV_REDIS ? redis_info(fd, buf, len, io, err) : memcached_stats(fd, buf, len, io, err);
}

int kv_auth(int fd, enum kv_proto p, const char *user, const char *secret, const struct kv_io *io,
            struct pm_err *err)
{
    char cmd[256], reply[256];
    /* memcached's -Y: the connection's first command is a set whose data
     * is "USER SECRET", taken as credentials and never stored. */
    int n = p == KV_REDIS ? snprintf(cmd, sizeof cmd, "*3\r\n$4\r\nAUTH\r\n$%zu\r\n%s\r\n$%zu\r\n%s\r\n",
                                     strlen(user), user, strlen(secret), secret)
                          : snprintf(cmd, sizeof cmd, "set %s 0 0 %zu\r\n%s %s\r\n", user,
                                     strlen(user) + 1 + strlen(secret), user, secret);
    if (n < 0 || (size_t)n >= sizeof cmd)
        return pm_errf(err, "internal: AUTH too long");
    if (kv_send_all(fd, cmd, (size_t)n, io, err) < 0)
        return -1;
    size_t have = 0;
    while (!memchr(reply, '\n', have))
        if (kv_recv_more(fd, reply, sizeof reply, &have, io, err) < 0)
            return -1;
    char q[128];
    kv_quote_line(reply, q, sizeof q);
    const char *want = p == KV_REDIS ? "+OK\r\n" : "STORED\r\n";
    if (have != strlen(want) || memcmp(reply, want, have) != 0)
        return pm_errf(err, "%s was refused: '%s'", p == KV_REDIS ? "AUTH" : "signing in", q);
    return 0;
}

int kv_u64(const char *s, const char **end, uint64_t *v)
{
    const char *d = s;
    uint64_t x = 0;
    for (; *d >= '0' && *d <= '9'; d++)
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, (uint64_t)(*d - '0'), &x))
            return -1;
    if (d == s)
        return -1;
    *end = d;
    *v = x;
    return 0;
}

int kv_word_u64(const char **s, const char *word, uint64_t *v)
{
    size_t n = strlen(word);
    const char *end;
    if (strncmp(*s, word, n) != 0 || (*s)[n] != ' ' || kv_u64(*s + n + 1, &end, v) < 0)
        return -1;
    *s = end;
    return 0;
}

int kv_stat_u64(const char *text, enum kv_proto p, const char *key, uint64_t *v)
{
    char pat[96];
    snprintf(pat, sizeof pat, p == KV_REDIS ? "%s:" : "STAT %s ", key);
    size_t pl = strlen(pat);
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, pat, pl) != 0)
            continue;
        const char *d;
        if (kv_u64(l + pl, &d, v) < 0 || (*d != '\r' && *d != '\n' && *d != '\0'))
            return -1;
        return 0;
    }
    return -1;
}

char *kv_value_block(uint64_t value_size)
{
    /* One random block, each value a window of it: no page of the data set
     * compresses (zram and zswap see what a real cache holds), at no cost. */
    size_t blen = (size_t)value_size + KV_VALUE_WINDOWS;
    char *block = malloc(blen);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; block && i < blen; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        block[i] = (char)(x >> 24);
    }
    return block;
}

const char *kv_value_of(const char *block, uint64_t key)
{
    return block + (key * 97) % KV_VALUE_WINDOWS;
}

/* The loader's settings, from its command line. */
struct load_args {
    enum kv_proto proto;
    const char *sock;
    unsigned port;
    unsigned long long keys, value_size;
};

static int load_args(int argc, char **argv, struct load_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--proto=redis") == 0) a->proto = KV_REDIS;
        else if (strcmp(s, "--proto=memcached") == 0) a->proto = KV_MEMCACHED;
        else if (strncmp(s, "--socket=", 9) == 0) a->sock = s + 9;
        else if (strncmp(s, "--port=", 7) == 0) a->port = (unsigned)strtoul(s + 7, NULL, 10);
        else if (strncmp(s, "--keys=", 7) == 0) a->keys = strtoull(s + 7, NULL, 10);
        else if (strncmp(s, "--value-size=", 13) == 0) a->value_size = strtoull(s + 13, NULL, 10);
        else return -1;
    }
    return (a->sock || a->port) && a->value_size > 0 && a->value_size <= (64u << 20) ? 0 : -1;
}

/* One SET (or set) of key i into out; its length. */
static size_t format_set(const struct load_args *a, unsigned long long i, const char *value, char *out)
{
    char key[32];
    int kl = snprintf(key, sizeof key, "key:%012llu", i);
    int n = a->proto == KV_REDIS
        ? sprintf(out, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%llu\r\n", kl, key, a->value_size)
        : sprintf(out, "set %s 0 0 %llu\r\n", key, a->value_size);
    memcpy(out + n, value, a->value_size);
    memcpy(out + n + a->value_size, "\r\n", 2);
    return (size_t)n + a->value_size + 2;
}

/* The replies of n commands, each one line: +OK / STORED, or an error
 * (counted, the first kept in first). */
struct replies {
    char buf[4096];
    size_t have;
};

/* What the load counted from the server's replies: the sets it stored
 * are its +OKs, never the keys asked for. */
struct tally {
    unsigned long long oks, errors;
    char first[128];
};

/* Each read's deadline: a server deep in swap is slow, not dead. */
static struct kv_io reply_io(void)
{
    return (struct kv_io){ .deadline_ns = pm_now_ns() + (uint64_t)KV_REPLY_MS * 1000000ull };
}

static int read_replies(int fd, const struct load_args *a, struct replies *r, unsigned n, struct tally *t,
                        struct pm_err *err)
{
    while (n) {
        char *eol = memchr(r->buf, '\n', r->have);
        if (!eol) {
            struct kv_io io = reply_io();
            if (kv_recv_more(fd, r->buf, sizeof r->buf, &r->have, &io, err) < 0)
                return -1;
            continue;
        }
        bool good = a->proto == KV_REDIS ? strncmp(r->buf, "+OK\r\n", 5) == 0 : strncmp(r->buf, "STORED\r\n", 8) == 0;
        if (!good && a->proto == KV_REDIS && r->buf[0] != '-')
            return pm_errf(err, "a reply to SET of another shape than +OK or an error");
        t->oks += good;
        if (!good && !t->errors++)
            kv_quote_line(r->buf, t->first, sizeof t->first);
        size_t used = (size_t)(eol + 1 - r->buf);
        memmove(r->buf, eol + 1, r->have - used);
        r->have -= used;
        r->buf[r->have] = '\0';
        n--;
    }
    return 0;
}

static int load(const struct load_args *a, struct tally *t, struct pm_err *err)
{
    /* As the server's user (kvrun.c): the socket is its own. */
    int fd = kv_connect(a->sock, geteuid(), a->port, 5000, err);
    if (fd < 0)
        return -1;
    /* pressmark's password, from the environment pressmark gave it (never
     * its command line, which any user may read). */
    const char *secret = getenv(KV_AUTH_ENV);
    struct kv_io io = reply_io();
    if (secret && *secret && kv_auth(fd, a->proto, KV_AUTH_USER, secret, &io, err) < 0) {
        close(fd);
        return -1;
    }
    size_t vlen = (size_t)a->value_size;
    unsigned batch = (unsigned)(256 * 1024 / (vlen + 64));
    batch = batch < 1 ? 1 : batch > 64 ? 64 : batch;
    char *block = kv_value_block(a->value_size), *out = malloc((vlen + 96) * batch);
    struct replies *r = calloc(1, sizeof *r);
    int result = block && out && r ? 0 : pm_errf(err, "out of memory");
    for (unsigned long long k = 0; result == 0 && k < a->keys;) {
        size_t n = 0;
        unsigned in_batch = 0;
        for (; in_batch < batch && k < a->keys; in_batch++, k++)
            n += format_set(a, k, kv_value_of(block, k), out + n);
        io = reply_io();
        if (kv_send_all(fd, out, n, &io, err) < 0 || read_replies(fd, a, r, in_batch, t, err) < 0)
            result = -1;
    }
    free(block);
    free(out);
    free(r);
    close(fd);
    return result;
}

int kv_helper_start(struct pm_err *err)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || prctl(PR_SET_DUMPABLE, 0) < 0)
        return pm_errf(err, "prctl: %s", strerror(errno));
    return 0;
}

int kv_load_main(int argc, char **argv)
{
    struct pm_err err;
    if (kv_helper_start(&err) < 0) {
        fprintf(stderr, "pressmark __kv-load: %s\n", err.msg);
        return 1;
    }
    struct load_args a;
    if (load_args(argc, argv, &a) < 0) {
        fprintf(stderr, "pressmark __kv-load: bad arguments\n");
        return 2;
    }
    struct tally t = { .oks = 0 };
    uint64_t t0 = pm_now_ns();
    if (load(&a, &t, &err) < 0) {
        fprintf(stderr, "pressmark __kv-load: %s\n", err.msg);
        return 1;
    }
    char rep[256];
    int n = snprintf(rep, sizeof rep, "sets %llu errors %llu ns %llu\n%s%s%s", t.oks, t.errors,
                     (unsigned long long)(pm_now_ns() - t0), t.first[0] ? "error " : "", t.first,
                     t.first[0] ? "\n" : "");
    return write(4, rep, (size_t)n) == n ? 0 : 1;
}
