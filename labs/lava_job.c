#include "labs/lava_job.h"
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "labs/lava_text.h"
#include "lib/utf8.h"

/* LAVA's job schema (lava_common/schemas): a job_name of 1 to 200
 * characters, and no action's timeout over the job's: the deploy's and
 * the boot's are fixed here. A device type is a slug (lava_device_type_
 * exists takes 100 bytes); a URL has no limit in LAVA's schema, and
 * 4 KiB is more than any store's needs. */
#define JOB_NAME_MAX 200
#define DEVICE_TYPE_MAX 100
#define URL_MAX 4096
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

#define SHOWN 128
/* A value for a message, in quotes and on one line whatever it holds:
 * bytes that are not UTF-8 and characters that a terminal acts on or that
 * hide text as \xNN, at most 100 bytes of it ("..." when cut). */
static const char *shown(const char *value, char buf[SHOWN])
{
    size_t o = 0;
    buf[o++] = '\'';
    for (const unsigned char *p = (const unsigned char *)value; *p;) {
        size_t n = utf8_seq(p), k = n ? n : 1;
        bool esc = n == 0 || lava_text_hidden(p, n);
        if (o + (esc ? 4 * k : k) > 101) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        for (size_t i = 0; esc && i < k; i++)
            o += (size_t)snprintf(buf + o, 5, "\\x%02x", p[i]);
        if (!esc)
            memcpy(buf + o, p, k);
        o += esc ? 0 : k;
        p += k;
    }
    buf[o++] = '\'';
    buf[o] = '\0';
    return buf;
}

/* A value of the suite's or the lab's (what, for messages: its key) as a
 * YAML scalar can hold it: UTF-8 (libyaml's emitter takes nothing else,
 * and a YAML reader reads Unicode), 1 to max bytes. */
static int check_text(const char *what, const char *value, size_t max, struct pm_err *err)
{
    char b[SHOWN];
    size_t n = strlen(value);
    if (!utf8_valid(value))
        return pm_errf(err, "%s %s: not UTF-8; accepted: UTF-8 text (a LAVA job is YAML, which is Unicode)", what,
                       shown(value, b));
    if (n == 0 || n > max)
        return pm_errf(err, "%s of %zu bytes: accepted: 1 to %zu", what, n, max);
    return 0;
}

static int check_digest(const char *what, const char *digest, char out[65], struct pm_err *err)
{
    size_t n = digest ? strlen(digest) : 0;
    bool hex = n == 64;
    for (size_t i = 0; hex && i < n; i++)
        hex = isxdigit((unsigned char)digest[i]) != 0;
    char b[SHOWN];
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
        char b[SHOWN];
        if (*p == ' ' || !strchr(ok, *p))
            return pm_errf(err, "kernel parameters %s: accepted: words of A-Z a-z 0-9 . _ = , : / + - "
                           "separated by single spaces", shown(append, b));
        word = true;
    }
    return 0;
}

/* The job's digests, lower case, as the dispatcher compares them. */
struct digests {
    char kernel[65], initrd[65], rootfs[65], job[65];
};

/* The images' URLs and digests: a URL check_text takes for each image
 * (the initrd's only when there is one), 64 hex digits each. */
static int check_images(const struct lava_job_spec *s, struct digests *d, struct pm_err *err)
{
    const struct lava_image *im[] = { &s->kernel, &s->initrd, &s->rootfs, &s->job };
    const char *names[] = { "kernel", "initrd", "rootfs", "job" };
    char *out[] = { d->kernel, d->initrd, d->rootfs, d->job };
    for (size_t i = 0; i < 4; i++) {
        if (i == 1 && !im[i]->url)
            continue;
        char what[40];
        snprintf(what, sizeof what, "the %s image's url", names[i]);
        if (i == 1 && !*im[i]->url)
            return pm_errf(err, "the initrd image's URL is empty: accepted: a URL, or none (NULL) for no initrd");
        if (!im[i]->url || !*im[i]->url)
            return pm_errf(err, "the %s image has no URL: accepted: the URL the dispatcher downloads it from", names[i]);
        if (check_text(what, im[i]->url, URL_MAX, err) < 0 || check_digest(names[i], im[i]->sha256, out[i], err) < 0)
            return -1;
    }
    return 0;
}

