#ifndef PM_UTF8_H
#define PM_UTF8_H
/* UTF-8 as RFC 3629 has it, for the outputs that need it whole (JSON,
 * systemd units). */
#include <stdbool.h>
#include <stddef.h>

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0. A NUL ends any sequence. */
size_t utf8_seq(const unsigned char *p);
/* Is the NUL-terminated s valid UTF-8 throughout? */
bool utf8_valid(const char *s);

#endif
