#ifndef PM_LABS_LAVA_TEXT_H
#define PM_LABS_LAVA_TEXT_H
/* What a LAVA lab says, made text a terminal shows as it is: its answers'
 * words (a version, a device, a failure_comment) and the reason a job
 * ended, which LAVA keeps as YAML in the metadata of the job's test case
 * "job" and which is read here with libyaml's parser. Everything the lab
 * sends is data: bounded, copied into fixed buffers, never a character
 * that a terminal acts on or that hides text. */
#include <stdbool.h>
#include <stddef.h>
#include "lib/err.h"

/* The most of a test case's metadata that is read: LAVA writes a few
 * hundred bytes (a kernel panic's lines a few KiB). */
#define LAVA_META_MAX (64u << 10)
/* How deep its YAML may nest, and how many parser events it may take. */
#define LAVA_META_DEPTH 16
#define LAVA_META_EVENTS 4096

/* Is the character at p (n bytes of valid UTF-8) one to hide: C0, DEL, C1,
 * or a Unicode format character or separator (bidirectional overrides,
 * zero-width characters, U+2028, U+2029, the byte order mark), which can
 * make text read otherwise than it is? */
bool lava_text_hidden(const unsigned char *p, size_t n);

/* s into buf (len bytes with its NUL): each byte that is not UTF-8 and
 * each character lava_text_hidden names becomes a space, and a character
 * is never cut: one that does not fit ends the text. NULL is "". */
void lava_text_clean(char *buf, size_t len, const char *s);

/* The reason a job ended, from meta (len bytes: LAVA's metadata of the
 * job's test case "job"), a YAML mapping whose error_type and error_msg
 * are scalars. buf (buflen bytes) gets "TYPE error: MSG" ("MSG" without a
 * type, "" without an error_msg), cleaned as lava_text_clean does, each
 * run of blanks, tabs and line breaks one space, none at a field's ends.
 * A longer reason is cut to buflen - 1 bytes exactly, or less by the
 * bytes of the one character that would cross that end. -1 with err (one
 * line: where, and what) and buf "" when meta is not such YAML: malformed,
 * not UTF-8, over LAVA_META_MAX bytes, LAVA_META_DEPTH levels or
 * LAVA_META_EVENTS events, an alias, more than one document, a key that
 * is not a scalar, or an error_type or error_msg that is not a scalar or
 * is there twice. */
int lava_case_reason(const char *meta, size_t len, char *buf, size_t buflen, struct pm_err *err);

#endif