static int check_spec(const struct lava_job_spec *s, struct digests *d, struct pm_err *err)
{
    size_t n = s->name ? strlen(s->name) : 0;
    if (n == 0 || n > JOB_NAME_MAX)
        return pm_errf(err, "job name of %zu bytes: accepted: 1 to %d (LAVA's limit)", n, JOB_NAME_MAX);
    if (check_text("job_name", s->name, JOB_NAME_MAX, err) < 0)
        return -1;
    if (s->device_type && !*s->device_type)
        return pm_errf(err, "device type '': accepted: a LAVA device type name (qemu)");
    if (s->device_type && check_text("device_type", s->device_type, DEVICE_TYPE_MAX, err) < 0)
        return -1;
    const char *pr = s->priority ? s->priority : "medium";
    char b[SHOWN];
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
    if (s->append && strlen(s->append) > 512)
        return pm_errf(err, "kernel parameters of %zu bytes: accepted: at most 512", strlen(s->append));
    if (s->append && check_append(s->append, err) < 0)
        return -1;
    return check_images(s, d, err);
}

/* The job is made as libyaml events: every value is a scalar that
 * libyaml's emitter writes, escaped as it needs, so a YAML reader reads
 * exactly its text. A value of the suite's or the lab's is always double-
 * quoted; the fixed words and numbers are plain, as LAVA's schema wants
 * them (an integer is a plain scalar). */
static bool emit(yaml_emitter_t *e, yaml_event_t *ev, int made)
{
    /* (the emitter deletes the event, also when it fails) */
    return made && yaml_emitter_emit(e, ev);
}

static bool scalar(yaml_emitter_t *e, const char *v, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    return emit(e, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)v, (int)strlen(v), 1, 1,
                                                     style));
}

static bool plain(yaml_emitter_t *e, const char *v)
{
    return scalar(e, v, YAML_PLAIN_SCALAR_STYLE);
}

static bool quoted(yaml_emitter_t *e, const char *v)
{
    return scalar(e, v, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static bool number(yaml_emitter_t *e, unsigned long long v)
{
    char b[24];
    snprintf(b, sizeof b, "%llu", v);
    return plain(e, b);
}

static bool map_start(yaml_emitter_t *e, bool flow)
{
    yaml_event_t ev;
    return emit(e, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE
                                                                                     : YAML_BLOCK_MAPPING_STYLE));
}

static bool map_end(yaml_emitter_t *e)
{
    yaml_event_t ev;
    return emit(e, &ev, yaml_mapping_end_event_initialize(&ev));
}

static bool seq_start(yaml_emitter_t *e, bool flow)
{
    yaml_event_t ev;
    return emit(e, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE
                                                                                      : YAML_BLOCK_SEQUENCE_STYLE));
}

static bool seq_end(yaml_emitter_t *e)
{
    yaml_event_t ev;
    return emit(e, &ev, yaml_sequence_end_event_initialize(&ev));
}

/* key: {minutes: m} */
static bool minutes(yaml_emitter_t *e, const char *key, unsigned m)
{
    return plain(e, key) && map_start(e, true) && plain(e, "minutes") && number(e, m) && map_end(e);
}

/* One image of the deploy: its QEMU arguments, URL and digest. */
static bool put_image(yaml_emitter_t *e, const char *what, const char *image_arg, const char *url, const char *digest)
{
    return plain(e, what) && map_start(e, false) && plain(e, "image_arg") && quoted(e, image_arg) &&
           plain(e, "url") && quoted(e, url) && plain(e, "sha256sum") && quoted(e, digest) && map_end(e);
}

static bool put_deploy(yaml_emitter_t *e, const struct lava_job_spec *s, const struct digests *d)
{
    char kernel_arg[1024];
    const char *append = s->append ? s->append : "";
    /* The root by its label: LAVA orders a job's images by name, so which
     * virtio disk the root is depends on the other images' names. */
    snprintf(kernel_arg, sizeof kernel_arg,
             "-kernel {kernel} -append \"console=ttyS0,115200 root=LABEL=pressmark rw init=/usr/lib/pressmark/lava-init%s%s\"",
             *append ? " " : "", append);
    return map_start(e, false) && plain(e, "deploy") && map_start(e, false) && plain(e, "to") && plain(e, "tmpfs") &&
           minutes(e, "timeout", DEPLOY_MIN) && plain(e, "images") && map_start(e, false) &&
           put_image(e, "kernel", kernel_arg, s->kernel.url, d->kernel) &&
           (!s->initrd.url || put_image(e, "initrd", "-initrd {initrd}", s->initrd.url, d->initrd)) &&
           put_image(e, "rootfs", "-drive format=qcow2,if=virtio,file={rootfs}", s->rootfs.url, d->rootfs) &&
           put_image(e, "job", "-drive format=raw,if=none,readonly=on,id=pmjob,file={job} "
                     "-device virtio-blk-pci,drive=pmjob,serial=pressmark-job", s->job.url, d->job) &&
           map_end(e) && map_end(e) && map_end(e);
}

