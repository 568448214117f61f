#ifndef PM_LABS_GUEST_TOKEN_H
#define PM_LABS_GUEST_TOKEN_H
/* The artifact store token a LAVA job's guest is given: a read-only disk
 * whose serial is pressmark-token, its first line the token (a lab's
 * guest token writes only results; tools/lava-lab.sh). A disk, not the
 * job's definition or archive: those are public. */
#include <stddef.h>
#include "lib/err.h"

#define GUEST_TOKEN_SERIAL "pressmark-token"

/* The token of the disk under sys_block ("/sys/block") whose vd*'s
 * serial is GUEST_TOKEN_SERIAL, read from its device under dev ("/dev"):
 * its first line (up to a newline or NUL, at most 512 bytes), one of 16
 * to 512 characters of [A-Za-z0-9._~+/-]. 1 with it in token (len > 512),
 * 0 when no disk has that serial, -1 with err when the disk's first line
 * is no such token (err never holds its text). */
int lava_guest_token_find(const char *sys_block, const char *dev, char *token, size_t len, struct pm_err *err);

#endif
