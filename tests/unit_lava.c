/* pressmark's LAVA client (labs/): hostile values in a job's fields read
 * back by a real YAML parser (PyYAML, as lava-server reads a job) as
 * exactly their text; the job definition read back field by field, held
 * against LAVA's own schema and against the layout pressmark has always
 * written; values that cannot go into a job (not UTF-8 among them)
 * refused; the reason a job ended read from LAVA's YAML by libyaml, and
 * hostile or malformed YAML there; the token file's and
 * URL's rules; the REST calls against tests/lava_fake.py (LAVA 2023.01's
 * answers) and an unused port; the artifact store's PUT and GET; a URL
 * with a user or password found in a suite's text; a stored job's lab,
 * state, results URL and definition held to the suite's, strictly. */
#include "tests/tap.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "experiment/backend_lava.h"
#include "experiment/backend_lava_stored.h"
#include "labs/artifacts.h"
#include "labs/lava_api.h"
#include "labs/lava_job.h"
#include "labs/lava_text.h"
#include "labs/lava_url.h"
#include "lib/fileio.h"
#include "lib/spawn.h"
#include "lib/utf8.h"

static char dir[] = "/tmp/pressmark-unit.XXXXXX";
static const char *const python = "/usr/bin/python3";

static void bail(const char *what)
{
    tap_diag("Bail out! %s", what);
    exit(1);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchmod(fd, mode) < 0 || close(fd) < 0)
        bail(path);
}

/* Run argv with input on its standard input; its standard output in out.
 * The exit status does not matter here: the output says it all. */
static void run_with_input(char *const *argv, const char *input, char *out, size_t len)
{
    char in[256];
    snprintf(in, sizeof in, "%s/stdin", dir);
    FILE *f = fopen(in, "w");
    if (!f || fputs(input, f) < 0 || fclose(f) != 0)
        bail("cannot write the input file");
    int fd = open(in, O_RDONLY);
    if (fd < 0)
        bail("cannot open the input file");
    struct pm_spawn sp = { .argv = argv, .in = fd };
    struct pm_err err;
    out[0] = '\0';
    pm_spawn_capture(&sp, out, len, &err);
    close(fd);
}

/* text as hex, as the PyYAML scripts below print strings. */
static void hex_of(const char *text, char *hex)
{
    size_t h = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h += (size_t)sprintf(hex + h, "%02x", *p);
    hex[h] = '\0';
}

/* Bytes a terminal or a YAML reader would act on: C0 but nothing, DEL, C1. */
static bool has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
            return true;
    return false;
}

/* The same, but for the line breaks of a YAML text. */
static bool has_control_but_lines(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
            return true;
    return false;
}

static const char *const hostile[] = {
    "plain",
    "say \"hi\"",
    "back\\slash\\",
    "two\nlines\r\n",
    "key: value",
    "{{ kernel }}",
    "\x1b[2J",
    "C1 NEL\xc2\x85 CSI\xc2\x9b" "2J",
    "tab\there # not a comment",
    "- [a, b]",
    "'single' & *alias !tag",
    "&anchor *alias",
    "true",
    "null",
    "~",
    "0x1f",
    "---",
    "...",
    "%YAML 1.1",
    "!!python/object/apply:os.system ['reboot']",
    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
    "LS\xe2\x80\xa8PS\xe2\x80\xa9" "BOM\xef\xbb\xbf" "nonchar\xef\xbf\xbe" "RLO\xe2\x80\xae",
    " leading and trailing ",
    "del\x7f nul-less",
    "\xc2\xa0nbsp\xc2\xa0",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

static const char *const D1 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
static const char *const D2 = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
#define NAME "volano \"capped\"\n{{ kernel }}: 6.1\x1b[2J"

static struct lava_job_spec good_spec(void)
{
    return (struct lava_job_spec){
        .name = NAME, .device_type = "qemu",
        .kernel = { "http://store.example/k?a=1&b=\"2\"", D2 }, .initrd = { "http://store.example/initrd", D1 },
        .rootfs = { "http://store.example/root.qcow2", D1 }, .job = { "http://store.example/job.tar", D1 },
        .memory_mib = 2048, .cpus = 2, .append = "quiet loglevel=3 pm.x=1,2",
        .timeout_min = 60, .test_timeout_min = 30, .priority = "medium", .visibility = "public",
    };
}

/* Each hostile string as the job's name, device type and every image's
 * URL, the jobs read by PyYAML in one go: each field is exactly the
 * string, and the YAML text holds no control byte (libyaml escaped it). */
static void test_hostile_values(void)
{
    size_t cap = 1 << 20, used = 0;
    char *docs = malloc(cap), *out = malloc(1 << 20);
    static char big[4097];
    for (size_t i = 0; i < sizeof big - 1; i++)
        big[i] = "ab\x01\"\\\n\xc3\xa9 :#"[i % 11];
    big[sizeof big - 2] = 'z';  /* (not half of a character at the end) */
    const char *values[NHOSTILE + 1];
    memcpy(values, hostile, sizeof hostile);
    values[NHOSTILE] = big;
    if (!docs || !out)
        bail("out of memory");
    for (size_t i = 0; i <= NHOSTILE; i++) {
        struct lava_job_spec s = good_spec();
        s.name = i < NHOSTILE ? values[i] : "big";
        s.device_type = i < NHOSTILE ? values[i] : "qemu";
        s.kernel.url = s.initrd.url = s.rootfs.url = s.job.url = values[i];
        char *text = NULL;
        struct pm_err err = { "" };
        if (!ok(lava_job_yaml(&s, &text, &err) == 0, "hostile value %zu goes into a job (%s)", i, err.msg))
            bail("a hostile value was refused");
        ok(!has_control_but_lines(text), "  its YAML holds no control byte but line ends");
        if (used + strlen(text) + 8 > cap)
            bail("the jobs are too large");
        used += (size_t)sprintf(docs + used, "---\n%s", text);
        free(text);
    }
    char *const argv[] = { (char *)python, "-c",
                           "import sys, yaml\n"
                           "for d in yaml.safe_load_all(sys.stdin.buffer.read()):\n"
                           "    im = d['actions'][0]['deploy']['images']\n"
                           "    v = [d['job_name'], d['device_type']] + [im[k]['url'] for k in ('kernel', 'initrd', 'rootfs', 'job')]\n"
                           "    print(' '.join(x.encode('utf-8').hex() if isinstance(x, str) else repr(x) for x in v))\n",
                           NULL };
    run_with_input(argv, docs, out, 1 << 20);
    char *line = out;
    for (size_t i = 0; i <= NHOSTILE; i++) {
        char *next = line ? strchr(line, '\n') : NULL;
        if (next)
            *next++ = '\0';
        static char want[40000], hex[9000];
        hex_of(values[i], hex);
        char name_hex[400], type_hex[400];
        hex_of(i < NHOSTILE ? values[i] : "big", name_hex);
        hex_of(i < NHOSTILE ? values[i] : "qemu", type_hex);
        snprintf(want, sizeof want, "%s %s %s %s %s %s", name_hex, type_hex, hex, hex, hex, hex);
        ok(line && strcmp(line, want) == 0, "hostile value %zu: PyYAML reads each field as exactly the string", i);
        line = next;
    }
    free(docs);
    free(out);
}

/* A value that is not UTF-8, in each field a value goes into: refused,
 * one line naming the field and the value (its bytes as \xNN), no YAML. */
static void test_not_utf8(void)
{
    static const char *const bad[] = { "bad \xff\xfe utf8", "cut \xc3", "overlong \xc0\xaf", "surrogate \xed\xa0\x80",
                                       "http://store.example/k\xe9rnel" };
    static const char *const shown_as[] = { "'bad \\xff\\xfe utf8'", "'cut \\xc3'", "'overlong \\xc0\\xaf'",
                                            "'surrogate \\xed\\xa0\\x80'", "'http://store.example/k\\xe9rnel'" };
    static const char *const fields[] = { "job_name", "device_type", "the kernel image's url", "the initrd image's url",
                                          "the rootfs image's url", "the job image's url" };
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            struct lava_job_spec s = good_spec();
            const char **at[] = { &s.name, &s.device_type, &s.kernel.url, &s.initrd.url, &s.rootfs.url, &s.job.url };
            *at[f] = bad[i];
            char *text = (char *)"untouched", want[200];
            struct pm_err err = { "" };
            snprintf(want, sizeof want, "%s %s: not UTF-8; accepted: UTF-8 text", fields[f], shown_as[i]);
            int rc = lava_job_yaml(&s, &text, &err);
            ok(rc == -1 && text == NULL && strncmp(err.msg, want, strlen(want)) == 0 && !strchr(err.msg, '\n') &&
               utf8_valid(err.msg) && !has_control(err.msg), "%s not UTF-8: refused, nothing made: %s", fields[f],
               err.msg);
        }
    struct lava_job_spec s = good_spec();
    static char url[4098];
    memset(url, 'u', sizeof url - 1);
    s.kernel.url = url;
    char *text = NULL;
    struct pm_err err = { "" };
    ok(lava_job_yaml(&s, &text, &err) == -1 && text == NULL &&
       strstr(err.msg, "the kernel image's url of 4097 bytes: accepted: 1 to 4096"), "a URL of 4097 bytes: %s", err.msg);
    url[4096] = '\0';
    ok(lava_job_yaml(&s, &text, &err) == 0 && text, "one of 4096 is taken (%s)", err.msg);
    free(text);
}

