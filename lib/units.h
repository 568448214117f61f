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

/* "6:33.72" (GNU time's elapsed) and "M:SS" for averages. */
void pm_fmt_elapsed(char *buf, size_t len, double seconds, bool with_hundredths);

/* "64.0 MiB" for people reading a cap. */
void pm_fmt_size(char *buf, size_t len, uint64_t bytes);

#endif
