#ifndef PM_FETCH_H
#define PM_FETCH_H
/* Baseline databases from elsewhere, with libcurl: http and https fetched
 * into a local cache and revalidated with ETag / If-Modified-Since, so a
 * nightly job downloads last night's database only when it changed;
 * file:// URLs and plain paths are used where they are. TLS is verified,
 * redirects followed (5 at most), and every failure is one clear line. */
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"

/* path receives a local file; how says what happened ("downloaded, 200",
 * "from the cache, 304 Not Modified", "local file"). */
/* max_bytes: a larger download is refused (nothing cached). */
int fetch_baseline(const char *url, uint64_t max_bytes, char *path, size_t len, char *how, size_t hlen,
                   struct pm_err *err);

#endif
