#ifndef PM_DYNLIB_H
#define PM_DYNLIB_H
/* A shared library opened when it is first needed, not linked: every
 * library pressmark links is mapped and relocated at each start, with its
 * own dependencies, though most commands never call it (libcurl and
 * libarchive brought ~50 libraries, ~20 ms of CPU at every start). The
 * library's own header still gives the types and constants; a table of
 * function pointers (lib/curl_lib.h, lib/archive_lib.h) replaces the
 * calls. */
#include <stddef.h>
#include "lib/err.h"

/* One function: its name in the library, and where its pointer goes in
 * the table (offsetof). */
struct pm_dynsym {
    const char *name;
    size_t off;
};

/* dlopen soname (RTLD_NOW, RTLD_LOCAL) and fill table with its n
 * functions. -1 with err naming the library or the missing function and
 * package, the Debian package that provides it; nothing is kept open then. */
int pm_dynlib_load(const char *soname, const char *package, const struct pm_dynsym *syms, size_t n, void *table,
                   struct pm_err *err);

#endif
