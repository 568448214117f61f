#include "lib/version.h"

#ifndef PM_VERSION
#define PM_VERSION "unknown"
#endif

const char *pm_version(void)
{
    return PM_VERSION;
}