/* The job's text is the layout pressmark has always written (made by the
 * fprintf writer before libyaml's emitter, tests/fixtures/lava-job.yaml),
 * so a job stored by an earlier pressmark is the one made now. */
static void test_job_layout(void)
{
    struct lava_job_spec s = good_spec();
    s.name = "pressmark volano \"capped\": kernel 6.1.0-13-amd64 {{ x }} caf\xc3\xa9";
    char *text = NULL, want[8192];
    struct pm_err err = { "" };
    if (pm_read_file("tests/fixtures/lava-job.yaml", want, sizeof want - 1) < 0)
        bail("cannot read tests/fixtures/lava-job.yaml");
    strcat(want, "\n");        /* (pm_read_file strips it) */
    ok(lava_job_yaml(&s, &text, &err) == 0 && text && strcmp(text, want) == 0,
       "the job's YAML is byte for byte the layout of tests/fixtures/lava-job.yaml (%s)", err.msg);
    free(text);
}

/* lava_case_reason of meta (len bytes) is 0 with the reason want. */
static void reason_is(const char *meta, size_t len, const char *want, const char *what)
{
    char buf[1024] = "untouched";
    struct pm_err err = { "" };
    int rc = lava_case_reason(meta, len, buf, sizeof buf, &err);
    ok(rc == 0 && strcmp(buf, want) == 0, "reason: %s: '%s' (%s)", what, buf, err.msg);
}

/* ... is -1, err one clean line holding want, no reason. */
static void reason_refused(const char *meta, size_t len, const char *want, const char *what)
{
    char buf[1024] = "untouched";
    struct pm_err err = { "" };
    int rc = lava_case_reason(meta, len, buf, sizeof buf, &err);
    ok(rc == -1 && strstr(err.msg, want) && buf[0] == '\0' && !has_control(err.msg) && utf8_valid(err.msg),
       "reason: %s: refused: %s", what, err.msg);
}

#define R(text) text, sizeof text - 1
#define PANIC_META "case: job\ndefinition: lava\nerror_msg: \"[    2.653764] Kernel panic - not syncing: Fatal exception " \
    "in interrupt\\r\\r\\n[\n  \\   4.441426] Shutting down cpus with NMI\\r\\r\\n[    4.442805] Kernel Offset: 0x1a00000\n" \
    "  from 0xffffffff81000000 (relocation range: 0xffffffff80000000-0xffffffffbfffffff)\\r\\r\\n[\n  \\   4.460673] ---[ " \
    "end Kernel panic - not syncing: Fatal exception in interrupt\n  ]---\"\nerror_type: Job\nresult: fail\n"

/* The exact cut: a reason longer than its buffer is cut to the buffer's
 * size less one, before the character that would not fit; any buffer
 * gets a prefix of the whole reason, never half a character. */
static void test_reason_cut(void)
{
    static char meta[LAVA_META_MAX + 2], whole[1024], buf[1024];
    struct pm_err err = { "" };
    int n = snprintf(meta, sizeof meta, "error_type: Job\nerror_msg: ");
    memset(meta + n, 'x', 5000);
    strcpy(meta + n + 5000, "\n");
    int rc = lava_case_reason(meta, strlen(meta), buf, sizeof buf, &err);
    ok(rc == 0 && strlen(buf) == 1023 && strncmp(buf, "Job error: xxx", 14) == 0 && strspn(buf + 11, "x") == 1012,
       "a reason of 5011 bytes is cut to exactly 1023 in 1024 (%zu)", strlen(buf));
    n = snprintf(meta, sizeof meta, "error_type: Job\nerror_msg: ");
    for (int i = 0; i < 2000; i++)
        n += sprintf(meta + n, "\xe2\x82\xac");
    rc = lava_case_reason(meta, (size_t)n, buf, sizeof buf, &err);
    ok(rc == 0 && strlen(buf) == 1022 && utf8_valid(buf), "one of 3-byte characters: cut to 1022, before the character "
       "that would end at 1024 (%zu)", strlen(buf));
    n = snprintf(meta, sizeof meta, "error_type: \"B\\tug\"\nerror_msg: \"a\\e\\xe9 \\u20ac\\U0001F600\\t \\nb\"\n");
    lava_case_reason(meta, (size_t)n, whole, sizeof whole, &err);
    is_str(whole, "B ug error: a \xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80 b", "escapes decoded, control made spaces");
    bool prefixes = true;
    for (size_t len = 0; len < 40; len++) {
        char *small = malloc(len ? len : 1);
        small[0] = '?';
        rc = lava_case_reason(meta, (size_t)n, small, len, &err);
        /* Exactly the longest prefix of whole characters that fits. */
        size_t want = len ? strlen(whole) < len - 1 ? strlen(whole) : len - 1 : 0;
        while (want && (whole[want] & 0xc0) == 0x80)
            want--;
        prefixes &= rc == 0 && (len == 0 ? small[0] == '?' : strlen(small) == want && memcmp(small, whole, want) == 0);
        free(small);
    }
    ok(prefixes, "in buffers of 0 to 39 bytes: the longest prefix of whole characters each, none written in 0");
    n = snprintf(meta, sizeof meta, "error_type: ");
    memset(meta + n, 't', 2000);
    n += 2000;
    n += snprintf(meta + n, sizeof meta - (size_t)n, "\nerror_msg: m\n");
    rc = lava_case_reason(meta, (size_t)n, buf, sizeof buf, &err);
    ok(rc == 0 && strlen(buf) == 1023 && strspn(buf, "t") == 1023, "a type of 2000 bytes fills the reason, cut to 1023 (%zu)",
       strlen(buf));
    memset(meta, 'x', LAVA_META_MAX + 1);
    memcpy(meta, "error_msg: ", 11);
    meta[LAVA_META_MAX] = '\0';
    ok(lava_case_reason(meta, LAVA_META_MAX, buf, sizeof buf, &err) == 0 && strlen(buf) == 1023,
       "metadata of %u bytes is read (%s)", LAVA_META_MAX, err.msg);
    meta[LAVA_META_MAX] = 'x';
    reason_refused(meta, LAVA_META_MAX + 1, "65537 bytes, more than 65536", "one byte more");
}

/* A field that cleans to nothing is as if it were empty. */
static void test_reason_blank_fields(void)
{
    reason_is(R("error_type: \"  \"\nerror_msg: m\n"), "m", "a type of blanks: no ' error: ' before the message");
    reason_is(R("error_type: \"\\u202e\"\nerror_msg: m\n"), "m", "a type of a format character alone: the same");
    reason_is(R("error_type: Job\nerror_msg: \" \"\n"), "", "a message of a blank: no reason, not 'Job error: '");
    reason_is(R("error_type: Job\nerror_msg: \"\\u200b\\t\"\n"), "", "a message of a zero-width space and a tab: none");
    reason_is(R("error_type: \" Job \"\nerror_msg: \" m \"\n"), "Job error: m", "blanks at both fields' ends go");
}

