/* A bisection's progress lines (bisect/bisect_int.h): one place that
 * escapes them, below every other part of the bisection. */
#include <stdarg.h>
#include <stdio.h>
#include "bisect/bisect_int.h"
#include "lib/quote.h"

void bisect_say(const struct bctx *c, const char *fmt, ...)
{
    char line[4096], q[4 * sizeof line + 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    quote_terminal(line, q, sizeof q);
    exp_say(c->ev, EXP_LOG, "%s\n", q);
}
