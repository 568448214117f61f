#include "collectors/proc_parse.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 160

/* Hand prefix.key to the sink; keys too long for a metric name are dropped
 * rather than truncated into a name that means something else. */
static int put_named(struct sink *sink, const char *prefix, const char *key, size_t keylen,
                     struct pm_value v)
{
    char name[NAME_MAX_LEN];
    size_t plen = strlen(prefix);
    if (plen + 1 + keylen >= sizeof name)
        return 0;
    memcpy(name, prefix, plen);
    name[plen] = '.';
    memcpy(name + plen + 1, key, keylen);
    sink->put(sink, name, plen + 1 + keylen, v);
    return 1;
}

/* Read a signed decimal integer at *p, advancing it; false if none there. */
static bool read_int(const char **p, const char *end, int64_t *out)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    bool neg = false;
    if (s < end && *s == '-') { neg = true; s++; }
    if (s >= end || !isdigit((unsigned char)*s))
        return false;
    uint64_t v = 0;
    bool over = false;
    while (s < end && isdigit((unsigned char)*s)) {
        unsigned d = (unsigned)(*s - '0');
        over |= v > (UINT64_MAX - d) / 10;
        v = v * 10 + d;
        s++;
    }
    /* A number beyond int64 is not a counter the kernel wrote: no value,
     * rather than a wrapped one. */
    if (over || v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *p = s;
    return true;
}

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

static bool starts_word(const char *p, const char *eol, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(eol - p) > n && memcmp(p, word, n) == 0 && (p[n] == ' ' || p[n] == '\t');
}

int parse_proc_stat(const char *buf, size_t len, const char *prefix, struct sink *sink)
{
    static const char *cpu_cols[] = { "user", "nice", "system", "idle", "iowait",
                                      "irq", "softirq", "steal" };
    /* Lines whose first number (or first two) we keep, with the names they get. */
    static const struct { const char *word; const char *names[2]; } lines[] = {
        { "ctxt", { "ctxt", NULL } },
        { "intr", { "intr", NULL } },
        { "processes", { "processes", NULL } },
        { "procs_running", { "procs_running", NULL } },
        { "procs_blocked", { "procs_blocked", NULL } },
        { "page", { "page.in", "page.out" } },
        { "swap", { "swap.in", "swap.out" } },
    };
    const char *p = buf, *end = buf + len;
    int put = 0;
    bool saw_cpu = false;
    while (p < end) {
        const char *eol = line_end(p, end);
        if (starts_word(p, eol, "cpu")) {
            saw_cpu = true;
            const char *q = p + 3;
            char key[32];
            for (size_t i = 0; i < sizeof cpu_cols / sizeof cpu_cols[0]; i++) {
                int64_t v;
                if (!read_int(&q, eol, &v))
                    break;
                int n = snprintf(key, sizeof key, "cpu.%s", cpu_cols[i]);
                put += put_named(sink, prefix, key, (size_t)n, (struct pm_value){ .kind = PM_INT, .i = v });
            }
        } else {
            for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
                if (!starts_word(p, eol, lines[i].word))
                    continue;
                const char *q = p + strlen(lines[i].word);
                for (int k = 0; k < 2 && lines[i].names[k]; k++) {
                    int64_t v;
                    if (!read_int(&q, eol, &v))
                        break;
                    put += put_named(sink, prefix, lines[i].names[k], strlen(lines[i].names[k]),
                                     (struct pm_value){ .kind = PM_INT, .i = v });
                }
                break;
            }
        }
        p = eol + 1;
    }
    return saw_cpu ? put : -1;
}

int parse_keyed_lines(const char *buf, size_t len, const char *prefix, struct sink *sink)
{
    const char *p = buf, *end = buf + len;
    int put = 0;
    while (p < end) {
        const char *eol = line_end(p, end);
        const char *k = p;
        while (k < eol && !isspace((unsigned char)*k) && *k != ':')
            k++;
        /* A key is printable ASCII, as the kernel writes them; anything
         * else would make a series name that no report can ask for. */
        for (const char *c = p; c < k; c++)
            if (*c < 0x21 || *c > 0x7e)
                k = p;
        size_t keylen = (size_t)(k - p);
        const char *q = k;
        if (q < eol && *q == ':')
            q++;
        int64_t v;
        if (keylen > 0 && read_int(&q, eol, &v))
            put += put_named(sink, prefix, p, keylen, (struct pm_value){ .kind = PM_INT, .i = v });
        p = eol + 1;
    }
    return put;
}

int parse_psi(const char *buf, size_t len, const char *prefix, struct sink *sink)
{
    const char *p = buf, *end = buf + len;
    int put = 0;
    while (p < end) {
        const char *eol = line_end(p, end);
        const char *kind = NULL;
        if (starts_word(p, eol, "some"))
            kind = "some";
        else if (starts_word(p, eol, "full"))
            kind = "full";
        if (kind) {
            char line[256];
            size_t n = (size_t)(eol - p) < sizeof line - 1 ? (size_t)(eol - p) : sizeof line - 1;
            memcpy(line, p, n);
            line[n] = '\0';
            const char *a = strstr(line, "avg10=");
            const char *t = strstr(line, "total=");
            char key[32];
            if (a) {
                char *e;
                errno = 0;
                double v = strtod(a + 6, &e);
                /* A share of time: a percentage, never nan or inf. */
                if (!errno && e != a + 6 && v >= 0 && v <= 100) {
                    int kn = snprintf(key, sizeof key, "%s.avg10", kind);
                    put += put_named(sink, prefix, key, (size_t)kn, (struct pm_value){ .kind = PM_REAL, .r = v });
                }
            }
            if (t) {
                const char *q = t + 6;
                int64_t v;
                if (read_int(&q, line + n, &v)) {
                    int kn = snprintf(key, sizeof key, "%s.total", kind);
                    put += put_named(sink, prefix, key, (size_t)kn, (struct pm_value){ .kind = PM_INT, .i = v });
                }
            }
        }
        p = eol + 1;
    }
    return put ? put : -1;
}

int parse_single_value(const char *buf, size_t len, const char *prefix, struct sink *sink)
{
    const char *q = buf;
    int64_t v;
    if (!read_int(&q, buf + len, &v))
        return 0;
    /* The name is the prefix itself: memcg.memory.current has no key part. */
    sink->put(sink, prefix, strlen(prefix), (struct pm_value){ .kind = PM_INT, .i = v });
    return 1;
}
