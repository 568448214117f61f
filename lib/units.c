#include "lib/units.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* strtod accepts "inf", "nan", hex and leading blanks; sizes and durations
 * want none of those, so numbers are checked by hand first. A number
 * without a fraction is also read exactly into *whole (*exact false when
 * it has a fraction or does not fit in 64 bits), so 2^53 + 1 bytes stays
 * 2^53 + 1 bytes. */
static int parse_plain_number(const char *s, double *value, uint64_t *whole, bool *exact, const char **rest)
{
    const char *p = s;
    bool digits = false;
    uint64_t w = 0;
    *exact = true;
    while (isdigit((unsigned char)*p)) {
        unsigned d = (unsigned)(*p - '0');
        if (w > (UINT64_MAX - d) / 10)
            *exact = false;
        w = w * 10 + d;
        p++;
        digits = true;
    }
    if (*p == '.') {
        *exact = false;
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
    *whole = w;
    *rest = p;
    return 0;
}

/* whole * mult exactly, when there is no fraction and no overflow. */
static bool exact_product(bool exact, uint64_t whole, uint64_t mult, uint64_t *out)
{
    if (!exact || (whole != 0 && mult > UINT64_MAX / whole))
        return false;
    *out = whole * mult;
    return true;
}

int pm_parse_size(const char *s, uint64_t mem_total, uint64_t *bytes)
{
    double v;
    uint64_t whole;
    bool exact;
    const char *unit;
    if (!s || parse_plain_number(s, &v, &whole, &exact, &unit) < 0)
        return -1;
    if (strcmp(unit, "%") == 0) {
        if (mem_total == 0 || v <= 0 || v > 100)
            return -1;
        *bytes = (uint64_t)(v / 100.0 * (double)mem_total);
        return 0;
    }
    static const struct { const char *suffix; uint64_t mult; } units[] = {
        { "", 1 }, { "B", 1 },
        { "K", 1ULL << 10 }, { "KB", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "k", 1ULL << 10 },
        { "M", 1ULL << 20 }, { "MB", 1ULL << 20 }, { "MiB", 1ULL << 20 }, { "m", 1ULL << 20 },
        { "G", 1ULL << 30 }, { "GB", 1ULL << 30 }, { "GiB", 1ULL << 30 }, { "g", 1ULL << 30 },
        { "T", 1ULL << 40 }, { "TB", 1ULL << 40 }, { "TiB", 1ULL << 40 }, { "t", 1ULL << 40 },
    };
    uint64_t mult = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].suffix) == 0) { mult = units[i].mult; break; }
    if (mult == 0)
        return -1;
    if (exact_product(exact, whole, mult, bytes))
        return 0;
    /* A fraction of a byte is a typo, not a request. */
    if (mult == 1)
        return -1;
    double b = v * (double)mult;
    if (b >= 18446744073709551615.0)
        return -1;
    *bytes = (uint64_t)b;
    return 0;
}

int pm_parse_duration(const char *s, uint64_t *ns)
{
    double v;
    uint64_t whole;
    bool exact;
    const char *unit;
    if (!s || parse_plain_number(s, &v, &whole, &exact, &unit) < 0)
        return -1;
    static const struct { const char *suffix; uint64_t mult; } units[] = {
        { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
        { "m", 60000000000ULL }, { "min", 60000000000ULL }, { "h", 3600000000000ULL },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].suffix) != 0)
            continue;
        /* Below 2^63 ns (292 years): callers add durations to timestamps. */
        uint64_t n;
        if (exact_product(exact, whole, units[i].mult, &n)) {
            if (n >= (1ULL << 63))
                return -1;
            *ns = n;
            return 0;
        }
        double d = v * (double)units[i].mult;
        if (d >= 9.2e18)
            return -1;
        *ns = (uint64_t)llround(d);
        return 0;
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

/* s, a finite number as printf writes it ("-1234567.25"), with a comma
 * between each three digits of its whole part. */
