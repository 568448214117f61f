#include "kernels/kconfig.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Prefixes of the options that change what a memory-pressure run
 * measures. An option matches when its name is the prefix or continues
 * it with '_' (CONFIG_ZSWAP matches CONFIG_ZSWAP_DEFAULT_ON, not
 * CONFIG_ZSWAPX). */
static const char *const mm_prefixes[] = {
    "CONFIG_LRU_GEN", "CONFIG_SWAP", "CONFIG_ZSWAP", "CONFIG_ZRAM", "CONFIG_ZSMALLOC", "CONFIG_ZBUD",
    "CONFIG_Z3FOLD", "CONFIG_ZPOOL", "CONFIG_MEMCG", "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_COMPACTION",
    "CONFIG_MIGRATION", "CONFIG_KSM", "CONFIG_PSI", "CONFIG_NUMA", "CONFIG_PREEMPT", "CONFIG_HZ", "CONFIG_SLUB",
    "CONFIG_SLAB", "CONFIG_DAMON", "CONFIG_PER_VMA_LOCK", "CONFIG_HUGETLBFS", "CONFIG_CMA", "CONFIG_PAGE_IDLE",
    "CONFIG_USERFAULTFD", "CONFIG_SHMEM", "CONFIG_HIGHMEM", "CONFIG_FRONTSWAP", "CONFIG_CLEANCACHE",
    "CONFIG_THP_SWAP", "CONFIG_READ_ONLY_THP_FOR_FS", "CONFIG_DEFERRED_STRUCT_PAGE_INIT", "CONFIG_MEMORY_BALLOON",
    "CONFIG_BALLOON_COMPACTION", "CONFIG_PAGE_REPORTING", "CONFIG_ANON_VMA_NAME", "CONFIG_LRU_CACHE",
    "CONFIG_WORKINGSET", "CONFIG_MGLRU", NULL
};

/* Is CONFIG_NAME (with its prefix) one of the memory-management options? */
static bool kconfig_is_mm(const char *name)
{
    for (const char *const *p = mm_prefixes; *p; p++) {
        size_t n = strlen(*p);
        if (strncmp(name, *p, n) == 0 && (name[n] == '\0' || name[n] == '_'))
            return true;
    }
    return false;
}

static void take_line(const char *line, size_t len, struct kv_list *out, int *found)
{
    char buf[512];
    if (len >= sizeof buf)
        return;
    memcpy(buf, line, len);
    buf[len] = '\0';
    char *name, *value;
    if (strncmp(buf, "# CONFIG_", 9) == 0) {
        name = buf + 2;
        char *sp = strstr(name, " is not set");
        if (!sp || sp[11])
            return;
        *sp = '\0';
        value = "n";
    } else if (strncmp(buf, "CONFIG_", 7) == 0) {
        char *eq = strchr(buf, '=');
        if (!eq)
            return;
        *eq = '\0';
        name = buf;
        value = eq + 1;
        /* Strings are stored without their quotes: "lz4" reads as lz4. */
        size_t vl = strlen(value);
        if (vl >= 2 && value[0] == '"' && value[vl - 1] == '"') {
            value[vl - 1] = '\0';
            value++;
        }
    } else {
        return;
    }
    if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name) || !kconfig_is_mm(name))
        return;
    char key[300];
    snprintf(key, sizeof key, "kconfig.%s", name);
    if (pm_kv_set(out, key, value) == 0)
        (*found)++;
}

int kconfig_mm(const char *text, struct kv_list *out)
{
    int found = 0;
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        take_line(l, n, out, &found);
        l += n + (l[n] ? 1 : 0);
    }
    return found;
}

int kconfig_mm_file(const char *path, struct kv_list *out)
{
    /* gzopen reads plain files too, so /proc/config.gz and a .config take
     * the same path. */
    gzFile g = gzopen(path, "rb");
    if (!g)
        return -1;
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    int n;
    while (text && (n = gzread(g, text + len, (unsigned)(cap - len - 1))) > 0) {
        len += (size_t)n;
        if (cap - len < 4096) {
            char *t = realloc(text, cap * 2);
            if (!t)
                free(text);
            text = t;
            cap *= 2;
        }
    }
    gzclose(g);
    if (!text) {
        errno = ENOMEM;
        return -1;
    }
    text[len] = '\0';
    int found = kconfig_mm(text, out);
    free(text);
    return found;
}
