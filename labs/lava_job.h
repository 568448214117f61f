#ifndef PM_LABS_LAVA_JOB_H
#define PM_LABS_LAVA_JOB_H
/* A LAVA job definition (YAML) for one kernel of a suite on a device of
 * the qemu type: deploy the kernel, its initramfs, pressmark's guest root
 * and the job archive (pressmark, the suite, its arguments) as images,
 * each checked by LAVA against its sha256; boot with pressmark's LAVA
 * init; one test definition (inline, fixed text) that unpacks the job
 * archive and runs `pressmark __lava-guest`, which runs the kernel's
 * cells, reports each cell as LAVA test cases with measurements and
 * uploads the run database to the artifact store.
 *
 * Every value that comes from a user or a suite (names, URLs, digests)
 * goes into the YAML as a double-quoted scalar, escaped; the shell steps
 * hold no value at all. */
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"

struct lava_image {
    const char *url;            /* where the dispatcher downloads it from */
    const char *sha256;         /* 64 hex digits */
};

struct lava_job_spec {
    const char *name;           /* job_name: the suite's name and the kernel */
    const char *device_type;    /* qemu */
    struct lava_image kernel, initrd, rootfs, job;   /* initrd.url NULL: none */
    uint64_t memory_mib;
    unsigned cpus;
    const char *append;         /* more kernel parameters, or NULL */
    unsigned timeout_min;       /* the whole job */
    unsigned test_timeout_min;  /* the test action (the cells) */
    unsigned boot_timeout_min;  /* to the shell's prompt; 0: 10 */
    const char *priority;       /* "medium" */
    const char *visibility;     /* "public" */
};

/* The job's YAML, malloc'd, in *text. -1 with err when a value cannot be
 * put into it (a digest that is not 64 hex digits, a NULL url). */
int lava_job_yaml(const struct lava_job_spec *s, char **text, struct pm_err *err);

/* value as a YAML double-quoted scalar into buf: '"', '\\' and control
 * characters escaped, so it stays one scalar whatever it holds. */
void yaml_quote(const char *value, char *buf, size_t len);

#endif