/* Hostile YAML: deep, long, aliases (a billion laughs), and not YAML. */
static void test_reason_hostile(void)
{
    static char meta[80000];
    int n = sprintf(meta, "error_msg: m\nextra: ");
    for (int i = 0; i < LAVA_META_DEPTH - 1; i++)
        n += sprintf(meta + n, "[");
    for (int i = 0; i < LAVA_META_DEPTH - 1; i++)
        n += sprintf(meta + n, "]");
    reason_is(meta, (size_t)n, "m", "another key's value 16 levels deep is passed over");
    n = sprintf(meta, "error_msg: m\nextra: ");
    for (int i = 0; i < 10000; i++)
        n += sprintf(meta + n, "[");
    reason_refused(meta, (size_t)n, "line 2: nested deeper than 16 levels", "10000 open brackets");
    n = sprintf(meta, "extra: [");
    for (int i = 0; i < 5000; i++)
        n += sprintf(meta + n, "x, ");
    n += sprintf(meta + n, "]\nerror_msg: m\n");
    reason_refused(meta, (size_t)n, "more than 4096 YAML events", "a list of 5000 items");
    reason_refused(R("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                     "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nerror_msg: m\n"), "line 2: an alias", "a billion laughs");
    reason_refused(R("a: &x text\nerror_msg: *x\n"), "line 2: an alias (LAVA writes none)", "error_msg as an alias");
    reason_refused(R("error_msg: \"unclosed\n"), "line 2, column 1: found unexpected end of stream (while scanning a "
                   "quoted scalar)", "an unclosed quote");
    reason_refused(R("error_msg: a: b\n"), "line 1, column 13: mapping values are not allowed in this context",
                   "a second ': ' in a plain scalar");
    reason_refused(R("error_msg: a\x1b[2J\n"), "byte 12: control characters are not allowed", "a raw ESC");
    reason_refused(R("error_msg: a\0b\n"), "byte 12: control characters are not allowed", "a NUL byte");
    reason_refused(R("error_msg: \xff\n"), "byte 11: invalid leading UTF-8 octet", "a byte that is not UTF-8");
    reason_refused(R("\xff\xfe" "e\0r\0"), "byte 0: invalid leading UTF-8 octet", "UTF-16 (its byte order mark)");
    reason_refused(R("error_msg: \"\\ud800\"\n"), "invalid Unicode character escape code", "an escaped surrogate");
    reason_refused(R("- error_msg: m\n"), "line 1: not a mapping", "a list");
    reason_refused(R("just text\n"), "line 1: not a mapping", "a scalar");
    reason_refused(R("---\n"), "not a mapping", "an empty document");
    reason_refused(R("error_msg: [a, b]\n"), "line 1: error_msg is not a scalar (accepted: text)", "error_msg a list");
    reason_refused(R("error_type: {a: b}\nerror_msg: m\n"), "error_type is not a scalar", "error_type a mapping");
    reason_refused(R("error_msg: a\nerror_msg: b\n"), "line 2: error_msg a second time", "error_msg twice");
    reason_refused(R("error_msg: null\nerror_msg: b\n"), "error_msg a second time", "error_msg twice, null first");
    reason_refused(R("? [a]\n: b\nerror_msg: m\n"), "line 1: a key that is not a scalar", "a key that is a list");
    reason_refused(R("error_msg: a\n---\nerror_msg: b\n"), "more than one YAML document", "two documents");
}

/* The reason a job ended, from its job test case's metadata (YAML) as
 * LAVA writes it, read by libyaml. */
static void test_case_reason(void)
{
    reason_is(R("case: job\ndefinition: lava\nerror_msg: login-action timed out after 118 seconds\nerror_type: Job\n"
                "result: fail\n"), "Job error: login-action timed out after 118 seconds", "LAVA's plain scalars");
    reason_is(R(PANIC_META), "Job error: [ 2.653764] Kernel panic - not syncing: Fatal exception in interrupt [ 4.441426] "
              "Shutting down cpus with NMI [ 4.442805] Kernel Offset: 0x1a00000 from 0xffffffff81000000 (relocation "
              "range: 0xffffffff80000000-0xffffffffbfffffff) [ 4.460673] ---[ end Kernel panic - not syncing: Fatal "
              "exception in interrupt ]---", "a kernel panic's lines, folded, runs of blanks one space");
    reason_is(R("error_type: Bug\nerror_msg: \"a\\e[2Jb\\tc\\r\\nd\\x7f\\Ne\\u202eRLO\\u2028LS\\u200bZW\\0nul\\x9b"
                "CSI\\ufeffBOM\"\n"), "Bug error: a [2Jb c d  e RLO LS ZW nul CSI BOM",
              "escaped control and format characters (ESC, DEL, NEL, RLO, LS, ZWSP, NUL, CSI, BOM) made spaces");
    reason_is(R("error_msg: \"  lead\"\nerror_type: \" Job \"\n"), "Job error: lead", "blanks that begin a field dropped");
    reason_is(R("case: job\nresult: pass\n"), "", "no error_msg: no reason");
    reason_is(R("error_type: Job\nerror_msg: null\n"), "", "error_msg null: no reason");
    reason_is(R("error_type: Job\nerror_msg: ''\n"), "", "error_msg empty: no reason");
    reason_is(R("error_msg: alone\n"), "alone", "no error_type: the message alone");
    reason_is(R("{error_msg: flow, error_type: Job}"), "Job error: flow", "a flow mapping");
    reason_is(R("extra: {a: [1, 2, {b: c}]}\nerror_msg: m\n"), "m", "other keys' collections passed over");
    reason_is(R("error_type: &t Job\nerror_msg: !!python/object/apply:os.system m\n"), "Job error: m",
              "an anchor and a tag: the text as it is, nothing made of the tag");
    reason_is(R("error_msg: \"\\\"quoted\\\" \\\\ back\"\n"), "\"quoted\" \\ back", "escaped quotes and backslashes");
    reason_is(R(""), "", "empty metadata: no reason");
    reason_is(R("# a comment only\n"), "", "a comment only: no reason");
    test_reason_cut();
    test_reason_blank_fields();
    test_reason_hostile();
}

/* The job's YAML read by PyYAML and written as JSON, for jansson. */
static json_t *job_as_json(const char *text)
{
    static char out[1 << 16];
    char *const argv[] = { (char *)python, "-c",
                           "import sys, yaml, json; print(json.dumps(yaml.safe_load(sys.stdin.buffer.read())))", NULL };
    run_with_input(argv, text, out, sizeof out);
    json_error_t je;
    return json_loads(out, 0, &je);
}

static const char *str_at(json_t *doc, const char *path)
{
    json_t *v = doc;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, strtoul(k, NULL, 10)) : json_object_get(v, k);
    return json_is_string(v) ? json_string_value(v) : json_is_integer(v) ? "(integer)" : "(none)";
}

static long long int_at(json_t *doc, const char *path)
{
    json_t *v = doc;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, strtoul(k, NULL, 10)) : json_object_get(v, k);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* LAVA's schema's verdict on text: "valid", "invalid: ...", or a reason
 * it cannot run here. */
static void schema_says(const char *text, char *out, size_t len)
{
    char *const argv[] = { (char *)python, "tests/lava-schema.py", NULL };
    run_with_input(argv, text, out, len);
    out[strcspn(out, "\n")] = '\0';
}

/* The fields of good_spec's job, its boot timeout boot_min minutes. */
static void check_job_fields(json_t *j, long long boot_min)
{
    is_str(str_at(j, "job_name"), NAME, "job_name is the name, quotes, braces, newline and ESC included");
    is_str(str_at(j, "device_type"), "qemu", "device_type");
    is_str(str_at(j, "priority"), "medium", "priority");
    is_str(str_at(j, "visibility"), "public", "visibility");
    ok(int_at(j, "timeouts.job.minutes") == 60 && int_at(j, "timeouts.action.minutes") == 60 &&
       int_at(j, "timeouts.connection.minutes") == 2, "timeouts: job 60, action 60, connection 2");
    ok(int_at(j, "context.memory") == 2048, "context.memory is the integer 2048");
    is_str(str_at(j, "context.arch"), "amd64", "context.arch");
    is_str(str_at(j, "context.extra_options.0"), "-smp 2", "context.extra_options is [-smp 2]");
    ok(json_array_size(json_object_get(j, "actions")) == 3, "three actions");
    is_str(str_at(j, "actions.0.deploy.to"), "tmpfs", "deploy to tmpfs");
    ok(int_at(j, "actions.0.deploy.timeout.minutes") == 20, "deploy timeout 20");
    ok(strstr(str_at(j, "actions.0.deploy.images.kernel.image_arg"), " root=LABEL=pressmark ") != NULL,
       "the kernel's command line finds the root by its label (root=LABEL=pressmark)");
    is_str(str_at(j, "actions.0.deploy.images.kernel.image_arg"),
           "-kernel {kernel} -append \"console=ttyS0,115200 root=LABEL=pressmark rw init=/usr/lib/pressmark/lava-init "
           "quiet loglevel=3 pm.x=1,2\"", "the kernel's image_arg with the parameters appended");
    is_str(str_at(j, "actions.0.deploy.images.kernel.url"), "http://store.example/k?a=1&b=\"2\"", "the kernel's URL");
    is_str(str_at(j, "actions.0.deploy.images.kernel.sha256sum"),
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "its digest in lower case");
    is_str(str_at(j, "actions.0.deploy.images.initrd.image_arg"), "-initrd {initrd}", "initrd's image_arg");
    is_str(str_at(j, "actions.0.deploy.images.initrd.sha256sum"), D1, "initrd's digest");
    is_str(str_at(j, "actions.0.deploy.images.rootfs.image_arg"), "-drive format=qcow2,if=virtio,file={rootfs}",
           "rootfs's image_arg");
    is_str(str_at(j, "actions.0.deploy.images.job.image_arg"),
           "-drive format=raw,if=none,readonly=on,id=pmjob,file={job} -device virtio-blk-pci,drive=pmjob,"
           "serial=pressmark-job", "the job archive's image_arg");
    is_str(str_at(j, "actions.0.deploy.images.job.url"), "http://store.example/job.tar", "the job archive's URL");
    is_str(str_at(j, "actions.1.boot.method"), "qemu", "boot method qemu");
    is_str(str_at(j, "actions.1.boot.media"), "tmpfs", "boot media tmpfs");
    is_str(str_at(j, "actions.1.boot.prompts.0"), "pressmark-lava# ", "the prompt of pressmark's LAVA init");
    ok(int_at(j, "actions.1.boot.timeout.minutes") == boot_min, "boot timeout %lld (%lld)", boot_min,
       int_at(j, "actions.1.boot.timeout.minutes"));
    ok(int_at(j, "actions.2.test.timeout.minutes") == 30, "test timeout 30");
    is_str(str_at(j, "actions.2.test.definitions.0.from"), "inline", "an inline definition");
    is_str(str_at(j, "actions.2.test.definitions.0.repository.metadata.format"), "Lava-Test Test Definition 1.0",
           "its format");
    is_str(str_at(j, "actions.2.test.definitions.0.repository.run.steps.0"),
           "for s in /sys/block/vd*/serial; do [ \"$(cat \"$s\")\" = pressmark-job ] && "
           "job=/dev/$(basename \"$(dirname \"$s\")\"); done", "step 1 finds the job disk by its serial");
    is_str(str_at(j, "actions.2.test.definitions.0.repository.run.steps.1"),
           "mkdir -p /var/lib/pressmark-job && tar -xf \"$job\" -C /var/lib/pressmark-job", "step 2 unpacks it");
    is_str(str_at(j, "actions.2.test.definitions.0.repository.run.steps.2"),
           "cd /var/lib/pressmark-job && ./pressmark __lava-guest", "step 3 runs the guest side");
}

static void test_job(void)
{
    struct lava_job_spec s = good_spec();
    char *text = NULL;
    struct pm_err err = { "" };
    if (!ok(lava_job_yaml(&s, &text, &err) == 0 && text, "a job's YAML (%s)", err.msg))
        return;
    json_t *j = job_as_json(text);
    ok(json_is_object(j), "PyYAML reads it as a mapping");
    check_job_fields(j, 10);
    json_decref(j);
    char said[4096];
    schema_says(text, said, sizeof said);
    bool can = strncmp(said, "cannot validate", 15) != 0;
    if (!can)
        ok(1, "# SKIP LAVA's schema: %s", said);
    else
        is_str(said, "valid", "LAVA's job schema takes it");
    char *bad = strdup(text), *v = strstr(bad, "visibility: \"public\"");
    if (v)
        memcpy(v, "visibility: \"secret\"", 20);
    schema_says(bad, said, sizeof said);
    if (can)
        ok(strncmp(said, "invalid", 7) == 0, "and refuses one whose visibility is not LAVA's (%s)", said);
    free(bad);
    free(text);
    s.boot_timeout_min = 3;
    if (ok(lava_job_yaml(&s, &text, &err) == 0 && text, "a job whose boot may take 3 minutes (%s)", err.msg)) {
        j = job_as_json(text);
        check_job_fields(j, 3);
        json_decref(j);
        schema_says(text, said, sizeof said);
        if (can)
            is_str(said, "valid", "LAVA's job schema takes its boot timeout");
        free(text);
    }
    s.boot_timeout_min = 0;
    s.initrd.url = NULL;
    s.append = NULL;
    if (!ok(lava_job_yaml(&s, &text, &err) == 0, "a job without initrd and parameters (%s)", err.msg))
        return;
    ok(!strstr(text, "initrd"), "has no initrd image");
    j = job_as_json(text);
    is_str(str_at(j, "actions.0.deploy.images.kernel.image_arg"),
           "-kernel {kernel} -append \"console=ttyS0,115200 root=LABEL=pressmark rw init=/usr/lib/pressmark/lava-init\"",
           "and nothing appended to the kernel's command line");
    json_decref(j);
    schema_says(text, said, sizeof said);
    if (can)
        is_str(said, "valid", "LAVA's job schema takes it too");
    free(text);
}

/* A spec with one thing wrong is refused, err saying what is accepted. */
static void refused(struct lava_job_spec s, const char *want, const char *what)
{
    char *text = (char *)"untouched";
    struct pm_err err = { "" };
    int rc = lava_job_yaml(&s, &text, &err);
    ok(rc == -1 && text == NULL && strstr(err.msg, want), "refused: %s (%s)", what, err.msg);
}

static void test_bad_specs(void)
{
    struct lava_job_spec s = good_spec();
    s.kernel.sha256 = "xyz";
    refused(s, "accepted: 64 hex digits", "a digest that is not hex");
    s.kernel.sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";
    refused(s, "accepted: 64 hex digits", "a digest of 63 digits");
    s = good_spec();
    s.job.sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg";
    refused(s, "the job image's sha256 '0123", "a digest with a g, naming the image");
    s = good_spec();
    s.rootfs.sha256 = NULL;
    refused(s, "accepted: 64 hex digits", "no digest");
    /* Each with its message's start: the value quoted, escaped, on one line. */
    const char *appends[][2] = {
        { "a\"b", "kernel parameters 'a\"b': accepted" }, { "a;reboot", "kernel parameters 'a;reboot': accepted" },
        { "a  b", "'a  b': accepted" }, { " a", "' a': accepted" }, { "a ", "'a ': accepted" },
        { "$(reboot)", "'$(reboot)': accepted" }, { "a\nb", "kernel parameters 'a\\x0ab': accepted" },
        { "a'b", "'a'b': accepted" }, { "a\xe2\x80\xae" "b", "'a\\xe2\\x80\\xaeb': accepted" },
    };
    for (size_t i = 0; i < sizeof appends / sizeof appends[0]; i++) {
        s = good_spec();
        s.append = appends[i][0];
        refused(s, appends[i][1], "kernel parameters");
        refused(s, "accepted: words of A-Z a-z 0-9 . _ = , : / + - separated by single spaces", "saying what is accepted");
    }
    s = good_spec();
    s.kernel.url = NULL;
    refused(s, "the kernel image has no URL", "no kernel URL");
    s = good_spec();
    s.timeout_min = 15;
    s.test_timeout_min = 10;
    refused(s, "at least 20", "a job timeout below the deploy's");
    s = good_spec();
    s.timeout_min = 25;
    refused(s, "accepted: a test timeout", "a job timeout below the test's");
    s = good_spec();
    s.priority = "urgent";
    refused(s, "accepted: high, medium or low", "a priority LAVA does not know");
    s = good_spec();
    s.visibility = "group";
    refused(s, "accepted: public or personal", "a visibility");
    s = good_spec();
    s.name = "";
    refused(s, "accepted: 1 to 200", "an empty name");
    static char longname[202];
    memset(longname, 'n', 201);
    s.name = longname;
    refused(s, "accepted: 1 to 200", "a name of 201 bytes");
}

/* lava_lab_open with this token file; its message in err. */
static int open_with(const char *url, const char *token_file, struct lava_lab *lab, struct pm_err *err)
{
    err->msg[0] = '\0';
    return lava_lab_open(lab, url, token_file, err);
}

static void test_token_files(void)
{
    char tok[256], link[256], sub[256], empty[256], spaced[256], fifo[256], other[256];
    snprintf(tok, sizeof tok, "%s/token", dir);
    snprintf(link, sizeof link, "%s/token-link", dir);
    snprintf(sub, sizeof sub, "%s/token-dir", dir);
    snprintf(empty, sizeof empty, "%s/token-empty", dir);
    snprintf(spaced, sizeof spaced, "%s/token-spaced", dir);
    snprintf(fifo, sizeof fifo, "%s/token-fifo", dir);
    snprintf(other, sizeof other, "%s/token-other", dir);
    struct lava_lab lab;
    struct pm_err err;
    char want[512];
    write_file(tok, "abc123.x_y-z\n", 0644);
    snprintf(want, sizeof want, "lava-token-file = %s: readable by others (mode 0644); accepted: a file only its owner "
             "can read (chmod 600 %s)", tok, tok);
    ok(open_with("http://h/", tok, &lab, &err) == -1 && strcmp(err.msg, want) == 0 && lab.token[0] == '\0',
       "a token file of mode 0644 is refused: %s", err.msg);
    chmod(tok, 0620);
    ok(open_with("http://h/", tok, &lab, &err) == -1 && strstr(err.msg, "writable by others (mode 0620)"),
       "one others may write is refused: %s", err.msg);
    chmod(tok, 0600);
    ok(open_with("http://h/", tok, &lab, &err) == 0 && strcmp(lab.token, "abc123.x_y-z") == 0,
       "mode 0600 is taken, the token without its newline (%s)", err.msg);
    if (symlink(tok, link) < 0 || mkdir(sub, 0700) < 0 || mkfifo(fifo, 0600) < 0)
        bail("cannot make the token files");
    ok(open_with("http://h/", link, &lab, &err) == -1 && strstr(err.msg, "lava-token-file = ") &&
       strstr(err.msg, "a symbolic link"), "a symlink to it is refused: %s", err.msg);
    ok(open_with("http://h/", sub, &lab, &err) == -1 && strstr(err.msg, "not a regular file (a directory)"),
       "a directory is refused: %s", err.msg);
    ok(open_with("http://h/", fifo, &lab, &err) == -1 && strstr(err.msg, "not a regular file"),
       "a FIFO is refused, without waiting for a writer: %s", err.msg);
    write_file(empty, "", 0600);
    ok(open_with("http://h/", empty, &lab, &err) == -1 && strstr(err.msg, "empty; accepted: one line of 1 to 255"),
       "an empty file is refused: %s", err.msg);
    write_file(spaced, "secret part2\n", 0600);
    ok(open_with("http://h/", spaced, &lab, &err) == -1 && strstr(err.msg, "not one line of the token's characters") &&
       !strstr(err.msg, "secret") && lab.token[0] == '\0', "a token with a space is refused, not echoed: %s", err.msg);
    write_file(spaced, "tok\nsecond\n", 0600);
    ok(open_with("http://h/", spaced, &lab, &err) == -1 && strstr(err.msg, "not one line of the token's characters"),
       "two lines are refused: %s", err.msg);
    static char long_token[300];
    memset(long_token, 'x', 256);
    write_file(spaced, long_token, 0600);
    ok(open_with("http://h/", spaced, &lab, &err) == -1 && strstr(err.msg, "longer than 255"),
       "256 characters are refused: %s", err.msg);
    write_file(other, "tok\n", 0600);
    if (geteuid() == 0 && chown(other, 4321, 4321) == 0)
        ok(open_with("http://h/", other, &lab, &err) == -1 && strstr(err.msg, "owned by uid 4321"),
           "a file of another user's is refused: %s", err.msg);
    else
        ok(1, "# SKIP a file of another user's needs root to make");
    snprintf(want, sizeof want, "%s/none", dir);
    ok(open_with("http://h/", want, &lab, &err) == -1 && strstr(err.msg, "cannot open (No such file or directory)"),
       "a missing file: %s", err.msg);
}

static void test_urls(void)
{
    struct lava_lab lab;
    struct pm_err err;
    ok(open_with("http://127.0.0.1:8080", NULL, &lab, &err) == 0 && strcmp(lab.url, "http://127.0.0.1:8080/") == 0 &&
       lab.token[0] == '\0', "a URL without a path gets '/' (%s)", lab.url);
    ok(open_with("HTTPS://Lava.Example.org/lava", NULL, &lab, &err) == 0 &&
       strcmp(lab.url, "https://Lava.Example.org/lava/") == 0, "a path ends in '/', the scheme as libcurl writes it (%s)",
       lab.url);
    ok(open_with("ftp://x", NULL, &lab, &err) == -1 && strstr(err.msg, "lava-url = ftp://x: not http or https; "
       "accepted: http://HOST"), "ftp://x is refused: %s", err.msg);
    ok(open_with("http://user:pw@h/", NULL, &lab, &err) == -1 && strstr(err.msg, "lava-url = http://h/ (with a "
       "user:password)") && !strstr(err.msg, "pw"), "a user:password is refused, the password not echoed: %s", err.msg);
    ok(open_with("http://h/?x=1", NULL, &lab, &err) == -1 && strstr(err.msg, "a query or fragment"),
       "a query is refused: %s", err.msg);
    ok(open_with("lava.example.org", NULL, &lab, &err) == -1 && strstr(err.msg, "not a URL"),
       "a host alone is refused: %s", err.msg);
    ok(open_with(NULL, NULL, &lab, &err) == -1 && strstr(err.msg, "lava-url: none given"), "no URL: %s", err.msg);
}

/* A port bound on loopback that nobody listens on: connecting is refused. */
static void test_no_answer(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t alen = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || getsockname(fd, (struct sockaddr *)&a, &alen) < 0)
        bail("cannot bind a loopback port");
    char url[64], want[256], version[32] = "untouched";
    snprintf(url, sizeof url, "http://127.0.0.1:%u", ntohs(a.sin_port));
    snprintf(want, sizeof want, "%s/: no answer (connection refused (nothing listens there))", url);
    struct lava_lab lab;
    struct pm_err err = { "" };
    ok(open_with(url, NULL, &lab, &err) == 0 && lava_ping(&lab, version, sizeof version, &err) == -1 &&
       strcmp(err.msg, want) == 0, "lava_ping where nothing listens: one line: %s", err.msg);
    close(fd);
}


