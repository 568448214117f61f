#ifndef PM_UNITS_H
#define PM_UNITS_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/* Accepted forms, quoted verbatim in error messages so users see one wording. */
#define PM_SIZE_FORMS "a byte count with K, M, G or T (binary, KiB/MiB/GiB/TiB alike), e.g. 512M, 3G, 1.5GiB, or a percentage of MemTotal such as 75%"
#define PM_DURATION_FORMS "a number with ns, us, ms, s, m or h, e.g. 100ms, 2s, 5m"

/* Parse "512M", "1.5GiB", "4096", "75%". mem_total is MemTotal in bytes for
 * percentages (0 makes percentages an error). Returns 0 or -1. */
int pm_parse_size(const char *s, uint64_t mem_total, uint64_t *bytes);

/* Parse "100ms", "2s", "5m". A bare number is refused: a duration without a
 * unit is the classic source of a run a thousand times too long. */
int pm_parse_duration(const char *s, uint64_t *ns);

/* Parse a whole number within [min, max]. */
int pm_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* "1,987,024": thousands separators as in the reports' tables. */
void pm_fmt_thousands(char *buf, size_t len, int64_t v);

/* Numbers for people. None of these writes e-notation: printf's %g turns
 * 123456789 into 1.23457e+08 and 0.0000123 into 1.23e-05, which a reader
 * of a table skims past or misreads by a factor of a thousand. Whole
 * parts carry thousands separators as pm_fmt_thousands writes them; NaN
 * is "-" (nothing to show), infinities "inf" and "-inf". */

/* The reports' column rule: whole from 10,000 up ("123,456,789"), one
 * decimal from 100 ("512.3"), three significant digits below ("51.2",
 * "0.00123"); below a billionth "<0.000000001" rather than a row of
 * zeros. */
void pm_fmt_number(char *buf, size_t len, double v);
/* pm_fmt_number and the unit after a space ("79,931 KB", "51.2 ms"); KB,
 * the unit of swap totals, is always whole, as the 2002 tables print it;
 * "", "count" and "none" print no unit. */
void pm_fmt_quantity(char *buf, size_t len, double v, const char *unit);
/* digits significant digits (1 to 17) in plain decimals, trailing zeros
 * dropped: %g's precision without its exponent, for ratios, settings
 * and statistics a reader compares digit by digit. Whole digits are all
 * kept (1234567 to 3 digits is 1,234,567): a count stays exact. */
void pm_fmt_sig(char *buf, size_t len, double v, int digits);
/* Exactly decimals places (0 to 17), the whole part grouped: "%.2f" for
 * columns that line up on the point ("223,456,789.00"). */
void pm_fmt_fixed(char *buf, size_t len, double v, int decimals);

/* Numbers for programs (export, push): the fewest decimals that read back
 * as exactly v, never e-notation, no grouping: a whole value has no point
 * ("123456789", not "1.23456789e+08" or "123456789.0"), 0.57 is "0.57"
 * (not %.17g's 0.56999999999999995). NaN and the infinities are "nan",
 * "inf" and "-inf", which no format takes as a number: callers write
 * what their format has for them (an empty field, null, nothing). A
 * buffer of PM_EXACT_LEN holds any double (DBL_MAX has 309 digits, the
 * least subnormal 340 places); a shorter one truncates. */
#define PM_EXACT_LEN 400
void pm_fmt_exact(char *buf, size_t len, double v);

/* "6:33.72" (GNU time's elapsed) and "M:SS" for averages. */
void pm_fmt_elapsed(char *buf, size_t len, double seconds, bool with_hundredths);

/* "64.0 MiB" for people reading a cap. */
void pm_fmt_size(char *buf, size_t len, uint64_t bytes);

#endif
