#include "lib/archive_lib.h"
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include "lib/dynlib.h"

static const struct pm_dynsym syms[] = {
#define PM_ARCHIVE_SYM(name) { "archive_" #name, offsetof(struct pm_archive, name) },
    PM_ARCHIVE_FNS(PM_ARCHIVE_SYM)
#undef PM_ARCHIVE_SYM
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct pm_archive table;
static int load_rc;
static struct pm_err load_err;   /* kept, so every caller gets the reason, not only the first */

static void load(void)
{
    load_rc = pm_dynlib_load("libarchive.so.13", "libarchive13", syms, sizeof syms / sizeof syms[0], &table,
                             &load_err);
}

const struct pm_archive *pm_archive_lib(struct pm_err *err)
{
    int e = pthread_once(&once, load);
    if (e != 0) {
        pm_errf(err, "libarchive.so.13: cannot load: %s", strerror(e));
        return NULL;
    }
    if (load_rc < 0) {
        pm_errf(err, "%s", load_err.msg);
        return NULL;
    }
    return &table;
}
