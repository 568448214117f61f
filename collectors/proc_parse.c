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
    if (s >= end || (unsigned)(*s - '0') > 9)
        return false;
    uint64_t v = 0;
    bool over = false;
    unsigned d;
    /* Nineteen digits cannot overflow; only longer numbers are checked. */
    for (int k = 0; s < end && (d = (unsigned)(*s - '0')) <= 9; k++, s++) {
        if (k >= 19)
            over |= v > (UINT64_MAX - d) / 10;
        v = v * 10 + d;
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

/* "Node 0, zone   Normal   2853   3092 ..." -> node0.Normal */
static bool zone_header(const char *p, const char *eol, char *zone, size_t zlen, const char **after)
{
    /* By hand, not sscanf: sscanf measures the whole rest of the buffer
     * on every call, and zoneinfo has hundreds of lines. */
    if (eol - p < 12 || memcmp(p, "Node ", 5) != 0)
        return false;
    const char *q = p + 5;
    int64_t node;
    if (!read_int(&q, eol, &node) || node < 0 || node > 4095 || eol - q < 7 || memcmp(q, ", zone ", 7) != 0)
        return false;
    q += 7;
    while (q < eol && *q == ' ')
        q++;
    const char *name = q;
    while (q < eol && *q > 0x20 && *q < 0x7f)
        q++;
    size_t n = (size_t)(q - name);
    if (n == 0 || n > 31 || (q < eol && *q != ' ' && *q != '\t'))
        return false;
    snprintf(zone, zlen, "node%d.%.*s", (int)node, (int)n, name);
    *after = q;
    return true;
}

int parse_buddyinfo(const char *buf, size_t len, const char *prefix, struct sink *sink)
{
    const char *p = buf, *end = buf + len;
    int put = 0;
    /* Over all zones: pages free, and those in blocks of order 9 and more
     * (a 2 MB huge page on x86). */
    uint64_t free_all = 0, free_o9 = 0;
    bool any = false;
    while (p < end) {
        const char *eol = line_end(p, end), *q;
        char zone[64];
        if (zone_header(p, eol, zone, sizeof zone, &q)) {
            any = true;
            uint64_t zfree = 0;
            int64_t v;
            for (int order = 0; order < 20 && read_int(&q, eol, &v); order++) {
                char key[96];
                int kn = snprintf(key, sizeof key, "%s.order%d", zone, order);
                put += put_named(sink, prefix, key, (size_t)kn, (struct pm_value){ .kind = PM_INT, .i = v });
                if (v > 0) {
                    zfree += (uint64_t)v << order;
                    if (order >= 9)
                        free_o9 += (uint64_t)v << order;
                }
            }
            free_all += zfree;
        }
        p = eol + 1;
    }
    if (!any)
        return -1;
    /* Mel Gorman's unusable free space index for order 9: the share of free
     * memory that cannot serve a huge page, in thousandths. */
    int64_t unusable = free_all ? (int64_t)((free_all - free_o9) * 1000 / free_all) : 0;
    put += put_named(sink, prefix, "free_pages", 10, (struct pm_value){ .kind = PM_INT, .i = (int64_t)free_all });
    put += put_named(sink, prefix, "unusable_o9_permille", 20, (struct pm_value){ .kind = PM_INT, .i = unusable });
    return put;
}

/* One zone's free pages against its watermarks; a zone with no managed
 * pages (an empty Movable or Device zone) says nothing. */
static int put_zone(struct sink *sink, const char *prefix, const char *zone, const int64_t *val, unsigned have)
{
    static const char *const names[] = { "free", "min", "low", "high" };
    if ((have & 15) != 15 || ((have & 16) && val[4] == 0))
        return 0;
    int put = 0;
    char key[96];
    for (int i = 0; i < 4; i++) {
        int kn = snprintf(key, sizeof key, "%s.%s", zone, names[i]);
        put += put_named(sink, prefix, key, (size_t)kn, (struct pm_value){ .kind = PM_INT, .i = val[i] });
    }
    /* How far below the low watermark (kswapd wakes) and the min one
     * (allocations stall) the zone is now. */
    int kn = snprintf(key, sizeof key, "%s.below_low", zone);
    put += put_named(sink, prefix, key, (size_t)kn,
                     (struct pm_value){ .kind = PM_INT, .i = val[2] > val[0] ? val[2] - val[0] : 0 });
    kn = snprintf(key, sizeof key, "%s.below_min", zone);
    put += put_named(sink, prefix, key, (size_t)kn,
                     (struct pm_value){ .kind = PM_INT, .i = val[1] > val[0] ? val[1] - val[0] : 0 });
    return put;
}

int parse_zoneinfo(const char *buf, size_t len, const char *prefix, struct sink *sink)
{
    const char *p = buf, *end = buf + len;
    char zone[64] = "";
    int put = 0;
    /* The zone's own "key value" lines (the per-CPU pagesets below have
     * "high:" with a colon, never matched here). */
    static const char *const keys[] = { "pages free", "min", "low", "high", "managed" };
    int64_t val[5] = { 0 };
    unsigned have = 0;
    bool any = false;
    while (p < end) {
        const char *eol = line_end(p, end), *q;
        char z[64];
        if (zone_header(p, eol, z, sizeof z, &q)) {
            if (zone[0])
                put += put_zone(sink, prefix, zone, val, have);
            snprintf(zone, sizeof zone, "%s", z);
            have = 0;
            any = true;
        } else if (zone[0]) {
            const char *s = p;
            while (s < eol && *s == ' ')
                s++;
            for (unsigned k = 0; k < 5; k++) {
                size_t kl = strlen(keys[k]);
                if (!(have & (1u << k)) && (size_t)(eol - s) > kl && memcmp(s, keys[k], kl) == 0 && s[kl] == ' ') {
                    q = s + kl;
                    if (read_int(&q, eol, &val[k]))
                        have |= 1u << k;
                    break;
                }
            }
        }
        p = eol + 1;
    }
    if (zone[0])
        put += put_zone(sink, prefix, zone, val, have);
    return any ? put : -1;
}
