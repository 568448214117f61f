/* The size, duration and whole-number parsers on any string.
 * Properties: what is accepted is digits (with at most one '.') and a
 * known unit, nothing else; a whole number with a unit is converted
 * exactly (checked in 128-bit arithmetic); an accepted value printed as
 * plain bytes or nanoseconds parses back to itself; the formatters never
 * overrun their buffers; any number strtod reads is written for people
 * without e-notation and reads back within its rounding. */
#include "fuzz/fuzz.h"
#include <ctype.h>
#include <math.h>
#include <string.h>
#include "lib/units.h"

static const uint64_t mem_total = 24ULL << 30;

/* digits, optional '.digits', then the rest: the unit. */
static bool split_number(const char *s, unsigned __int128 *whole, bool *fraction, const char **unit)
{
    const char *p = s;
    *whole = 0;
    *fraction = false;
    bool digits = false;
    while (isdigit((unsigned char)*p)) {
        if (*whole < ((unsigned __int128)1 << 100))
            *whole = *whole * 10 + (unsigned)(*p - '0');
        p++;
        digits = true;
    }
    if (*p == '.') {
        *fraction = true;
        p++;
        while (isdigit((unsigned char)*p)) { p++; digits = true; }
    }
    *unit = p;
    return digits;
}

static uint64_t size_mult(const char *u)
{
    static const struct { const char *u; uint64_t m; } t[] = {
        { "", 1 }, { "B", 1 }, { "K", 1ULL << 10 }, { "KB", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "k", 1ULL << 10 },
        { "M", 1ULL << 20 }, { "MB", 1ULL << 20 }, { "MiB", 1ULL << 20 }, { "m", 1ULL << 20 },
        { "G", 1ULL << 30 }, { "GB", 1ULL << 30 }, { "GiB", 1ULL << 30 }, { "g", 1ULL << 30 },
        { "T", 1ULL << 40 }, { "TB", 1ULL << 40 }, { "TiB", 1ULL << 40 }, { "t", 1ULL << 40 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(u, t[i].u) == 0)
            return t[i].m;
    return 0;
}

static uint64_t duration_mult(const char *u)
{
    static const struct { const char *u; uint64_t m; } t[] = {
        { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
        { "m", 60000000000ULL }, { "min", 60000000000ULL }, { "h", 3600000000000ULL },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(u, t[i].u) == 0)
            return t[i].m;
    return 0;
}

static void check_size(const char *s)
{
    uint64_t b;
    unsigned __int128 whole;
    bool fraction;
    const char *unit;
    bool number = split_number(s, &whole, &fraction, &unit);
    if (pm_parse_size(s, mem_total, &b) < 0)
        return;
    FUZZ_ASSERT(number && (size_mult(unit) || strcmp(unit, "%") == 0), "accepted size '%s'", s);
    if (strcmp(unit, "%") == 0) {
        FUZZ_ASSERT(b <= mem_total, "'%s' is %llu bytes, more than MemTotal", s, (unsigned long long)b);
    } else if (!fraction) {
        unsigned __int128 want = whole * size_mult(unit);
        FUZZ_ASSERT(want == b, "'%s' gave %llu", s, (unsigned long long)b);
    } else {
        FUZZ_ASSERT(size_mult(unit) > 1, "a fraction of a byte accepted: '%s'", s);
    }
    char again[32];
    snprintf(again, sizeof again, "%llu", (unsigned long long)b);
    uint64_t b2;
    FUZZ_ASSERT(pm_parse_size(again, mem_total, &b2) == 0 && b2 == b, "'%s' does not parse back", again);
    char human[32];
    pm_fmt_size(human, sizeof human, b);
    FUZZ_ASSERT(strlen(human) < sizeof human - 1, "size text '%s' filled its buffer", human);
}

static void check_duration(const char *s)
{
    uint64_t ns;
    unsigned __int128 whole;
    bool fraction;
    const char *unit;
    bool number = split_number(s, &whole, &fraction, &unit);
    if (pm_parse_duration(s, &ns) < 0)
        return;
    FUZZ_ASSERT(number && duration_mult(unit), "accepted duration '%s'", s);
    FUZZ_ASSERT(ns < (1ULL << 63), "'%s' is %llu ns, beyond int64", s, (unsigned long long)ns);
    if (!fraction)
        FUZZ_ASSERT(whole * duration_mult(unit) == ns, "'%s' gave %llu ns", s, (unsigned long long)ns);
    char again[32];
    snprintf(again, sizeof again, "%lluns", (unsigned long long)ns);
    uint64_t ns2;
    FUZZ_ASSERT(pm_parse_duration(again, &ns2) == 0 && ns2 == ns, "'%s' does not parse back", again);
    char el[64];
    pm_fmt_elapsed(el, sizeof el, (double)ns / 1e9, true);
    pm_fmt_elapsed(el, sizeof el, (double)ns / 1e9, false);
}

static void check_uint(const char *s)
{
    uint64_t v;
    if (pm_parse_uint(s, 3, 1000000, &v) < 0)
        return;
    FUZZ_ASSERT(strspn(s, "0123456789") == strlen(s) && v >= 3 && v <= 1000000, "accepted '%s' as %llu", s,
                (unsigned long long)v);
    char th[32];
    pm_fmt_thousands(th, sizeof th, (int64_t)v);
    pm_fmt_thousands(th, sizeof th, -(int64_t)v);
}

/* Any number, as people read it: never in e-notation, the digits of a
 * big buffer reading back within the rounding the column rule allows,
 * and a short buffer truncated, never overrun. */
static void check_number(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return;
    char big[512], small[8], back[512];
    pm_fmt_number(big, sizeof big, v);
    pm_fmt_number(small, sizeof small, v);
    FUZZ_ASSERT(!strpbrk(big, "eE"), "'%s' written as '%s'", s, big);
    pm_fmt_sig(big, sizeof big, v, 17);
    FUZZ_ASSERT(!strpbrk(big, "eE"), "'%s' written to 17 digits as '%s'", s, big);
    pm_fmt_quantity(big, sizeof big, v, "KB");
    pm_fmt_fixed(small, sizeof small, v, 17);
    pm_fmt_number(big, sizeof big, v);
    if (!isfinite(v) || big[0] == '<' || big[0] == '>')
        return;
    size_t o = 0;
    for (const char *p = big; *p; p++)
        if (*p != ',')
            back[o++] = *p;
    back[o] = '\0';
    double a = fabs(v), got = strtod(back, NULL);
    double tol = a >= 10000 ? 0.5 : a >= 100 ? 0.05 : a * 0.005;
    FUZZ_ASSERT(fabs(got - v) <= tol * 1.000001 + a * 1e-15, "'%s' written as '%s'", s, big);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    check_size(s);
    check_duration(s);
    check_uint(s);
    check_number(s);
    free(s);
    return 0;
}
