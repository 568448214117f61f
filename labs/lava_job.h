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
 * The YAML is made with libyaml's emitter. Every value that comes from a
 * user, a suite, a lab or a kernel (names, URLs, digests) is a double-
 * quoted scalar that libyaml escapes, so a YAML reader reads exactly its
 * text and no value can add a key or an action; the shell steps hold no
 * value at all. */
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

/* The job's YAML, malloc'd, in *text. -1 with err (one line naming the
 * field and its value, quoted), *text NULL, when a value cannot be put
 * into it: a digest that is not 64 hex digits, a NULL url, a value that
 * is not UTF-8 (YAML is Unicode; libyaml takes nothing else) or longer
 * than its field takes. */
int lava_job_yaml(const struct lava_job_spec *s, char **text, struct pm_err *err);

#endif
