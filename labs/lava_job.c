#include "labs/lava_job.h"
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LAVA's job schema (lava_common/schemas): a job_name of 1 to 200
 * characters, and no action's timeout over the job's: the deploy's and
 * the boot's are fixed here. */
#define JOB_NAME_MAX 200
#define DEPLOY_MIN 20
#define BOOT_MIN 10

/* The shell steps of the test definition: fixed text, no value in them.
 * The job archive is the disk whose serial is pressmark-job (its vdX name
 * depends on the order QEMU gives the drives). */
static const char *const steps[] = {
    ("for s in /sys/block/vd*/serial; do [ \"$(cat \"$s\")\" = pressmark-job ] && "
     "job=/dev/$(basename \"$(dirname \"$s\")\"); done"),
    "mkdir -p /var/lib/pressmark-job && tar -xf \"$job\" -C /var/lib/pressmark-job",
    "cd /var/lib/pressmark-job && ./pressmark __lava-guest",
};

/* value quoted for YAML, malloc'd at its worst size (4 bytes a byte and
 * the quotes), so yaml_quote never cuts it. */
static char *quoted(const char *value)
{
    size_t len = 4 * strlen(value) + 3;
    char *q = malloc(len);
    if (q)
        yaml_quote(value, q, len);
    return q;
}

/* A value for a message: quoted and escaped (one line whatever it holds),
 * and short. */
static const char *shown(const char *value, char buf[128])
{
    yaml_quote(value, buf, 128);
    return buf;
}

static int check_digest(const char *what, const char *digest, char out[65], struct pm_err *err)
{
    size_t n = digest ? strlen(digest) : 0;
    bool hex = n == 64;
    for (size_t i = 0; hex && i < n; i++)
        hex = isxdigit((unsigned char)digest[i]) != 0;
    char b[128];
    if (!hex)
        return pm_errf(err, "the %s image's sha256 %s: accepted: 64 hex digits", what, digest ? shown(digest, b) : "(none)");
    /* The dispatcher compares with hexdigest(), lower case. */
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)digest[i]);
    out[64] = '\0';
    return 0;
}

/* Kernel parameters go inside the image_arg's double quotes on QEMU's
 * command line: words of a plain set of characters, one space between. */
static int check_append(const char *append, struct pm_err *err)
{
    static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._=,:/+-";
    bool word = false;
    for (const char *p = append; *p; p++) {
        if (*p == ' ' && word && p[1] && p[1] != ' ') {
            word = false;
            continue;
        }
        char b[128];
        if (*p == ' ' || !strchr(ok, *p))
            return pm_errf(err, "kernel parameters %s: accepted: words of A-Z a-z 0-9 . _ = , : / + - "
                           "separated by single spaces", shown(append, b));
        word = true;
    }
    return 0;
}

static int check_spec(const struct lava_job_spec *s, struct pm_err *err)
{
    size_t n = s->name ? strlen(s->name) : 0;
    if (n == 0 || n > JOB_NAME_MAX)
        return pm_errf(err, "job name of %zu bytes: accepted: 1 to %d (LAVA's limit)", n, JOB_NAME_MAX);
    if (s->device_type && !*s->device_type)
        return pm_errf(err, "device type '': accepted: a LAVA device type name (qemu)");
    const char *pr = s->priority ? s->priority : "medium";
    char b[128];
    if (strcmp(pr, "high") != 0 && strcmp(pr, "medium") != 0 && strcmp(pr, "low") != 0)
        return pm_errf(err, "priority %s: accepted: high, medium or low", shown(pr, b));
    const char *vis = s->visibility ? s->visibility : "public";
    if (strcmp(vis, "public") != 0 && strcmp(vis, "personal") != 0)
        return pm_errf(err, "visibility %s: accepted: public or personal", shown(vis, b));
    if (s->memory_mib == 0 || s->cpus == 0)
        return pm_errf(err, "a guest of %llu MiB and %u CPUs: accepted: at least 1 of each",
                       (unsigned long long)s->memory_mib, s->cpus);
    if (s->test_timeout_min == 0 || s->timeout_min < s->test_timeout_min || s->timeout_min < DEPLOY_MIN)
        return pm_errf(err, "a job timeout of %u min and a test timeout of %u min: accepted: a test timeout of at least "
                       "1 min and a job timeout of at least it and at least %d (the deploy's)",
                       s->timeout_min, s->test_timeout_min, DEPLOY_MIN);
    const struct lava_image *im[] = { &s->kernel, &s->rootfs, &s->job };
    const char *names[] = { "kernel", "rootfs", "job" };
    for (size_t i = 0; i < 3; i++)
        if (!im[i]->url || !*im[i]->url)
            return pm_errf(err, "the %s image has no URL: accepted: the URL the dispatcher downloads it from", names[i]);
    if (s->initrd.url && !*s->initrd.url)
        return pm_errf(err, "the initrd image's URL is empty: accepted: a URL, or none (NULL) for no initrd");
    return s->append ? check_append(s->append, err) : 0;
}

