#ifndef PM_DYNLIB_H
#define PM_DYNLIB_H
/* A shared library opened when it is first needed, not linked: every
 * library pressmark links is mapped and relocated at each start, with its
 * own dependencies, though most commands never call it (libcurl and
 * libarchive brought ~50 libraries, ~20 ms of CPU at every start). The
 * library's own header still gives the types and constants; a table of
 * function pointers (lib/curl_lib.h, lib/archive_lib.h) replaces the
 * calls. */
#include <pthread.h>
#include <stddef.h>
#include "lib/err.h"

/* One function: its name in the library, and where its pointer goes in
 * the table (offsetof). */
struct pm_dynsym {
    const char *name;
    size_t off;
};

/* A library and its table, loaded at most once for the process. */
struct pm_dynlib {
    const char *soname;           /* as dlopen takes it: "libcurl.so.4" */
    const char *package;          /* the Debian package that provides it */
    const struct pm_dynsym *syms;
    size_t n;
    void *table;                  /* written whole, or not at all */
    size_t size;
    pthread_once_t once;
    int rc;
    struct pm_err err;            /* kept, so every caller gets the reason, not only the first */
};

/* A struct pm_dynlib's initialiser, for a static table and a static array
 * of its functions. */
#define PM_DYNLIB(soname_, package_, syms_, table_)                                                      \
    {                                                                                                    \
        .soname = (soname_), .package = (package_), .syms = (syms_), .n = sizeof(syms_) / sizeof((syms_)[0]), \
        .table = &(table_), .size = sizeof(table_), .once = PTHREAD_ONCE_INIT                           \
    }

/* The table, the library dlopened (RTLD_NOW, RTLD_LOCAL) on the first call
 * (thread-safe); NULL with err naming the library, or the missing
 * function, and the package to install: the same one line to every
 * caller. */
const void *pm_dynlib_get(struct pm_dynlib *l, struct pm_err *err);

/* How many times any library was opened, for the tests: at most once
 * each, however many threads asked at once. */
unsigned pm_dynlib_loads(void);

#endif
