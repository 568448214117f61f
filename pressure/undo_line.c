#include "pressure/undo_line.h"
#include <stdio.h>
#include <string.h>
#include "pressure/swap.h"

static const char *const kind_names[] = { "file", "cgroup", "swapfile", "zram", "process", "rmdir", "subtree", "scratch",
                                           "mount", "tree", "tracefs", "trace-instance", "module", "ramdisk" };
#define NKINDS (sizeof kind_names / sizeof kind_names[0])

const char *undo_kind_name(enum undo_kind kind)
{
    return (size_t)kind < NKINDS ? kind_names[kind] : "?";
}

/* Appends s escaped at buf[*o]; false when it does not fit. */
static bool put_field(char *buf, size_t len, size_t *o, const char *s)
{
    for (; *s; s++) {
        char esc = *s == '\t' ? 't' : *s == '\n' ? 'n' : *s == '\\' ? '\\' : 0;
        size_t need = esc ? 2 : 1;
        if (*o + need >= len)
            return false;
        if (esc) {
            buf[(*o)++] = '\\';
            buf[(*o)++] = esc;
        } else {
            buf[(*o)++] = *s;
        }
    }
    return true;
}

int undo_line_format(char *buf, size_t len, enum undo_kind kind, const char *a, const char *b)
{
    if ((size_t)kind >= NKINDS || strlen(a) >= UNDO_FIELD_MAX || strlen(b) >= UNDO_FIELD_MAX)
        return -1;
    int n = snprintf(buf, len, "%s\t", kind_names[kind]);
    if (n < 0 || (size_t)n >= len)
        return -1;
    size_t o = (size_t)n;
    if (!put_field(buf, len, &o, a) || o + 1 >= len)
        return -1;
    buf[o++] = '\t';
    if (!put_field(buf, len, &o, b) || o + 1 >= len)
        return -1;
    buf[o++] = '\n';
    buf[o] = '\0';
    return (int)o;
}

/* Unescapes the field that starts at s and ends at a tab or the end of
 * the line; *end is set past it. False when it is longer than a field. */
static bool get_field(const char *s, const char **end, char out[UNDO_FIELD_MAX])
{
    size_t o = 0;
    for (; *s && *s != '\t'; s++) {
        char c = *s;
        if (c == '\\' && s[1] && s[1] != '\t') {
            s++;
            c = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
        }
        if (o + 1 >= UNDO_FIELD_MAX)
            return false;
        out[o++] = c;
    }
    out[o] = '\0';
    *end = s;
    return true;
}

int undo_line_parse(const char *line, enum undo_kind *kind, char a[UNDO_FIELD_MAX], char b[UNDO_FIELD_MAX])
{
    size_t klen = strcspn(line, "\t");
    if (line[klen] != '\t')
        return 0;
    size_t k = 0;
    while (k < NKINDS && !(strlen(kind_names[k]) == klen && strncmp(line, kind_names[k], klen) == 0))
        k++;
    if (k == NKINDS)
        return 0;
    const char *p = line + klen + 1;
    if (!get_field(p, &p, a))
        return 0;
    b[0] = '\0';
    if (*p == '\t' && !get_field(p + 1, &p, b))
        return 0;
    if (*p)                     /* a third tab: not a line pressmark wrote */
        return 0;
    *kind = (enum undo_kind)k;
    return undo_place_ours(*kind, a) ? 1 : -1;
}

/* Absolute, each component non-empty and neither "." nor "..": the form
 * pressmark writes, in which a prefix test is a containment test. */
static bool clean_path(const char *a)
{
    if (a[0] != '/')
        return false;
    for (const char *c = a; *c;) {
        c++;                                /* the slash */
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += n;
    }
    return true;
}

static bool under(const char *a, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(a, dir, n) == 0 && a[n] == '/' && a[n + 1];
}

static bool all_digits(const char *a)
{
    return a[0] && strspn(a, "0123456789") == strlen(a) && strlen(a) < 10;
}

