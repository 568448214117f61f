#include "lib/curl_lib.h"
#include <stddef.h>
#include "lib/dynlib.h"

static const struct pm_dynsym syms[] = {
#define PM_CURL_SYM(name) { "curl_" #name, offsetof(struct pm_curl, name) },
    PM_CURL_FNS(PM_CURL_SYM)
#undef PM_CURL_SYM
};

static struct pm_curl table;
static struct pm_dynlib lib = PM_DYNLIB("libcurl.so.4", "libcurl4", syms, table);

const struct pm_curl *pm_curl_lib(struct pm_err *err)
{
    return pm_dynlib_get(&lib, err);
}