static pid_t server_pid;
static unsigned server_port;

/* tests/lava_fake.py on a port of its choosing, which it writes down. */
static void start_server(void)
{
    char *const argv[] = { (char *)python, "tests/lava_fake.py", dir, NULL };
    struct pm_spawn sp = { .argv = argv, .die_with_parent = true };
    struct pm_err err;
    if (pm_spawn(&sp, &server_pid, &err) < 0)
        bail(err.msg);
    char path[256], port[16];
    snprintf(path, sizeof path, "%s/port", dir);
    for (int i = 0; i < 400; i++) {
        if (pm_read_file(path, port, sizeof port) == 0) {
            server_port = (unsigned)strtoul(port, NULL, 10);
            return;
        }
        nanosleep(&(struct timespec){ 0, 25000000 }, NULL);
    }
    bail("tests/lava_fake.py did not start");
}

static void stop_server(void)
{
    struct pm_err err;
    int status;
    if (kill(server_pid, SIGTERM) < 0 || pm_wait(server_pid, &status, &err) < 0)
        bail("cannot stop tests/lava_fake.py");
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0;
    if (!f)
        return NULL;
    for (size_t got; (buf = realloc(buf, n + 65536)) && (got = fread(buf + n, 1, 65536, f)) > 0;)
        n += got;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* How many of the server's logged requests hold this text. */
static int logged(const char *text)
{
    char path[256];
    size_t len;
    snprintf(path, sizeof path, "%s/requests.log", dir);
    char *log = read_all(path, &len);
    int n = 0;
    for (char *p = log; p && (p = strstr(p, text)); p += strlen(text))
        n++;
    free(log);
    return n;
}

static void test_lava_lab(const struct lava_lab *lab, const struct lava_lab *anon)
{
    char version[16] = "", url[128];
    struct pm_err err = { "" };
    ok(lava_ping(lab, version, sizeof version, &err) == 0 && strcmp(version, "2023.01") == 0,
       "lava_ping: LAVA %s (%s)", version, err.msg);
    ok(lava_ping(anon, version, sizeof version, &err) == 0 && logged("GET /lava/api/v0.2/system/version/ -\n") == 1,
       "without a token no Authorization header goes");
    bool exists = false;
    ok(lava_device_type_exists(lab, "qemu", &exists, &err) == 0 && exists,
       "qemu has a device in service, on the second page (%s)", err.msg);
    ok(logged("GET /lava/api/v0.2/devices/?device_type=qemu&limit=100&offset=2 Token goodtoken\n") == 1,
       "the second page asked from where the first (capped at 2) ended");
    exists = true;
    ok(lava_device_type_exists(lab, "retired", &exists, &err) == 0 && !exists, "a type whose devices are all retired");
    exists = true;
    ok(lava_device_type_exists(lab, "nosuch", &exists, &err) == 0 && !exists, "a type LAVA answers 404 for");
    ok(lava_device_type_exists(lab, "../jobs", &exists, &err) == -1 &&
       strstr(err.msg, "device type '../jobs': accepted: 1 to 100 of A-Z a-z 0-9 _ -"), "a name that is not a slug: %s",
       err.msg);
    lava_job_url(lab, 42, url, sizeof url);
    char want[128];
    snprintf(want, sizeof want, "http://127.0.0.1:%u/lava/scheduler/job/42", server_port);
    is_str(url, want, "lava_job_url");
}

static void test_lava_submit(const struct lava_lab *lab, const struct lava_lab *wrong, const struct lava_lab *anon)
{
    struct lava_job_spec s = good_spec();
    char *text = NULL, path[256];
    struct pm_err err = { "" };
    int64_t id = 0;
    if (lava_job_yaml(&s, &text, &err) < 0)
        bail(err.msg);
    int rc = lava_submit(lab, text, &id, &err);
    ok(rc == 0 && id == 42, "lava_submit: job %lld (%s)", (long long)id, err.msg);
    snprintf(path, sizeof path, "%s/submitted.yaml", dir);
    size_t len;
    char *got = read_all(path, &len);
    ok(got && strcmp(got, text) == 0, "LAVA got the definition as written, in {\"definition\": ...}");
    free(got);
    ok(lava_submit(lab, "key: [unclosed", &id, &err) == -1 &&
       strstr(err.msg, "/lava/api/v0.2/jobs/: LAVA refused the job: HTTP 400 (Problem with submitted job data: ") &&
       !has_control(err.msg), "a definition LAVA refuses: its message, control characters made spaces: %s", err.msg);
    ok(lava_submit(wrong, text, &id, &err) == -1 && strstr(err.msg, "LAVA refused the token: HTTP 401 (Invalid token.)"),
       "a wrong token: %s", err.msg);
    ok(lava_submit(anon, text, &id, &err) == -1 && strstr(err.msg, "submitting a job needs a token") &&
       logged("POST ") == 3, "no token: refused before asking LAVA: %s", err.msg);
    free(text);
}

/* A job that ended Incomplete or Canceled with failure_comment null: why,
 * from the metadata of its test case "job" of the suite "lava". */
static void job_failure(const struct lava_lab *lab, int64_t id, enum lava_health health, const char *want,
                        const char *what)
{
    struct lava_job_status st;
    struct pm_err err = { "" };
    char asked[128];
    snprintf(asked, sizeof asked, "GET /lava/api/v0.2/jobs/%lld/tests/?name=job&suite__name=lava Token goodtoken\n",
             (long long)id);
    int rc = lava_job_get(lab, id, &st, &err);
    ok(rc == 0 && st.state == LAVA_FINISHED && st.health == health, "job %lld: Finished, %s (%s)", (long long)id,
       health == LAVA_CANCELED ? "Canceled" : health == LAVA_COMPLETE ? "Complete" : "Incomplete", err.msg);
    is_str(st.failure, want, "job %lld: %s", (long long)id, what);
    ok(logged(asked) == (health == LAVA_COMPLETE ? 0 : 1), "job %lld: its test cases asked %s", (long long)id,
       health == LAVA_COMPLETE ? "never (it completed)" : "once, by name job and suite lava");
}

static void test_job_errors(const struct lava_lab *lab)
{
    job_failure(lab, 47, LAVA_INCOMPLETE, "Job error: login-action timed out after 118 seconds",
                "the job case's error_type and error_msg");
    job_failure(lab, 48, LAVA_CANCELED, "Canceled error: The job was canceled", "a canceled one's");
    job_failure(lab, 49, LAVA_INCOMPLETE, "Bug error: auto-login-action:  [31mkernel panic [0m   end",
                "control characters (ESC, tab, CR, DEL, NEL) in error_msg made spaces");
    job_failure(lab, 50, LAVA_INCOMPLETE, "", "no job case of the suite lava: no reason");
    job_failure(lab, 51, LAVA_COMPLETE, "", "a job that completed has no failure");
    /* The same text as PyYAML reads it, its blanks runs made one. */
    job_failure(lab, 52, LAVA_INCOMPLETE, "Job error: [ 2.653764] Kernel panic - not syncing: Fatal exception in interrupt [ 4.441426] Shutting down cpus with NMI [ 4.442805] Kernel Offset: 0x1a00000 from 0xffffffff81000000 (relocation range: 0xffffffff80000000-0xffffffffbfffffff) [ 4.460673] ---[ end Kernel panic - not syncing: Fatal exception in interrupt ]---", "a double-quoted error_msg over several lines, unescaped and folded");
    job_failure(lab, 53, LAVA_INCOMPLETE, "LAVA's reason unreadable (its job test case's metadata: byte 21: control "
                "characters are not allowed)", "metadata that is not YAML (a raw ESC): said so, as the reason");
    job_failure(lab, 54, LAVA_INCOMPLETE, "LAVA's reason unreadable (its job test case's metadata: line 2: an alias "
                "(LAVA writes none))", "metadata with an alias: said so");
}

static void test_lava_jobs(const struct lava_lab *lab)
{
    struct lava_job_status st;
    struct pm_err err = { "" };
    ok(lava_job_get(lab, 42, &st, &err) == 0 && st.state == LAVA_RUNNING && st.health == LAVA_UNKNOWN &&
       strcmp(st.device, "qemu-01") == 0 && st.failure[0] == '\0', "job 42: Running, Unknown, on qemu-01 (%s)", err.msg);
    ok(lava_job_get(lab, 43, &st, &err) == 0 && st.state == LAVA_FINISHED && st.health == LAVA_INCOMPLETE,
       "job 43: Finished, Incomplete");
    ok(strncmp(st.failure, "kernel panic [2J line two \xc3\xa9\xc3\xa9", 30) == 0 && strlen(st.failure) == 1022 &&
       utf8_valid(st.failure) && !has_control(st.failure),
       "its failure_comment: control characters (ESC, newline, NEL) made spaces, cut before a character (%zu bytes)",
       strlen(st.failure));
    ok(logged("/jobs/42/tests/") == 0 && logged("/jobs/43/tests/") == 0,
       "their test cases not asked (running; a failure_comment said why)");
    test_job_errors(lab);
    ok(lava_job_get(lab, 44, &st, &err) == -1 && strstr(err.msg, "not LAVA's answer (a job's state 'Weird')"),
       "a state LAVA has not: %s", err.msg);
    ok(lava_job_get(lab, 45, &st, &err) == -1 && strstr(err.msg, "larger than the limit of 4194304 bytes"),
       "an answer over 4 MiB: %s", err.msg);
    ok(lava_job_get(lab, 46, &st, &err) == -1 && strstr(err.msg, "/lava/api/v0.2/jobs/46/: HTTP 500 (not a JSON answer)"),
       "a server error page: %s", err.msg);
    ok(lava_job_get(lab, 99, &st, &err) == -1 && strstr(err.msg, "no such job for LAVA: HTTP 404 (Not found.)"),
       "a job LAVA has not: %s", err.msg);
}

static void test_lava_server(void)
{
    char base[64], good[256], wrong[256];
    snprintf(base, sizeof base, "http://127.0.0.1:%u/lava", server_port);
    snprintf(good, sizeof good, "%s/good-token", dir);
    snprintf(wrong, sizeof wrong, "%s/wrong-token", dir);
    write_file(good, "goodtoken\n", 0600);
    write_file(wrong, "wrongtoken\n", 0600);
    struct lava_lab lab, bad, anon;
    struct pm_err err;
    if (open_with(base, good, &lab, &err) < 0 || open_with(base, wrong, &bad, &err) < 0 ||
        open_with(base, NULL, &anon, &err) < 0)
        bail(err.msg);
    test_lava_lab(&lab, &anon);
    test_lava_submit(&lab, &bad, &anon);
    test_lava_jobs(&lab);
}

static bool same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = read_all(a, &la), *y = read_all(b, &lb);
    bool same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

static void test_artifact_get(const char *store, const char *src)
{
    char url[128], got[256], other[256];
    struct pm_err err = { "" };
    int missing = -1;
    snprintf(url, sizeof url, "%s/a.bin", store);
    snprintf(got, sizeof got, "%s/got.bin", dir);
    struct stat st;
    ok(artifact_get(url, got, 1 << 20, &missing, &err) == 0 && missing == 0 && same_file(got, src) &&
       stat(got, &st) == 0 && (st.st_mode & 07777) == 0600, "artifact_get: the same bytes, in a file of mode 0600 (%s)",
       err.msg);
    ok(artifact_get(url, got, 1 << 20, &missing, &err) == -1 && strstr(err.msg, "cannot create (File exists)") &&
       same_file(got, src), "not over a file that is there, which stays: %s", err.msg);
    char target[256];
    snprintf(other, sizeof other, "%s/link.bin", dir);
    snprintf(target, sizeof target, "%s/target.bin", dir);
    if (symlink("target.bin", other) < 0)
        bail("symlink");
    ok(artifact_get(url, other, 1 << 20, &missing, &err) == -1 && strstr(err.msg, "cannot create") &&
       !pm_path_exists(target), "nor through a symlink, whose target is not made: %s", err.msg);
    snprintf(url, sizeof url, "%s/missing", store);
    snprintf(got, sizeof got, "%s/m.bin", dir);
    ok(artifact_get(url, got, 1 << 20, &missing, &err) == 0 && missing == 1 && !pm_path_exists(got),
       "a 404: missing, no file left");
    missing = 0;
    ok(artifact_get(url, got, 10, &missing, &err) == 0 && missing == 1 && !pm_path_exists(got),
       "also when the 404 page is over the limit (%s)", err.msg);
    snprintf(url, sizeof url, "%s/a.bin", store);
    ok(artifact_get(url, got, 1000, &missing, &err) == -1 && strstr(err.msg, "larger than the limit of 1000 bytes") &&
       !pm_path_exists(got), "a body over max: refused, no file left: %s", err.msg);
    snprintf(url, sizeof url, "%s/broken", store);
    ok(artifact_get(url, got, 1 << 20, &missing, &err) == -1 &&
       strstr(err.msg, "/store/broken: the artifact store answered HTTP 500") && !pm_path_exists(got),
       "a server error: its status, no file left: %s", err.msg);
}

static void test_artifacts(void)
{
    char store[64], url[128], src[256], put[256];
    snprintf(store, sizeof store, "http://127.0.0.1:%u/store", server_port);
    snprintf(src, sizeof src, "%s/src.bin", dir);
    FILE *f = fopen(src, "wb");
    for (unsigned i = 0; f && i < 300000; i++)
        fputc((int)((i * 7) ^ (i >> 8)) & 0xff, f);
    if (!f || fclose(f) != 0)
        bail("cannot write src.bin");
    struct pm_err err = { "" };
    snprintf(url, sizeof url, "%s/a.bin", store);
    snprintf(put, sizeof put, "%s/store/a.bin", dir);
    ok(artifact_put(url, src, &err) == 0 && same_file(put, src), "artifact_put: the store has the same bytes (%s)",
       err.msg);
    snprintf(url, sizeof url, "%s/sub/x", store);
    ok(artifact_put(url, src, &err) == -1 && strstr(err.msg, "/store/sub/x: the artifact store answered HTTP 403"),
       "a PUT the store refuses: %s", err.msg);
    snprintf(put, sizeof put, "%s/none", dir);
    ok(artifact_put(url, put, &err) == -1 && strstr(err.msg, "cannot open (No such file or directory)"),
       "a file that is not there: %s", err.msg);
    int exists = -1;
    err.msg[0] = '\0';
    snprintf(url, sizeof url, "%s/a.bin", store);
    ok(artifact_exists(url, &exists, &err) == 0 && exists == 1, "artifact_exists: a.bin is there (%s)", err.msg);
    snprintf(url, sizeof url, "%s/missing", store);
    ok(artifact_exists(url, &exists, &err) == 0 && exists == 0, "and missing is not (%s)", err.msg);
    test_artifact_get(store, src);
}

/* A URL with a user or password anywhere in a text, found as libcurl
 * reads URLs, and named without them. */
static void test_userinfo(void)
{
    static const char *const found[][2] = {
        { "https://user:pass@example.org/db", "https://example.org/db" },
        { "http://lab@evil/", "http://evil/" },
        { "curl -s https://u:pass@h.example/x -o out", "https://h.example/x" },
        { "--push=HTTPS://tok@h:8086/write", "HTTPS://h:8086/write" },
        { "https://a,b:pass@h1, https://h2", "https://h1," },
        { "x https://h/ok and then ftp://u:pass@h2/f", "ftp://h2/f" },
        { "http://:pass@h/", "http://h/" },
        { "http://u%40x:pass@h/", "http://h/" },
        { "svn+ssh://u@h/repo", "svn+ssh://h/repo" },
        { "'https://u:pass@h/q'", "https://h/q" },
        { "http://u:pa@ss@h/", "http://h/" },
        /* Not URLs to libcurl (a '^' in the host, an open bracket), but
         * words another program may send: the authority's '@' says it. */
        { "http://u:pass@bad^host/x", "http://bad^host/x" },
        { "http://u:pass@[::1/", "http://[::1/" },
    };
    static const char *const clean[] = {
        "https://h/x@y", "https://h/?to=a@b", "http://h#me@x", "mailto:u@h", "user@host:/srv", "https://h:8080/p",
        "label@x", "", "://u:p@h", "1http://h/",
    };
    char bare[160];
    for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
        bare[0] = '\0';
        ok(lava_text_userinfo(found[i][0], bare, sizeof bare, NULL) == 1 && strcmp(bare, found[i][1]) == 0 && !strstr(bare, "pass"),
           "a user or password in '%s': found, named %s", found[i][0], bare);
    }
    for (size_t i = 0; i < sizeof clean / sizeof clean[0]; i++)
        ok(lava_text_userinfo(clean[i], bare, sizeof bare, NULL) == 0, "none in '%s'", clean[i]);
}

