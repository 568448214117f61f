#include "lib/archive_lib.h"
#include <stddef.h>
#include "lib/dynlib.h"

static const struct pm_dynsym syms[] = {
#define PM_ARCHIVE_SYM(name) { "archive_" #name, offsetof(struct pm_archive, name) },
    PM_ARCHIVE_FNS(PM_ARCHIVE_SYM)
#undef PM_ARCHIVE_SYM
};

static struct pm_archive table;
static struct pm_dynlib lib = PM_DYNLIB("libarchive.so.13", "libarchive13", syms, table);

const struct pm_archive *pm_archive_lib(struct pm_err *err)
{
    return pm_dynlib_get(&lib, err);
}
