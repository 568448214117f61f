#ifndef PM_TAP_H
#define PM_TAP_H
/* Minimal TAP producer for the C unit tests, read by prove. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_num(got, want, tol, ...) tap_is_num((double)(got), (double)(want), (tol), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 4, 5), unused))
static int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s %d - ", pass ? "ok" : "not ok", ++tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!pass) {
        tap_failed++;
        printf("#   failed at %s line %d\n", file, line);
    }
    return pass;
}

__attribute__((format(printf, 6, 7), unused))
static int tap_is_num(double got, double want, double tol, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int pass = fabs(got - want) <= tol || (isnan(got) && isnan(want));
    printf("%s %d - ", pass ? "ok" : "not ok", ++tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!pass) {
        tap_failed++;
        printf("#   failed at %s line %d: got %.10g, want %.10g (tolerance %g)\n", file, line, got, want, tol);
    }
    return pass;
}

__attribute__((format(printf, 5, 6), unused))
static int tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int pass = got && want && strcmp(got, want) == 0;
    printf("%s %d - ", pass ? "ok" : "not ok", ++tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!pass) {
        tap_failed++;
        printf("#   failed at %s line %d: got '%s', want '%s'\n", file, line, got ? got : "(null)", want ? want : "(null)");
    }
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
        printf("Bail out! cannot open fixture %s\n", path);
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