#define UUID "7ec4a472-5ca5-4fef-9d19-8e08dff78e4b"
#define HEX "4d46c470a215e11e18287e55"

/* The stored jobs' suite: its lava keys are the backend's state. */
static struct exp_lava_keys stored_keys;
static struct suite_plan stored_plan = { .backend_state = &stored_keys };

/* A made job of kernel 0 as pressmark stores it for stored_plan. */
static struct lava_job_rec stored_rec(void)
{
    struct lava_job_rec rec = { .group = 0, .attempt = 1 };
    snprintf(rec.lab, sizeof rec.lab, "%s", stored_keys.url);
    snprintf(rec.results_url, sizeof rec.results_url, "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-"
             HEX ".tar");
    snprintf(rec.state, sizeof rec.state, "made");
    return rec;
}

/* rec refused by exp_lava_stored_check with a message holding want. */
static void stored_refused(const struct lava_job_rec *rec, const char *uuid, const char *want, const char *what)
{
    struct pm_err err = { "" };
    char name[300] = "untouched";
    ok(exp_lava_stored_check(&stored_plan, 1, uuid, rec, name, sizeof name, &err) == -1 && strstr(err.msg, want) &&
       strstr(err.msg, "lava_job of suite 1, kernel 0, attempt 1") && !strchr(err.msg, '\x1b') &&
       !strchr(err.msg, '\n') && strcmp(name, "untouched") == 0, "%s: refused (%s)", what, err.msg);
}