static bool put_boot(yaml_emitter_t *e, const struct lava_job_spec *s)
{
    return map_start(e, false) && plain(e, "boot") && map_start(e, false) && plain(e, "method") &&
           plain(e, "qemu") && plain(e, "media") && plain(e, "tmpfs") &&
           minutes(e, "timeout", s->boot_timeout_min ? s->boot_timeout_min : BOOT_MIN) && plain(e, "prompts") &&
           seq_start(e, true) && quoted(e, "pressmark-lava# ") && seq_end(e) && map_end(e) && map_end(e);
}

/* The inline test definition: fixed text. */
static bool put_definition(yaml_emitter_t *e)
{
    bool ok = map_start(e, false) && plain(e, "from") && plain(e, "inline") && plain(e, "name") &&
              plain(e, "pressmark") && plain(e, "path") && plain(e, "inline/pressmark.yaml") &&
              plain(e, "repository") && map_start(e, false) && plain(e, "metadata") && map_start(e, false) &&
              plain(e, "format") && plain(e, "Lava-Test Test Definition 1.0") && plain(e, "name") &&
              plain(e, "pressmark") && plain(e, "description") && quoted(e, "pressmark's cells of this kernel") &&
              map_end(e) && plain(e, "run") && map_start(e, false) && plain(e, "steps") && seq_start(e, false);
    for (size_t i = 0; ok && i < sizeof steps / sizeof steps[0]; i++)
        ok = quoted(e, steps[i]);
    return ok && seq_end(e) && map_end(e) && map_end(e) && map_end(e);
}

static bool put_test(yaml_emitter_t *e, const struct lava_job_spec *s)
{
    return map_start(e, false) && plain(e, "test") && map_start(e, false) &&
           minutes(e, "timeout", s->test_timeout_min) && plain(e, "definitions") && seq_start(e, false) &&
           put_definition(e) && seq_end(e) && map_end(e) && map_end(e);
}

/* The head of the job: names, timeouts and the qemu device's context. */
static bool put_head(yaml_emitter_t *e, const struct lava_job_spec *s)
{
    char smp[32];
    snprintf(smp, sizeof smp, "-smp %u", s->cpus);
    return plain(e, "device_type") && quoted(e, s->device_type ? s->device_type : "qemu") && plain(e, "job_name") &&
           quoted(e, s->name) && plain(e, "priority") && quoted(e, s->priority ? s->priority : "medium") &&
           plain(e, "visibility") && quoted(e, s->visibility ? s->visibility : "public") && plain(e, "timeouts") &&
           map_start(e, false) && minutes(e, "job", s->timeout_min) && minutes(e, "action", s->timeout_min) &&
           minutes(e, "connection", 2) && map_end(e) && plain(e, "context") && map_start(e, false) &&
           plain(e, "arch") && plain(e, "amd64") && plain(e, "memory") && number(e, s->memory_mib) &&
           plain(e, "extra_options") && seq_start(e, true) && quoted(e, smp) && seq_end(e) && map_end(e);
}

/* The whole document: one mapping, no "---", no "...". */
static bool put_job(yaml_emitter_t *e, const struct lava_job_spec *s, const struct digests *d)
{
    yaml_event_t ev;
    return emit(e, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING)) &&
           emit(e, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1)) && map_start(e, false) &&
           put_head(e, s) && plain(e, "actions") && seq_start(e, false) && put_deploy(e, s, d) && put_boot(e, s) &&
           put_test(e, s) && seq_end(e) && map_end(e) && emit(e, &ev, yaml_document_end_event_initialize(&ev, 1)) &&
           emit(e, &ev, yaml_stream_end_event_initialize(&ev));
}

int lava_job_yaml(const struct lava_job_spec *s, char **text, struct pm_err *err)
{
    *text = NULL;
    struct digests d;
    if (check_spec(s, &d, err) < 0)
        return -1;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return pm_errf(err, "out of memory");
    yaml_emitter_t e;
    if (!yaml_emitter_initialize(&e)) {
        fclose(f);
        free(buf);
        return pm_errf(err, "out of memory");
    }
    yaml_emitter_set_output_file(&e, f);
    yaml_emitter_set_unicode(&e, 1);    /* UTF-8 written as it is, not as \u escapes */
    yaml_emitter_set_width(&e, -1);     /* a long value on one line, never folded */
    bool ok = put_job(&e, s, &d) && yaml_emitter_flush(&e);
    char problem[160];
    snprintf(problem, sizeof problem, "%s", e.problem ? e.problem : "cannot write");
    yaml_emitter_delete(&e);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad || !ok) {
        free(buf);
        return pm_errf(err, "the job's YAML: %s (libyaml)", bad ? "out of memory" : problem);
    }
    *text = buf;
    return 0;
}