static void group_digits(char *buf, size_t len, const char *s)
{
    char out[512];
    size_t o = 0;
    const char *p = s;
    if (*p == '-')
        out[o++] = *p++;
    size_t whole = strspn(p, "0123456789");
    for (size_t i = 0; i < whole && o < sizeof out - 2; i++) {
        if (i > 0 && (whole - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = p[i];
    }
    out[o] = '\0';
    snprintf(buf, len, "%s%s", out, p + whole);
}

void pm_fmt_thousands(char *buf, size_t len, int64_t v)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%lld", (long long)v);
    group_digits(buf, len, digits);
}

/* NaN and the infinities, which have no digits to group. */
static bool fmt_special(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (isinf(v))
        snprintf(buf, len, "%s", v < 0 ? "-inf" : "inf");
    else
        return false;
    return true;
}

/* "-0.00" is a negative too small for its places: zero has no sign. */
static void drop_negative_zero(char *s)
{
    if (s[0] == '-' && strspn(s + 1, "0.") == strlen(s + 1))
        memmove(s, s + 1, strlen(s));
}

void pm_fmt_fixed(char *buf, size_t len, double v, int decimals)
{
    if (fmt_special(buf, len, v))
        return;
    decimals = decimals < 0 ? 0 : decimals > 17 ? 17 : decimals;
    char s[400];
    snprintf(s, sizeof s, "%.*f", decimals, v);
    drop_negative_zero(s);
    group_digits(buf, len, s);
}

void pm_fmt_sig(char *buf, size_t len, double v, int digits)
{
    if (fmt_special(buf, len, v))
        return;
    digits = digits < 1 ? 1 : digits > 17 ? 17 : digits;
    double a = fabs(v);
    /* Digits this far right are noise to a reader; a bound says "not
     * zero" without a row of zeros. */
    if (a != 0 && a < 1e-9) {
        snprintf(buf, len, "%s0.000000001", v < 0 ? ">-" : "<");
        return;
    }
    int decimals = a == 0 ? 0 : digits - 1 - (int)floor(log10(a));
    char s[400];
    snprintf(s, sizeof s, "%.*f", decimals < 0 ? 0 : decimals, v);
    /* %g's trailing zeros go, as %g drops them: 1.50 is 1.5. */
    if (strchr(s, '.')) {
        size_t n = strlen(s);
        while (s[n - 1] == '0')
            s[--n] = '\0';
        if (s[n - 1] == '.')
            s[--n] = '\0';
    }
    drop_negative_zero(s);
    group_digits(buf, len, s);
}

void pm_fmt_number(char *buf, size_t len, double v)
{
    double a = fabs(v);
    if (isfinite(v) && a >= 10000)
        pm_fmt_fixed(buf, len, v, 0);
    else if (isfinite(v) && a >= 100)
        pm_fmt_fixed(buf, len, v, 1);
    else
        pm_fmt_sig(buf, len, v, 3);
}

void pm_fmt_quantity(char *buf, size_t len, double v, const char *unit)
{
    char n[512];
    if (unit && strcmp(unit, "KB") == 0)
        pm_fmt_fixed(n, sizeof n, v, 0);
    else
        pm_fmt_number(n, sizeof n, v);
    bool bare = !unit || !*unit || strcmp(unit, "count") == 0 || strcmp(unit, "none") == 0 || isnan(v);
    snprintf(buf, len, "%s%s%s", n, bare ? "" : " ", bare ? "" : unit);
}

void pm_fmt_exact(char *buf, size_t len, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    /* A whole value within 64 bits (every count a run stores) is its
     * integer: exact, and without the read-back below, which an export of
     * millions of samples would pay for each. */
    if (v == trunc(v) && v > -0x1p63 && v < 0x1p63) {
        snprintf(buf, len, "%lld", (long long)v);
        return;
    }
    char s[PM_EXACT_LEN];
    /* Every double from 2^52 up is whole, and %.0f writes a whole double's
     * digits exactly; below, the first number of places that reads back
     * as v is the shortest exact form (places 340 always do). */
    for (int places = 0; places <= 340; places++) {
        snprintf(s, sizeof s, "%.*f", places, v);
        if (strtod(s, NULL) == v)
            break;
    }
    drop_negative_zero(s);
    snprintf(buf, len, "%s", s);
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
