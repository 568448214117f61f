#include "lib/units.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* strtod accepts "inf", "nan", hex and leading blanks; sizes and durations
 * want none of those, so numbers are checked by hand first. */
static int parse_plain_number(const char *s, double *value, const char **rest)
{
    const char *p = s;
    bool digits = false;
    while (isdigit((unsigned char)*p)) { p++; digits = true; }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) { p++; digits = true; }
    }
    if (!digits)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end != p || !isfinite(v))
        return -1;
    *value = v;
    *rest = p;
    return 0;
}

int pm_parse_size(const char *s, uint64_t mem_total, uint64_t *bytes)
{
    double v;
    const char *unit;
    if (!s || parse_plain_number(s, &v, &unit) < 0)
        return -1;
    double mult;
    if (strcmp(unit, "%") == 0) {
        if (mem_total == 0 || v <= 0 || v > 100)
            return -1;
        *bytes = (uint64_t)(v / 100.0 * (double)mem_total);
        return 0;
    }
    static const struct { const char *suffix; double mult; } units[] = {
        { "", 1.0 }, { "B", 1.0 },
        { "K", 1024.0 }, { "KB", 1024.0 }, { "KiB", 1024.0 }, { "k", 1024.0 },
        { "M", 1048576.0 }, { "MB", 1048576.0 }, { "MiB", 1048576.0 }, { "m", 1048576.0 },
        { "G", 1073741824.0 }, { "GB", 1073741824.0 }, { "GiB", 1073741824.0 }, { "g", 1073741824.0 },
        { "T", 1099511627776.0 }, { "TB", 1099511627776.0 }, { "TiB", 1099511627776.0 }, { "t", 1099511627776.0 },
    };
    mult = -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].suffix) == 0) { mult = units[i].mult; break; }
    if (mult < 0)
        return -1;
    double b = v * mult;
    if (b >= 18446744073709551615.0)
        return -1;
    /* A fraction of a byte is a typo, not a request. */
    if (mult == 1.0 && floor(v) != v)
        return -1;
    *bytes = (uint64_t)b;
    return 0;
}

int pm_parse_duration(const char *s, uint64_t *ns)
{
    double v;
    const char *unit;
    if (!s || parse_plain_number(s, &v, &unit) < 0)
        return -1;
    static const struct { const char *suffix; double mult; } units[] = {
        { "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
        { "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].suffix) == 0) {
            double n = v * units[i].mult;
            if (n >= 9.2e18)
                return -1;
            *ns = (uint64_t)llround(n);
            return 0;
        }
    }
    return -1;
}

int pm_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

void pm_fmt_thousands(char *buf, size_t len, int64_t v)
{
    char digits[32];
    uint64_t mag = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)mag);
    char out[48];
    size_t o = 0;
    if (v < 0)
        out[o++] = '-';
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    snprintf(buf, len, "%s", out);
}

void pm_fmt_elapsed(char *buf, size_t len, double seconds, bool with_hundredths)
{
    if (!(seconds >= 0))
        seconds = 0;
    if (with_hundredths) {
        long long cs = llround(seconds * 100.0);
        long long h = cs / 360000, m = (cs / 6000) % 60, sec = (cs / 100) % 60, c = cs % 100;
        if (h > 0)
            snprintf(buf, len, "%lld:%02lld:%02lld.%02lld", h, m, sec, c);
        else
            snprintf(buf, len, "%lld:%02lld.%02lld", m, sec, c);
    } else {
        long long s = llround(seconds);
        snprintf(buf, len, "%lld:%02lld", s / 60, s % 60);
    }
}

void pm_fmt_size(char *buf, size_t len, uint64_t bytes)
{
    static const char *names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)bytes;
    int i = 0;
    while (v >= 1024.0 && i < 4) { v /= 1024.0; i++; }
    if (i == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.1f %s", v, names[i]);
}