static void test_stored_urls(void)
{
    static const char *const bad[] = {
        "http://127.0.0.1:1/store/pressmark/../x/results-" UUID "-kernel0-" HEX ".tar",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-" HEX ".tar/../../x",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-" HEX ".tar?x=1",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-" HEX ".tar#x",
        "http://lab@evil/store/pressmark/results-" UUID "-kernel0-" HEX ".tar",
        "http://127.0.0.1:1@evil/store/pressmark/results-" UUID "-kernel0-" HEX ".tar",
        "http://127.0.0.1:1/store@evil/pressmark/results-" UUID "-kernel0-" HEX ".tar",
        "http://127.0.0.1:1/storex/pressmark/results-" UUID "-kernel0-" HEX ".tar",
        "http://127.0.0.1:1/store//pressmark/results-" UUID "-kernel0-" HEX ".tar",
        "http://127.0.0.1:1/store/%2e%2e/pressmark/results-" UUID "-kernel0-" HEX ".tar",
        "HTTP://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-" HEX ".tar",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel1-" HEX ".tar",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel00-" HEX ".tar",
        "http://127.0.0.1:1/store/pressmark/results-00000000-0000-4000-8000-000000000000-kernel0-" HEX ".tar",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-4D46C470A215E11E18287E55.tar",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-4d46c470a215e11e18287e5.tar",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-" HEX "0.tar",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-" HEX ".TAR",
        "http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-" HEX ".tar ",
        "http://10.0.0.1/internal",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct lava_job_rec rec = stored_rec();
        snprintf(rec.results_url, sizeof rec.results_url, "%s", bad[i]);
        char what[400];
        snprintf(what, sizeof what, "results_url '%s'", bad[i]);
        stored_refused(&rec, UUID, "its results_url '", what);
    }
    struct lava_job_rec rec = stored_rec();
    snprintf(rec.results_url, sizeof rec.results_url, "http://127.0.0.1:1/store/pressmark/results-%s-kernel0-%s.tar\x1b[2J",
             UUID, HEX);
    stored_refused(&rec, UUID, "is not http://127.0.0.1:1/store/pressmark/results-" UUID "-kernel0-<24 lowercase hex "
                   "digits>.tar (under s.ini's lava-artifacts); refused, nothing sent or fetched",
                   "one with an escape: what was expected said, the escape quoted");
    rec = stored_rec();
    stored_refused(&rec, "../../" UUID, "its suite's UUID '../../", "a suite UUID that is a path");
}