/* Some component but the last is a build directory, pressmark-build-X. */
static bool inside_build(const char *a)
{
    for (const char *c = a; (c = strstr(c, "/pressmark-build-"));) {
        c += 17;
        size_t n = strcspn(c, "/");
        if (n > 0 && c[n] == '/')
            return true;
    }
    return false;
}

/* The component before base (a's last) is a scratch directory's name,
 * pressmark-X. */
static bool scratch_parent(const char *a, const char *base)
{
    const char *p = base;
    while (p > a && p[-1] != '/')
        p--;
    return p > a && (size_t)(base - p) > 10 && strncmp(p, "pressmark-", 10) == 0;
}

bool undo_place_ours(enum undo_kind kind, const char *a)
{
    if (kind == UNDO_ZRAM)
        return all_digits(a);
    if (kind == UNDO_PROCESS)           /* kill(0) would be the whole process group */
        return all_digits(a) && a[0] != '0';
    if (kind == UNDO_MODULE)            /* the modules pressmark loads */
        return strcmp(a, "zram") == 0 || strcmp(a, "brd") == 0;
    if (!clean_path(a))
        return false;
    const char *base = strrchr(a, '/');
    switch (kind) {
    case UNDO_FILE:
        return under(a, "/proc/sys/vm") || strcmp(a, "/sys/kernel/mm/transparent_hugepage/enabled") == 0 ||
               strcmp(a, "/sys/module/zswap/parameters/enabled") == 0 ||
               strcmp(a, "/sys/kernel/mm/lru_gen/enabled") == 0 || strcmp(a, "/sys/kernel/mm/lru_gen/min_ttl_ms") == 0;
    case UNDO_CGROUP:
        return under(a, "/sys/fs/cgroup") && strstr(a, "/pressmark");
    case UNDO_SUBTREE:
        return strcmp(a, "/sys/fs/cgroup") == 0 || under(a, "/sys/fs/cgroup");
    case UNDO_SWAPFILE:
        return under(a, PM_SWAP_PARENT);
    case UNDO_RMDIR:            /* the swap directories, and the cgroup parent "pressmark" */
        return strcmp(a, PM_SWAP_PARENT) == 0 || strcmp(a, PM_SWAP_DIR) == 0 ||
               (under(a, "/sys/fs/cgroup") && strcmp(base, "/pressmark") == 0);
    case UNDO_SCRATCH:
        return strncmp(base, "/pressmark-", 11) == 0 && base[11];
    case UNDO_TREE:             /* removed whole: only a build directory itself */
        return strncmp(base, "/pressmark-build-", 17) == 0 && base[17];
    case UNDO_MOUNT:            /* unmounted: only inside a build directory */
        return inside_build(a);
    case UNDO_RAMDISK:          /* only "ramdisk" in a scratch directory of pressmark's */
        return strcmp(base, "/ramdisk") == 0 && base > a && scratch_parent(a, base);
    case UNDO_TRACEFS:          /* only where pressmark mounts it */
        return strcmp(a, "/sys/kernel/tracing") == 0;
    case UNDO_TRACE_INSTANCE:   /* an instance of pressmark's, in either place tracefs may be */
        return ((size_t)(base - a) == strlen("/sys/kernel/tracing/instances") && under(a, "/sys/kernel/tracing/instances")) ||
               ((size_t)(base - a) == strlen("/sys/kernel/debug/tracing/instances") &&
                under(a, "/sys/kernel/debug/tracing/instances")) ? strncmp(base, "/pressmark-", 11) == 0 && base[11] : false;
    case UNDO_ZRAM:
    case UNDO_PROCESS:
    case UNDO_MODULE:
        break;
    }
    return false;
}

bool undo_module_load_is(const char *ident, unsigned long long ino)
{
    if (!ident[0])
        return true;
    const char *n = ident + 4;
    if (strncmp(ident, "ino=", 4) != 0 || !n[0] || strspn(n, "0123456789") != strlen(n) || strlen(n) > 20)
        return false;
    char have[32];
    snprintf(have, sizeof have, "%llu", ino);
    return strcmp(n, have) == 0;
}
