#include "lib/dynlib.h"
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* dlsym gives a void *; POSIX has it stored into a function pointer's
 * bytes, which is sound only where the two are the same size. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym's pointers must fit function pointers");

static atomic_uint loads;

unsigned pm_dynlib_loads(void)
{
    return atomic_load(&loads);
}

/* dlerror's text names the file it could not open, which is the library
 * itself or, when one of its own dependencies is missing, that one: the
 * library asked for is named then too, or the line would point at a
 * package nobody asked for. */
static int open_error(const struct pm_dynlib *l, struct pm_err *err)
{
    const char *why = dlerror();
    if (!why)
        return pm_errf(err, "%s: cannot open; install the %s package", l->soname, l->package);
    size_t first = strcspn(why, ":");
    size_t sl = strlen(l->soname);
    bool names_it = first >= sl && strncmp(why + first - sl, l->soname, sl) == 0 &&
                    (first == sl || why[first - sl - 1] == '/');
    if (names_it)
        return pm_errf(err, "%s; install the %s package", why, l->package);
    return pm_errf(err, "%s: %s; install the %s package", l->soname, why, l->package);
}

/* Fills a copy and writes the table only when every function is there: a
 * half-filled table would be a NULL call later rather than this error. */
static int load(const struct pm_dynlib *l, struct pm_err *err)
{
    atomic_fetch_add(&loads, 1);
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return open_error(l, err);
    char *copy = calloc(1, l->size);
    int rc = copy ? 0 : pm_errf(err, "%s: out of memory", l->soname);
    for (size_t i = 0; rc == 0 && i < l->n; i++) {
        void *fn = dlsym(h, l->syms[i].name);
        if (!fn)
            rc = pm_errf(err, "%s has no %s (older than pressmark needs); install a newer %s package", l->soname,
                         l->syms[i].name, l->package);
        else
            memcpy(copy + l->syms[i].off, &fn, sizeof fn);
    }
    if (rc == 0)
        memcpy(l->table, copy, l->size);
    free(copy);
    /* On success the handle stays open for the process's life: the table
     * points into it. (A failed close leaves the library mapped, harmless:
     * nothing of it is called, and the error above is the one to report.) */
    if (rc < 0)
        (void)dlclose(h);
    return rc;
}

/* pthread_once's routine takes no argument: the library being loaded is
 * handed over in the calling thread, which is the one that runs it. */
static _Thread_local struct pm_dynlib *loading;

static void load_once(void)
{
    loading->rc = load(loading, &loading->err);
}

const void *pm_dynlib_get(struct pm_dynlib *l, struct pm_err *err)
{
    loading = l;
    int e = pthread_once(&l->once, load_once);
    loading = NULL;
    if (e != 0) {
        pm_errf(err, "%s: cannot load: %s", l->soname, strerror(e));
        return NULL;
    }
    if (l->rc < 0) {
        pm_errf(err, "%s", l->err.msg);
        return NULL;
    }
    return l->table;
}
