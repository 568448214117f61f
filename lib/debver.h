#ifndef PM_DEBVER_H
#define PM_DEBVER_H
/* Debian package versions ordered as dpkg orders them ([epoch:]upstream
 * [-revision]; '~' sorts before everything, even the end of the string),
 * so a bisection's candidates are in the order apt and dpkg see them.
 * Written here rather than spawning dpkg --compare-versions for each of
 * the n log n comparisons a sort makes; the tests hold it to dpkg's on
 * many pairs. */
#include <stdbool.h>

/* Is s a version dpkg accepts (an epoch of digits, an upstream part that
 * starts with a digit, only [A-Za-z0-9.+~-] and ':' after an epoch)? */
bool debver_valid(const char *s);
/* <0, 0 or >0 as a sorts before, with or after b. Both must be valid. */
int debver_cmp(const char *a, const char *b);

#endif
