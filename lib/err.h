#ifndef PM_ERR_H
#define PM_ERR_H
/* Errors travel up as a message in a caller-owned buffer; only commands print
 * (make layering fails on an object outside cmd/ that names stdout or stderr).
 * Keeping the message with the failure lets the top level print one clear line
 * without every layer deciding how to talk to the user. */
#include <stdarg.h>

struct pm_err {
    char msg[512];
};

/* Fill err (if not NULL) and return -1, so callers can `return pm_errf(...)`. */
int pm_errf(struct pm_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Put what fmt says, and ": ", before err's message (a caller naming where
 * the failure below it was); -1, as pm_errf. */
int pm_err_prefix(struct pm_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
