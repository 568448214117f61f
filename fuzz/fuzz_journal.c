/* The undo journal's lines, which recovery acts on as root. The input is
 * read two ways: as journal text (lines) and as a kind byte plus two NUL-
 * separated fields. Properties: a line is acted on only when it names one
 * of pressmark's places, and such a place, resolved as the kernel would
 * ("." and ".." components, repeated slashes), stays inside the directory
 * it was accepted for; any action pressmark writes reads back exactly
 * (tabs, newlines, backslashes in values included). */
#include "fuzz/fuzz.h"
#include <string.h>
#include "pressure/undo_line.h"

/* Lexically resolve a path as path lookup would without symlinks. */
static void resolve(const char *a, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (const char *c = a; *c;) {
        while (*c == '/')
            c++;
        size_t n = strcspn(c, "/");
        if (n == 0)
            break;
        if (n == 1 && c[0] == '.') {
        } else if (n == 2 && c[0] == '.' && c[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else if (o + 1 + n < len) {
            out[o++] = '/';
            memcpy(out + o, c, n);
            o += n;
        }
        out[o] = '\0';
        c += n;
    }
    if (o == 0)
        snprintf(out, len, "/");
}

static bool inside(const char *r, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(r, dir, n) == 0 && (r[n] == '/' || r[n] == '\0');
}

static void check_accepted(enum undo_kind kind, const char *a)
{
    if (kind == UNDO_MODULE) {
        FUZZ_ASSERT(strcmp(a, "zram") == 0 || strcmp(a, "brd") == 0, "module '%s'", a);
        return;
    }
    if (kind == UNDO_ZRAM || kind == UNDO_PROCESS) {
        FUZZ_ASSERT(a[0] && strspn(a, "0123456789") == strlen(a), "%s '%s'", undo_kind_name(kind), a);
        FUZZ_ASSERT(kind != UNDO_PROCESS || a[0] != '0', "process '%s'", a);
        return;
    }
    char r[2 * UNDO_FIELD_MAX];
    resolve(a, r, sizeof r);
    FUZZ_ASSERT(a[0] == '/', "relative path '%s' accepted", a);
    switch (kind) {
    case UNDO_FILE:
        FUZZ_ASSERT(inside(r, "/proc/sys/vm") || inside(r, "/sys/kernel/mm/transparent_hugepage") ||
                    inside(r, "/sys/module/zswap/parameters"), "file '%s' resolves to %s", a, r);
        break;
    case UNDO_CGROUP:
    case UNDO_SUBTREE:
    case UNDO_RMDIR:
        FUZZ_ASSERT(inside(r, "/sys/fs/cgroup") || inside(r, "/var/lib/pressmark"), "%s '%s' resolves to %s",
                    undo_kind_name(kind), a, r);
        break;
    case UNDO_SWAPFILE:
        FUZZ_ASSERT(inside(r, "/var/lib/pressmark") && strcmp(r, "/var/lib/pressmark") != 0,
                    "swap file '%s' resolves to %s", a, r);
        break;
    case UNDO_SCRATCH: {
        const char *base = strrchr(r, '/');
        FUZZ_ASSERT(base && strncmp(base, "/pressmark-", 11) == 0, "scratch '%s' resolves to %s", a, r);
        break;
    }
    case UNDO_TREE: {
        const char *base = strrchr(r, '/');
        FUZZ_ASSERT(base && strncmp(base, "/pressmark-build-", 17) == 0 && base[17], "tree '%s' resolves to %s", a, r);
        break;
    }
    case UNDO_MOUNT: {
        const char *in = strstr(r, "/pressmark-build-");
        FUZZ_ASSERT(in && strchr(in + 17, '/'), "mount '%s' resolves to %s", a, r);
        break;
    }
    case UNDO_TRACEFS:
        FUZZ_ASSERT(strcmp(r, "/sys/kernel/tracing") == 0, "tracefs '%s' resolves to %s", a, r);
        break;
    case UNDO_TRACE_INSTANCE: {
        const char *base = strrchr(r, '/');
        FUZZ_ASSERT(base && strncmp(base, "/pressmark-", 11) == 0 && base[11] &&
                    (strncmp(r, "/sys/kernel/tracing/instances/", 30) == 0 ||
                     strncmp(r, "/sys/kernel/debug/tracing/instances/", 36) == 0) && !strchr(base + 1, '/') &&
                    (size_t)(base - r) + 0 >= 29,
                    "trace instance '%s' resolves to %s", a, r);
        break;
    }
    case UNDO_RAMDISK: {
        /* "ramdisk" directly inside a scratch directory, pressmark-X */
        const char *base = strrchr(r, '/');
        const char *up = base;
        while (up > r && up[-1] != '/')
            up--;
        FUZZ_ASSERT(base && strcmp(base, "/ramdisk") == 0 && up > r && strncmp(up, "pressmark-", 10) == 0 &&
                    base - up > 10, "ramdisk '%s' resolves to %s", a, r);
        break;
    }
    case UNDO_MODULE:
    case UNDO_ZRAM:
    case UNDO_PROCESS:
        break;
    }
}

static void parse_lines(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        enum undo_kind kind;
        char a[UNDO_FIELD_MAX], b[UNDO_FIELD_MAX];
        if (undo_line_parse(line, &kind, a, b) == 1)
            check_accepted(kind, a);
    }
    free(text);
}

static void round_trip(const uint8_t *data, size_t size)
{
    if (size < 1)
        return;
    char *f[2], *block;
    size_t n = fuzz_split(data + 1, size - 1, f, 2, &block);
    if (n == 0) {
        free(block);
        return;
    }
    enum undo_kind kind = (enum undo_kind)(data[0] % (UNDO_RAMDISK + 1));
    const char *a = f[0], *b = n > 1 ? f[1] : "";
    char line[4 * UNDO_FIELD_MAX + 32];
    if (undo_line_format(line, sizeof line, kind, a, b) < 0) {
        FUZZ_ASSERT(strlen(a) >= UNDO_FIELD_MAX || strlen(b) >= UNDO_FIELD_MAX, "could not write '%s'", a);
        free(block);
        return;
    }
    size_t len = strlen(line);
    FUZZ_ASSERT(len > 0 && line[len - 1] == '\n' && strchr(line, '\n') == line + len - 1, "one line: %s", line);
    line[len - 1] = '\0';
    enum undo_kind k2;
    char a2[UNDO_FIELD_MAX], b2[UNDO_FIELD_MAX];
    int rc = undo_line_parse(line, &k2, a2, b2);
    bool ours = undo_place_ours(kind, a);
    FUZZ_ASSERT(rc == (ours ? 1 : -1), "'%s' read back with %d", line, rc);
    if (rc == 1)
        FUZZ_ASSERT(k2 == kind && strcmp(a2, a) == 0 && strcmp(b2, b) == 0, "'%s' reads back as '%s' '%s'", line, a2, b2);
    free(block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse_lines(data, size);
    round_trip(data, size);
    return 0;
}
