#ifndef PM_LABS_TOKEN_FILE_H
#define PM_LABS_TOKEN_FILE_H
/* A secret token read from a file named by a suite key (lava-token-file,
 * lava-artifacts-token-file): a regular file, not a link, owned by this
 * user or root, readable by nobody else (mode & 077 == 0), one line of
 * min to max of the rule's characters. Its text is never echoed: a
 * message names the key, the file and what is wrong. */
#include <stddef.h>
#include "lib/err.h"

struct token_rule {
    const char *key;            /* the suite key, for messages: "lava-token-file" */
    const char *chars;          /* the characters a token may hold */
    size_t min, max;            /* its length (max at most 512) */
    const char *accepted;       /* "accepted: ..." of messages about its text */
};

/* The token into token (len > rule->max). -1 with err "KEY = PATH: why;
 * accepted: ...", nothing left in token. */
int token_file_read(const struct token_rule *rule, const char *path, char *token, size_t len, struct pm_err *err);

#endif
