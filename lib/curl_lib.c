#include "lib/curl_lib.h"
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include "lib/dynlib.h"

static const struct pm_dynsym syms[] = {
#define PM_CURL_SYM(name) { "curl_" #name, offsetof(struct pm_curl, name) },
    PM_CURL_FNS(PM_CURL_SYM)
#undef PM_CURL_SYM
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct pm_curl table;
static int load_rc;
static struct pm_err load_err;   /* kept, so every caller gets the reason, not only the first */

static void load(void)
{
    load_rc = pm_dynlib_load("libcurl.so.4", "libcurl4", syms, sizeof syms / sizeof syms[0], &table, &load_err);
}

const struct pm_curl *pm_curl_lib(struct pm_err *err)
{
    int e = pthread_once(&once, load);
    if (e != 0) {
        pm_errf(err, "libcurl.so.4: cannot load: %s", strerror(e));
        return NULL;
    }
    if (load_rc < 0) {
        pm_errf(err, "%s", load_err.msg);
        return NULL;
    }
    return &table;
}