static void test_stored_check(void)
{
    snprintf(stored_plan.file.path, sizeof stored_plan.file.path, "s.ini");
    snprintf(stored_keys.url, sizeof stored_keys.url, "http://127.0.0.1:1/lava/");
    snprintf(stored_keys.artifacts, sizeof stored_keys.artifacts, "http://127.0.0.1:1/store");
    struct lava_job_rec rec = stored_rec();
    struct pm_err err = { "" };
    char name[300] = "";
    ok(exp_lava_stored_check(&stored_plan, 1, UUID, &rec, name, sizeof name, &err) == 0 &&
       strcmp(name, "pressmark/results-" UUID "-kernel0-" HEX ".tar") == 0, "a stored job as pressmark made it: %s (%s)",
       name, err.msg);
    snprintf(stored_keys.artifacts, sizeof stored_keys.artifacts, "http://127.0.0.1:1/store/");
    ok(exp_lava_stored_check(&stored_plan, 1, UUID, &rec, name, sizeof name, &err) == 0, "also under a store URL ending "
       "in '/' (%s)", err.msg);
    snprintf(stored_keys.artifacts, sizeof stored_keys.artifacts, "http://127.0.0.1:1/store");
    char made[300], url[400];
    ok(exp_lava_results_name(UUID, 3, made, sizeof made, &err) == 0 && strlen(made) == strlen(name), "a new results "
       "name: %s", made);
    rec.group = 3;
    exp_lava_store_url(stored_keys.artifacts, made, url, sizeof url);
    snprintf(rec.results_url, sizeof rec.results_url, "%s", url);
    ok(exp_lava_stored_check(&stored_plan, 1, UUID, &rec, name, sizeof name, &err) == 0 && strcmp(name, made) == 0,
       "  taken back as it was made (%s)", err.msg);
    static const char *const labs[] = { "http://evil/", "http://127.0.0.1:1/lava", "http://127.0.0.1:1/lava/ ",
                                        "http://lab@127.0.0.1:1/lava/", "" };
    for (size_t i = 0; i < sizeof labs / sizeof labs[0]; i++) {
        rec = stored_rec();
        snprintf(rec.lab, sizeof rec.lab, "%s", labs[i]);
        char want[300];
        snprintf(want, sizeof want, "its lab '%s' is not s.ini's lava-url http://127.0.0.1:1/lava/; refused, nothing "
                 "sent", labs[i]);
        stored_refused(&rec, UUID, want, "a stored lab not the suite's lava-url");
    }
    static const struct { const char *state; int64_t id; } states[] = {
        { "made", 7 }, { "submitted", 0 }, { "weird", 7 }, { "", 0 }, { "Made", 0 },
    };
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        rec = stored_rec();
        snprintf(rec.state, sizeof rec.state, "%s", states[i].state);
        rec.job_id = states[i].id;
        stored_refused(&rec, UUID, "is not a job waiting (accepted: made without a job_id, submitted with one)",
                       "a state that is not a waiting job's");
    }
    test_stored_urls();
}

