#ifndef PM_LABS_ARTIFACTS_H
#define PM_LABS_ARTIFACTS_H
/* The artifact store a lab's jobs exchange files through (as KernelCI's
 * storage): an HTTP server that takes PUT and answers GET. pressmark
 * publishes a job's images there; the job's guest puts its run database
 * there; pressmark fetches it back. */
#include <stdint.h>
#include "lib/err.h"

/* PUT the file at path to url, with "Authorization: Bearer TOKEN" when
 * url is under the store artifact_store_token was given. A status other
 * than 200, 201 or 204 is an error naming the URL, the status and what a
 * store means by it (401: no token or another; 403: not this name; 409:
 * the name taken; 413: too large; 507: the store full). */
int artifact_put(const char *url, const char *path, struct pm_err *err);
/* The same, with this token (NULL: none) whatever the URL. */
int artifact_put_bearer(const char *url, const char *path, const char *token, struct pm_err *err);
/* The token PUTs to store (a URL; those under it, after a '/') carry from
 * now on; NULL for either: none again. The token is kept in this process
 * only, sent only as a request header, never in a URL or a message.
 * -1 when either is too long (511 characters). */
int artifact_store_token(const char *store, const char *token);
/* GET url into a new file at path (created 0600, never through a link),
 * at most max bytes. *missing true (and 0 returned) when the store says
 * 404: nothing was put there. */
int artifact_get(const char *url, const char *path, uint64_t max, int *missing, struct pm_err *err);
/* Does a HEAD-less GET of url answer 200 (a published image is there)? */
int artifact_exists(const char *url, int *exists, struct pm_err *err);

#endif
