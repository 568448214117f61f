#ifndef PM_TAP_H
#define PM_TAP_H
/* Minimal TAP producer for the C unit tests, read by prove. A failed
 * check's lines (its "not ok" line and its diagnostics) also go, as
 * tests/lib.sh's diag sends the shell tests', to the file PM_FAILURES
 * names when it is set (make test sets it), each prefixed with the test's
 * name (its program's, unit_lava.t) and ": ". Needs _GNU_SOURCE (the
 * Makefile's PM_CFLAGS) for that name and vasprintf. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_n, tap_failed;

/* One line (fmt without its newline) to the TAP stream and, when
 * PM_FAILURES names a file, appended to it as "NAME: LINE" in one write
 * (prove -j2 runs tests side by side); a failure to write it is ignored. */
__attribute__((format(printf, 1, 2), unused))
static void tap_diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    printf("%s\n", line);
    const char *path = getenv("PM_FAILURES");
    char *out = NULL;
    int m = path && *path ? asprintf(&out, "%s: %s\n", program_invocation_short_name, line) : -1;
    if (m > 0) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd >= 0) {
            if (write(fd, out, (size_t)m) < 0) {
                /* ignored: the TAP stream has the line */
            }
            close(fd);
        }
    }
    free(out);
    free(line);
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_num(got, want, tol, ...) tap_is_num((double)(got), (double)(want), (tol), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

/* A check's line: "ok N - ..." to the TAP stream, or "not ok N - ..."
 * through tap_diag. */
__attribute__((format(printf, 2, 0), unused))
static void tap_line(int pass, const char *fmt, va_list ap)
{
    char *desc = NULL;
    if (vasprintf(&desc, fmt, ap) < 0)
        desc = NULL;
    ++tap_n;
    if (pass)
        printf("ok %d - %s\n", tap_n, desc ? desc : "(out of memory)");
    else {
        tap_failed++;
        tap_diag("not ok %d - %s", tap_n, desc ? desc : "(out of memory)");
    }
    free(desc);
}

__attribute__((format(printf, 4, 5), unused))
static int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_line(pass, fmt, ap);
    va_end(ap);
    if (!pass)
        tap_diag("#   failed at %s line %d", file, line);
    return pass;
}

__attribute__((format(printf, 6, 7), unused))
static int tap_is_num(double got, double want, double tol, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int pass = fabs(got - want) <= tol || (isnan(got) && isnan(want));
    tap_line(pass, fmt, ap);
    va_end(ap);
    if (!pass)
        tap_diag("#   failed at %s line %d: got %.10g, want %.10g (tolerance %g)", file, line, got, want, tol);
    return pass;
}

__attribute__((format(printf, 5, 6), unused))
static int tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int pass = got && want && strcmp(got, want) == 0;
    tap_line(pass, fmt, ap);
    va_end(ap);
    if (!pass)
        tap_diag("#   failed at %s line %d: got '%s', want '%s'", file, line, got ? got : "(null)",
                 want ? want : "(null)");
    return pass;
}

__attribute__((unused))
static int done_testing(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

/* Read a fixture into a malloc'd buffer; exits the test on failure. */
__attribute__((unused))
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        tap_diag("Bail out! cannot open fixture %s", path);
        exit(1);
    }
    char *buf = malloc(1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}
#endif
