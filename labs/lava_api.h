#ifndef PM_LABS_LAVA_API_H
#define PM_LABS_LAVA_API_H
/* A LAVA lab (Linaro's Automated Validation Architecture) through its
 * REST API (api/v0.2): the server that schedules a fleet's devices, boots
 * their kernels and runs test definitions. pressmark submits one job per
 * kernel of a suite, waits for it, and reads how it ended; the runs come
 * back through the artifact store, not through LAVA (labs/artifacts.h).
 *
 * The token is read from a file of the user's own that nobody else may
 * read (never from the command line, where ps shows it), and sent only
 * in the Authorization header. Everything LAVA answers is data: bounded
 * in size, parsed as JSON (jansson), copied into fixed buffers as text a
 * terminal shows as it is; the YAML inside one answer, the reason a job
 * ended, is read by labs/lava_text.h. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"

struct lava_lab {
    char url[512];              /* the server's root, ending in '/': http://lava.example.org/ */
    char token[256];            /* "" when none was given: read-only calls only */
};

/* url checked (http or https, a URL libcurl takes, no user:password in
 * it) and token_file read when not NULL: a regular file, not a link, owned
 * by this user or root, readable by nobody else (mode & 077 == 0), one
 * line of at most 255 characters of [A-Za-z0-9._-]. -1 with err naming
 * the option (what) and what is accepted. */
int lava_lab_open(struct lava_lab *lab, const char *url, const char *token_file, struct pm_err *err);

/* Does the server answer as LAVA (GET api/v0.2/system/version/)? version
 * gets its version ("2023.01"). -1 with err "URL: no answer (...)". */
int lava_ping(const struct lava_lab *lab, char *version, size_t len, struct pm_err *err);

/* Is there a device type of this name with at least one device that is
 * not retired? *exists false when the server says 404. -1 on a transport
 * or server error. */
int lava_device_type_exists(const struct lava_lab *lab, const char *name, bool *exists, struct pm_err *err);

/* Submit a job definition (YAML text). *job_id gets its id. */
int lava_submit(const struct lava_lab *lab, const char *definition, int64_t *job_id, struct pm_err *err);

enum lava_state { LAVA_WAITING, LAVA_RUNNING, LAVA_CANCELING, LAVA_FINISHED };
enum lava_health { LAVA_UNKNOWN, LAVA_COMPLETE, LAVA_INCOMPLETE, LAVA_CANCELED };

struct lava_job_status {
    enum lava_state state;
    enum lava_health health;
    char device[128];           /* the device it ran on, "" before */
    char failure[1024];         /* why it failed, "" when LAVA gave no reason: its failure_comment, else its
                                 * job test case's error_type and error_msg (lava_case_reason) */
};

/* A job's state and health (GET api/v0.2/jobs/ID/). */
int lava_job_get(const struct lava_lab *lab, int64_t job_id, struct lava_job_status *st, struct pm_err *err);
/* The URL of a job's page, for messages: URLscheduler/job/ID. */
void lava_job_url(const struct lava_lab *lab, int64_t job_id, char *buf, size_t len);

#endif
