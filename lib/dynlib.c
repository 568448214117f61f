#include "lib/dynlib.h"
#include <dlfcn.h>
#include <string.h>

/* dlsym gives a void *; POSIX has it stored into a function pointer's
 * bytes, which is sound only where the two are the same size. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym's pointers must fit function pointers");

int pm_dynlib_load(const char *soname, const char *package, const struct pm_dynsym *syms, size_t n, void *table,
                   struct pm_err *err)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        /* (dlerror's text begins with the name it could not open) */
        const char *why = dlerror();
        return pm_errf(err, "%s; install the %s package", why ? why : soname, package);
    }
    for (size_t i = 0; i < n; i++) {
        void *fn = dlsym(h, syms[i].name);
        if (!fn) {
            pm_errf(err, "%s has no %s (older than pressmark needs); install a newer %s package", soname,
                    syms[i].name, package);
            /* (a failed close leaves the library mapped, harmless: nothing
             * of it is called, and the error above is the one to report) */
            (void)dlclose(h);
            return -1;
        }
        memcpy((char *)table + syms[i].off, &fn, sizeof fn);
    }
    /* The handle stays open for the process's life: the table points into it. */
    return 0;
}
