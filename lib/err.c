#include "lib/err.h"
#include <stdio.h>

int pm_errf(struct pm_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int pm_err_prefix(struct pm_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof err->msg)
        snprintf(err->msg + n, sizeof err->msg - (size_t)n, ": %s", why);
    return -1;
}
