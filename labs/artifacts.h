#ifndef PM_LABS_ARTIFACTS_H
#define PM_LABS_ARTIFACTS_H
/* The artifact store a lab's jobs exchange files through (as KernelCI's
 * storage): an HTTP server that takes PUT and answers GET. pressmark
 * publishes a job's images there; the job's guest puts its run database
 * there; pressmark fetches it back. */
#include <stdint.h>
#include "lib/err.h"

/* PUT the file at path to url. A status other than 200, 201 or 204 is an
 * error naming the URL and the status. */
int artifact_put(const char *url, const char *path, struct pm_err *err);
/* GET url into a new file at path (created 0600, never through a link),
 * at most max bytes. *missing true (and 0 returned) when the store says
 * 404: nothing was put there. */
int artifact_get(const char *url, const char *path, uint64_t max, int *missing, struct pm_err *err);
/* Does a HEAD-less GET of url answer 200 (a published image is there)? */
int artifact_exists(const char *url, int *exists, struct pm_err *err);

#endif
