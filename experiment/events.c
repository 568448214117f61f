#include "experiment/events.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void exp_say(const struct exp_events *ev, enum exp_stream stream, const char *fmt, ...)
{
    if (!ev || !ev->say)
        return;
    char buf[2048], *text = buf;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* A long diff or unit text does not fit the buffer: format it again
     * into one of its size rather than cut it. */
    if (n >= (int)sizeof buf && (text = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    ev->say(ev->arg, stream, text ? text : buf);
    if (text != buf)
        free(text);
}

static ssize_t say_write(void *cookie, const char *buf, size_t len)
{
    const struct exp_events *ev = cookie;
    char *text = strndup(buf, len);
    if (!text)
        return 0;           /* fopencookie's write says an error with 0 */
    ev->say(ev->arg, EXP_LOG, text);
    free(text);
    return (ssize_t)len;
}

FILE *exp_say_file(const struct exp_events *ev)
{
    if (!ev || !ev->say)
        return NULL;
    cookie_io_functions_t io = { .write = say_write };
    FILE *f = fopencookie((void *)ev, "w", io);
    if (f)
        setvbuf(f, NULL, _IOLBF, 0);
    return f;
}
