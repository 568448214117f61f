/* Sizes, durations and the number formats of the reports' tables. */
#include "lib/units.h"
#include "tests/tap.h"

int main(void)
{
    uint64_t b, ns, u;
    const uint64_t GiB = 1073741824ull;
    ok(pm_parse_size("512M", 0, &b) == 0 && b == 512ull << 20, "512M is 512 MiB");
    ok(pm_parse_size("3G", 0, &b) == 0 && b == 3 * GiB, "3G is 3 GiB");
    ok(pm_parse_size("1.5GiB", 0, &b) == 0 && b == GiB + GiB / 2, "1.5GiB");
    ok(pm_parse_size("64MiB", 0, &b) == 0 && b == 64ull << 20, "64MiB");
    ok(pm_parse_size("4096", 0, &b) == 0 && b == 4096, "bare bytes");
    ok(pm_parse_size("16K", 0, &b) == 0 && b == 16384, "16K");
    ok(pm_parse_size("75%", 8 * GiB, &b) == 0 && b == 6 * GiB, "75%% of 8 GiB is 6 GiB");
    ok(pm_parse_size("100%", 8 * GiB, &b) == 0 && b == 8 * GiB, "100%% is all");
    ok(pm_parse_size("0%", 8 * GiB, &b) < 0, "0%% refused");
    ok(pm_parse_size("101%", 8 * GiB, &b) < 0, "101%% refused");
    ok(pm_parse_size("75%", 0, &b) < 0, "percent without MemTotal refused");
    ok(pm_parse_size("12X", 0, &b) < 0, "unknown unit refused");
    ok(pm_parse_size("-1G", 0, &b) < 0, "negative refused");
    ok(pm_parse_size("", 0, &b) < 0, "empty refused");
    ok(pm_parse_size("G", 0, &b) < 0, "unit without number refused");
    ok(pm_parse_size("1.5", 0, &b) < 0, "fractional bytes refused");
    ok(pm_parse_size("inf", 0, &b) < 0, "inf refused");
    ok(pm_parse_size(" 5M", 0, &b) < 0, "leading blank refused");
    ok(pm_parse_size("99999999999T", 0, &b) < 0, "overflow refused");

    ok(pm_parse_duration("100ms", &ns) == 0 && ns == 100000000ull, "100ms");
    ok(pm_parse_duration("2s", &ns) == 0 && ns == 2000000000ull, "2s");
    ok(pm_parse_duration("5m", &ns) == 0 && ns == 300000000000ull, "5m");
    ok(pm_parse_duration("1.5s", &ns) == 0 && ns == 1500000000ull, "1.5s");
    ok(pm_parse_duration("250us", &ns) == 0 && ns == 250000ull, "250us");
    ok(pm_parse_duration("1h", &ns) == 0 && ns == 3600000000000ull, "1h");
    ok(pm_parse_duration("10", &ns) < 0, "a bare number is refused");
    ok(pm_parse_duration("10x", &ns) < 0, "unknown unit refused");
    ok(pm_parse_duration("-1s", &ns) < 0, "negative refused");

    ok(pm_parse_uint("3", 1, 10, &u) == 0 && u == 3, "3 in 1..10");
    ok(pm_parse_uint("0", 1, 10, &u) < 0, "0 below range");
    ok(pm_parse_uint("11", 1, 10, &u) < 0, "11 above range");
    ok(pm_parse_uint("3x", 1, 10, &u) < 0, "trailing junk refused");
    ok(pm_parse_uint("-3", 0, 10, &u) < 0, "negative refused");

    char buf[64];
    pm_fmt_thousands(buf, sizeof buf, 1987024);
    is_str(buf, "1,987,024", "the 2002 VolanoMark report's swpin figure");
    pm_fmt_thousands(buf, sizeof buf, 0);
    is_str(buf, "0", "zero");
    pm_fmt_thousands(buf, sizeof buf, 999);
    is_str(buf, "999", "three digits have no separator");
    pm_fmt_thousands(buf, sizeof buf, -4135124);
    is_str(buf, "-4,135,124", "negative");
    pm_fmt_elapsed(buf, sizeof buf, 393.72, true);
    is_str(buf, "6:33.72", "the 2004 objrmap report's 6:33.72elapsed");
    pm_fmt_elapsed(buf, sizeof buf, 371, false);
    is_str(buf, "6:11", "the 2004 objrmap report's Average elapsed = 6:11");
    pm_fmt_elapsed(buf, sizeof buf, 3723.5, true);
    is_str(buf, "1:02:03.50", "hours");
    pm_fmt_size(buf, sizeof buf, 64ull << 20);
    is_str(buf, "64.0 MiB", "size for people");

    /* Numbers for people: the tables' rule, never e-notation. */
    static const struct { double v; const char *want, *why; } num[] = {
        { 123456789, "123,456,789", "large: whole and grouped (not 1.23457e+08)" },
        { -98765432.4, "-98,765,432", "negative large" },
        { 51824.3, "51,824", "from 10,000 up, whole" },
        { 1234.56, "1,234.6", "from 100 up, one decimal" },
        { 512.34, "512.3", "hundreds" },
        { 51.24, "51.2", "three significant digits below 100" },
        { 1.5, "1.5", "trailing zeros dropped as %g drops them" },
        { 50, "50", "a whole number below 100" },
        { 0.00123, "0.00123", "0.00123 stays decimal" },
        { 0.0000123, "0.0000123", "0.0000123 stays decimal (not 1.23e-05)" },
        { -0.0000246, "-0.0000246", "negative small" },
        { 99.996, "100", "rounding up to the next power of ten" },
        { 0.00099996, "0.001", "  and below one" },
        { 1e-12, "<0.000000001", "below a billionth: a bound, not a row of zeros" },
        { 0, "0", "zero" },
        { -0.0, "0", "negative zero has no sign" },
        { 1e300, NULL, "1e300 all in digits" },
    };
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
        char big[512];
        pm_fmt_number(big, sizeof big, num[i].v);
        if (num[i].want)
            is_str(big, num[i].want, "number: %s", num[i].why);
        else
            ok(strlen(big) == 301 + 100 && !strpbrk(big, "eE"), "number: %s (%zu characters)", num[i].why, strlen(big));
    }
    pm_fmt_number(buf, sizeof buf, NAN);
    is_str(buf, "-", "NaN is nothing to show");
    pm_fmt_number(buf, sizeof buf, -INFINITY);
    is_str(buf, "-inf", "an infinity says so");
    pm_fmt_quantity(buf, sizeof buf, 79930.6, "KB");
    is_str(buf, "79,931 KB", "quantity: KB whole with its unit");
    pm_fmt_quantity(buf, sizeof buf, 12.4, "KB");
    is_str(buf, "12 KB", "  small KB whole too");
    pm_fmt_quantity(buf, sizeof buf, 0.0000123, "s");
    is_str(buf, "0.0000123 s", "quantity: seconds");
    pm_fmt_quantity(buf, sizeof buf, 123456789, "count");
    is_str(buf, "123,456,789", "quantity: a count has no unit word");
    pm_fmt_quantity(buf, sizeof buf, NAN, "s");
    is_str(buf, "-", "quantity: NaN without its unit");
    pm_fmt_sig(buf, sizeof buf, 224074074.3, 6);
    is_str(buf, "224,074,074", "sig: %%.6g's digits without its e+08");
    pm_fmt_sig(buf, sizeof buf, 0.05, 6);
    is_str(buf, "0.05", "sig: a setting as typed");
    pm_fmt_sig(buf, sizeof buf, 0.0000123456789, 4);
    is_str(buf, "0.00001235", "sig: four digits of a small number");
    pm_fmt_fixed(buf, sizeof buf, 223456789, 2);
    is_str(buf, "223,456,789.00", "fixed: places kept, whole part grouped");
    pm_fmt_fixed(buf, sizeof buf, -0.001, 2);
    is_str(buf, "0.00", "fixed: no negative zero");
    pm_fmt_number(buf, 8, 123456789);
    is_str(buf, "123,456", "a short buffer truncates, never overruns");

    /* Numbers for programs: exact, shortest, never an exponent. */
    char ex[PM_EXACT_LEN];
    pm_fmt_exact(ex, sizeof ex, 123456789);
    is_str(ex, "123456789", "exact: a whole number, no point, no grouping");
    pm_fmt_exact(ex, sizeof ex, 9223372036854771712.0);
    is_str(ex, "9223372036854771712", "exact: a counter above 2^53, every digit");
    pm_fmt_exact(ex, sizeof ex, 1e20);
    is_str(ex, "100000000000000000000", "exact: beyond 64 bits, still no e+20");
    pm_fmt_exact(ex, sizeof ex, 0.57);
    is_str(ex, "0.57", "exact: 0.57, not %%.17g's 0.56999999999999995");
    pm_fmt_exact(ex, sizeof ex, 1680000 / 1000000.0);
    is_str(ex, "1.68", "exact: a PSI average from its millionths");
    pm_fmt_exact(ex, sizeof ex, -0.000001);
    is_str(ex, "-0.000001", "exact: a millionth, no e-06");
    pm_fmt_exact(ex, sizeof ex, -0.0);
    is_str(ex, "0", "exact: zero has no sign");
    pm_fmt_exact(ex, sizeof ex, 1.7706822499999995);
    ok(strtod(ex, NULL) == 1.7706822499999995 && !strchr(ex, 'e'), "exact: 17 digits where they are needed (%s)", ex);
    pm_fmt_exact(ex, sizeof ex, 5e-324);
    ok(strtod(ex, NULL) == 5e-324 && strncmp(ex, "0.000", 5) == 0, "exact: the least subnormal, in places");
    pm_fmt_exact(ex, sizeof ex, NAN);
    is_str(ex, "nan", "exact: NaN is no number");
    return done_testing();
}
