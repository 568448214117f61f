#ifndef PM_VERSION_H
#define PM_VERSION_H
/* pressmark's version, the one place it is written: git describe when built
 * from a clone, the package's version otherwise (the Makefile passes it). */
const char *pm_version(void);

#endif
