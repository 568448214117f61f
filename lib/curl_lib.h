#ifndef PM_CURL_LIB_H
#define PM_CURL_LIB_H
/* libcurl, opened on first use (lib/dynlib.h says why it is not linked):
 * only push, LAVA and URL databases need it. Call through the table, never
 * curl_* by name: a direct call would link libcurl again. curl.h's
 * type-checking macros do not reach a call through the table, so pass
 * exactly the types curl expects (long for an integer option, curl_off_t
 * for a _LARGE one). */
#include <curl/curl.h>
#include "lib/err.h"

/* The functions pressmark calls, without their curl_ prefix. */
#define PM_CURL_FNS(X)                                                                                   \
    X(global_init) X(easy_init) X(easy_setopt) X(easy_perform) X(easy_getinfo) X(easy_cleanup)           \
    X(easy_strerror) X(slist_append) X(slist_free_all) X(url) X(url_set) X(url_get) X(url_cleanup) X(free)

/* Each pointer has the type curl.h declares for the function. */
struct pm_curl {
#define PM_CURL_FIELD(name) __typeof__(curl_##name) *name;
    PM_CURL_FNS(PM_CURL_FIELD)
#undef PM_CURL_FIELD
};

/* The table, libcurl.so.4 loaded once for the process (thread-safe); NULL
 * with err when it or one of its functions is missing, the same one line
 * each time. */
const struct pm_curl *pm_curl_lib(struct pm_err *err);

#endif
