/* LAVA's YAML both ways (labs/): the reason a job ended, read with
 * libyaml's parser from its job test case's metadata, which a lab sends;
 * and a job definition, made with libyaml's emitter. The input is the
 * metadata, NUL bytes and all; its text up to the first NUL is also the
 * job's name and its kernel image's URL. Properties: the reader ends (no
 * crash, no hang, its work bounded by the input's size, depth and events);
 * it reads the same into any buffer, a reason being at most the buffer's
 * size less one, UTF-8, without a character lava_text_hidden names, and
 * in a small buffer a prefix of the one in a large; a refusal is one line
 * of such text; lava_text_clean's copy is such text too; a job is made
 * exactly when its name is UTF-8 of 1 to 200 bytes, and libyaml's parser
 * then reads that name and URL back from it, exactly. */
#include "fuzz/fuzz.h"
#include <stdbool.h>
#include <string.h>
#include <yaml.h>
#include "labs/lava_job.h"
#include "labs/lava_text.h"
#include "lib/utf8.h"

/* s is UTF-8 with no character a terminal acts on or that hides text. */
static bool clean_text(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_seq(p);
        if (n == 0 || lava_text_hidden(p, n))
            return false;
        p += n;
    }
    return true;
}

static void check_reason(const uint8_t *data, size_t size)
{
    static char big[1024];
    char small[97];
    struct pm_err err = { "" }, err2 = { "" };
    size_t small_len = 1 + size % sizeof small;
    int rc = lava_case_reason((const char *)data, size, big, sizeof big, &err);
    int rc2 = lava_case_reason((const char *)data, size, small, small_len, &err2);
    FUZZ_ASSERT(rc == 0 || rc == -1, "returned %d", rc);
    FUZZ_ASSERT(rc == rc2, "%d into 1024 bytes, %d into %zu", rc, rc2, small_len);
    if (rc < 0) {
        FUZZ_ASSERT(err.msg[0] && clean_text(err.msg) && strcmp(err.msg, err2.msg) == 0, "refused with '%s'",
                    err.msg);
        FUZZ_ASSERT(big[0] == '\0' && small[0] == '\0', "refused, and a reason left: '%s'", big);
        return;
    }
    FUZZ_ASSERT(strlen(big) < sizeof big && clean_text(big), "the reason '%s'", big);
    FUZZ_ASSERT(strlen(small) < small_len && strncmp(big, small, strlen(small)) == 0,
                "'%s' in %zu bytes is no prefix of '%s'", small, small_len, big);
}

/* The scalar value of the first mapping key named key in text, as
 * libyaml's parser reads it (malloc'd), or NULL. */
static char *value_of(const char *text, const char *key)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        abort();
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    bool is_map[32], at_key[32], pending = false;
    int depth = 0;
    char *found = NULL;
    yaml_event_t ev;
    while (!found && yaml_parser_parse(&p, &ev)) {
        yaml_event_type_t t = ev.type;
        bool key_here = depth > 0 && is_map[depth - 1] && at_key[depth - 1];
        if (t == YAML_SCALAR_EVENT && pending)
            found = strndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
        pending = t == YAML_SCALAR_EVENT && key_here && ev.data.scalar.length == strlen(key) &&
                  memcmp(ev.data.scalar.value, key, strlen(key)) == 0;
        if ((t == YAML_SCALAR_EVENT || t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) && depth > 0 &&
            is_map[depth - 1])
            at_key[depth - 1] = !at_key[depth - 1];
        if ((t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) && depth < 32) {
            is_map[depth] = t == YAML_MAPPING_START_EVENT;
            at_key[depth++] = true;
        } else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&ev);
        if (t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&p);
    return found;
}

static void check_job(const char *name)
{
    static const char *const d = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    struct lava_job_spec s = {
        .name = name, .device_type = "qemu", .kernel = { name, d }, .initrd = { NULL, NULL },
        .rootfs = { "http://s/r", d }, .job = { "http://s/j", d }, .memory_mib = 512, .cpus = 1,
        .timeout_min = 60, .test_timeout_min = 10,
    };
    char *text = NULL;
    struct pm_err err = { "" };
    int rc = lava_job_yaml(&s, &text, &err);
    size_t n = strlen(name);
    bool takes = n >= 1 && n <= 200 && utf8_valid(name);
    FUZZ_ASSERT((rc == 0) == takes, "a name of %zu bytes (UTF-8: %d): %d (%s)", n, utf8_valid(name), rc, err.msg);
    if (rc < 0) {
        FUZZ_ASSERT(!text && clean_text(err.msg), "refused with '%s'", err.msg);
        return;
    }
    char *job_name = value_of(text, "job_name"), *url = value_of(text, "url");
    FUZZ_ASSERT(job_name && strcmp(job_name, name) == 0, "job_name read back as '%s'", job_name ? job_name : "(none)");
    FUZZ_ASSERT(url && strcmp(url, name) == 0, "the kernel's url read back as '%s'", url ? url : "(none)");
    free(job_name);
    free(url);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_reason(data, size);
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    char clean[256];
    lava_text_clean(clean, 1 + size % sizeof clean, s);
    FUZZ_ASSERT(strlen(clean) <= size % sizeof clean && clean_text(clean), "cleaned to '%s'", clean);
    check_job(s);
    free(s);
    return 0;
}
