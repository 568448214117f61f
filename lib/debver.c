/* dpkg's version order, as lib/vercmp.c of dpkg defines it (verrevcmp):
 * the epoch numerically, then the upstream version and the revision each
 * compared as alternating runs of non-digits (by a character order in
 * which '~' comes first, then the end of the part, then letters, then
 * everything else) and of digits (numerically). */
#include "lib/debver.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct parts {
    unsigned long epoch;
    const char *up, *up_end, *rev;  /* rev: "" when there is none */
};

static void split(const char *s, struct parts *p)
{
    const char *colon = strchr(s, ':');
    p->epoch = colon ? strtoul(s, NULL, 10) : 0;
    p->up = colon ? colon + 1 : s;
    const char *dash = strrchr(p->up, '-');
    p->up_end = dash ? dash : p->up + strlen(p->up);
    p->rev = dash ? dash + 1 : "";
}

/* A character's weight among non-digits: '~' lowest, then the end, then
 * letters, then the rest by their code. */
static int order(int c)
{
    if (c == '~')
        return -1;
    if (c == 0 || isdigit(c))
        return 0;
    if (isalpha(c))
        return c;
    return c + 256;
}

/* Compare [a, ae) with [b, be) as dpkg's verrevcmp does. */
static int verrevcmp(const char *a, const char *ae, const char *b, const char *be)
{
    while (a < ae || b < be) {
        int first_diff = 0;
        while ((a < ae && !isdigit((unsigned char)*a)) || (b < be && !isdigit((unsigned char)*b))) {
            int ac = a < ae ? order((unsigned char)*a) : 0, bc = b < be ? order((unsigned char)*b) : 0;
            if (ac != bc)
                return ac - bc;
            a += a < ae;
            b += b < be;
        }
        while (a < ae && *a == '0')
            a++;
        while (b < be && *b == '0')
            b++;
        while (a < ae && isdigit((unsigned char)*a) && b < be && isdigit((unsigned char)*b)) {
            if (!first_diff)
                first_diff = *a - *b;
            a++;
            b++;
        }
        if (a < ae && isdigit((unsigned char)*a))
            return 1;
        if (b < be && isdigit((unsigned char)*b))
            return -1;
        if (first_diff)
            return first_diff;
    }
    return 0;
}

int debver_cmp(const char *a, const char *b)
{
    struct parts x, y;
    split(a, &x);
    split(b, &y);
    if (x.epoch != y.epoch)
        return x.epoch < y.epoch ? -1 : 1;
    int r = verrevcmp(x.up, x.up_end, y.up, y.up_end);
    if (r)
        return r;
    return verrevcmp(x.rev, x.rev + strlen(x.rev), y.rev, y.rev + strlen(y.rev));
}

bool debver_valid(const char *s)
{
    const char *colon = strchr(s, ':');
    if (colon) {
        if (colon == s || strspn(s, "0123456789") != (size_t)(colon - s) || colon - s > 9)
            return false;
        s = colon + 1;
    }
    if (!isdigit((unsigned char)s[0]))
        return false;
    const char *dash = strrchr(s, '-');
    size_t n = strlen(s);
    if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+~-") != n)
        return false;
    return !dash || (dash[1] && strspn(dash + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+~") ==
                                    strlen(dash + 1));
}