static void test_stored_same(void)
{
    struct lava_job_rec rec = stored_rec();
    struct pm_err err = { "" };
    rec.definition = "a: 1\nvisibility: \"public\"\nc: 3\n";
    ok(exp_lava_stored_same(&stored_plan, 1, &rec, "a: 1\nvisibility: \"public\"\nc: 3\n", &err) == 0,
       "a stored definition equal to the one made now");
    ok(exp_lava_stored_same(&stored_plan, 1, &rec, "a: 1\nvisibility: \"personal\"\nc: 3\n", &err) == -1 &&
       strstr(err.msg, "lava_job of suite 1, kernel 0, attempt 1: its definition is not the one s.ini makes now "
              "(line 2: 'visibility: \"public\"' where it makes 'visibility: \"personal\"'); refused, nothing sent"),
       "one that differs: the line named: %s", err.msg);
    ok(exp_lava_stored_same(&stored_plan, 1, &rec, "a: 1\nvisibility: \"public\"\nc: 3\nd: 4\n", &err) == -1 &&
       strstr(err.msg, "(line 4: '' where it makes 'd: 4')"), "one the made one is longer than: %s", err.msg);
    rec.definition = "a: 1\n\x1b[2Jactions: []\n";
    ok(exp_lava_stored_same(&stored_plan, 1, &rec, "a: 1\nb: 2\n", &err) == -1 && strstr(err.msg, "line 2: '\\x1b[2J") &&
       !strchr(err.msg, '\x1b'), "its escape quoted: %s", err.msg);
    rec.definition = NULL;
    ok(exp_lava_stored_same(&stored_plan, 1, &rec, "a: 1\n", &err) == -1, "none stored: refused (%s)", err.msg);
}

static void test_with_server(void)
{
    start_server();
    test_lava_server();
    test_artifacts();
    stop_server();
}

int main(void)
{
    if (!mkdtemp(dir))
        bail("mkdtemp");
    test_hostile_values();
    test_not_utf8();
    test_job_layout();
    test_case_reason();
    test_job();
    test_bad_specs();
    test_token_files();
    test_urls();
    test_no_answer();
    test_userinfo();
    test_stored_check();
    test_stored_same();
    test_with_server();
    if (pm_remove_all(dir) < 0)
        bail("cannot remove the test directory");
    return done_testing();
}