/* One image of the deploy: its QEMU arguments, URL and digest, quoted. */
static int put_image(FILE *f, const char *what, const char *image_arg, const struct lava_image *im, struct pm_err *err)
{
    char digest[65];
    if (check_digest(what, im->sha256, digest, err) < 0)
        return -1;
    char *arg = quoted(image_arg), *url = quoted(im->url);
    if (arg && url)
        fprintf(f, "      %s:\n        image_arg: %s\n        url: %s\n        sha256sum: \"%s\"\n", what, arg, url,
                digest);
    int rc = arg && url ? 0 : pm_errf(err, "out of memory");
    free(arg);
    free(url);
    return rc;
}

static int put_deploy(FILE *f, const struct lava_job_spec *s, struct pm_err *err)
{
    char kernel_arg[1024];
    const char *append = s->append ? s->append : "";
    if (strlen(append) > 512)
        return pm_errf(err, "kernel parameters of %zu bytes: accepted: at most 512", strlen(append));
    /* The root by its label: LAVA orders a job's images by name, so which
     * virtio disk the root is depends on the other images' names. */
    snprintf(kernel_arg, sizeof kernel_arg,
             "-kernel {kernel} -append \"console=ttyS0,115200 root=LABEL=pressmark rw init=/usr/lib/pressmark/lava-init%s%s\"",
             *append ? " " : "", append);
    fprintf(f, "actions:\n- deploy:\n    to: tmpfs\n    timeout: {minutes: %d}\n    images:\n", DEPLOY_MIN);
    if (put_image(f, "kernel", kernel_arg, &s->kernel, err) < 0 ||
        (s->initrd.url && put_image(f, "initrd", "-initrd {initrd}", &s->initrd, err) < 0) ||
        put_image(f, "rootfs", "-drive format=qcow2,if=virtio,file={rootfs}", &s->rootfs, err) < 0 ||
        put_image(f, "job", "-drive format=raw,if=none,readonly=on,id=pmjob,file={job} "
                  "-device virtio-blk-pci,drive=pmjob,serial=pressmark-job", &s->job, err) < 0)
        return -1;
    return 0;
}

static void put_test(FILE *f, const struct lava_job_spec *s)
{
    fprintf(f, "- boot:\n    method: qemu\n    media: tmpfs\n    timeout: {minutes: %d}\n"
               "    prompts: [\"pressmark-lava# \"]\n", (int)(s->boot_timeout_min ? s->boot_timeout_min : BOOT_MIN));
    fprintf(f, "- test:\n    timeout: {minutes: %u}\n    definitions:\n    - from: inline\n      name: pressmark\n"
               "      path: inline/pressmark.yaml\n      repository:\n        metadata:\n"
               "          format: Lava-Test Test Definition 1.0\n          name: pressmark\n"
               "          description: \"pressmark's cells of this kernel\"\n        run:\n          steps:\n",
            s->test_timeout_min);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        char q[512];
        yaml_quote(steps[i], q, sizeof q);
        fprintf(f, "          - %s\n", q);
    }
}

/* The head of the job: names, timeouts and the qemu device's context. */
static int put_head(FILE *f, const struct lava_job_spec *s, struct pm_err *err)
{
    char *name = quoted(s->name), *type = quoted(s->device_type ? s->device_type : "qemu");
    char smp[32], smpq[48];
    snprintf(smp, sizeof smp, "-smp %u", s->cpus);
    yaml_quote(smp, smpq, sizeof smpq);
    if (name && type)
        fprintf(f, "device_type: %s\njob_name: %s\npriority: \"%s\"\nvisibility: \"%s\"\n"
                   "timeouts:\n  job: {minutes: %u}\n  action: {minutes: %u}\n  connection: {minutes: 2}\n"
                   "context:\n  arch: amd64\n  memory: %llu\n  extra_options: [%s]\n",
                type, name, s->priority ? s->priority : "medium", s->visibility ? s->visibility : "public",
                s->timeout_min, s->timeout_min, (unsigned long long)s->memory_mib, smpq);
    int rc = name && type ? 0 : pm_errf(err, "out of memory");
    free(name);
    free(type);
    return rc;
}

int lava_job_yaml(const struct lava_job_spec *s, char **text, struct pm_err *err)
{
    *text = NULL;
    if (check_spec(s, err) < 0)
        return -1;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return pm_errf(err, "out of memory");
    int rc = put_head(f, s, err);
    if (rc == 0)
        rc = put_deploy(f, s, err);
    if (rc == 0)
        put_test(f, s);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        free(buf);
        return rc < 0 ? -1 : pm_errf(err, "out of memory");
    }
    if (rc < 0) {
        free(buf);
        return -1;
    }
    *text = buf;
    return 0;
}
