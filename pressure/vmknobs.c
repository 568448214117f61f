#include "pressure/vmknobs.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/units.h"
#include "pressure/undo.h"

#define THP_PATH "/sys/kernel/mm/transparent_hugepage/enabled"
#define ZSWAP_PATH "/sys/module/zswap/parameters/enabled"
#define LRU_GEN_PATH "/sys/kernel/mm/lru_gen/enabled"
#define LRU_GEN_TTL_PATH "/sys/kernel/mm/lru_gen/min_ttl_ms"

/* Why a knob cannot be set on this kernel: the same words whether the
 * option is refused when read or the run fails when its environment comes
 * up on the kernel a suite cell boots. */
static void lacking(const struct vm_knob *kn, char *buf, size_t len)
{
    snprintf(buf, len, "'%s': this kernel has no %s (accepted: %s)", kn->given, kn->path, kn->needs);
}

static int add(struct vm_knobs *k, const struct vm_knob *kn, bool check_kernel, struct pm_err *err)
{
    if (check_kernel && access(kn->path, F_OK) != 0) {
        char why[600];
        lacking(kn, why, sizeof why);
        return pm_errf(err, "%s", why);
    }
    for (size_t i = 0; i < k->n; i++) {
        if (strcmp(k->v[i].path, kn->path) == 0) {       /* a later setting wins */
            k->v[i] = *kn;
            return 0;
        }
    }
    if (k->n == PM_MAX_KNOBS)
        return pm_errf(err, "at most %d VM settings per run", PM_MAX_KNOBS);
    k->v[k->n++] = *kn;
    return 0;
}

static void fill(struct vm_knob *kn, const char *name, const char *path, const char *value, const char *option,
                 const char *given, const char *needs)
{
    memset(kn, 0, sizeof *kn);
    snprintf(kn->name, sizeof kn->name, "%s", name);
    snprintf(kn->path, sizeof kn->path, "%s", path);
    snprintf(kn->value, sizeof kn->value, "%s", value);
    snprintf(kn->option, sizeof kn->option, "%s", option);
    snprintf(kn->given, sizeof kn->given, "%s", given);
    kn->needs = needs;
}

int vmknobs_parse_sysctl(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err)
{
    static const char accepted[] = "vm.NAME=VALUE, NAME a file of /proc/sys/vm";
    const char *eq = strchr(text, '=');
    if (strncmp(text, "vm.", 3) != 0 || !eq || eq == text + 3 || !eq[1] || strlen(eq + 1) >= 128)
        return pm_errf(err, "'%s' is not a VM setting (accepted: %s)", text, accepted);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - text - 3), text + 3);
    if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name))
        return pm_errf(err, "'%s' is not a VM setting (accepted: %s)", text, accepted);
    char path[256], full[160];
    snprintf(path, sizeof path, "/proc/sys/vm/%s", name);
    snprintf(full, sizeof full, "vm.%s", name);
    struct vm_knob kn;
    fill(&kn, full, path, eq + 1, "sysctl", text, accepted);
    return add(k, &kn, check_kernel, err);
}

int vmknobs_parse_thp(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err)
{
    if (strcmp(text, "always") && strcmp(text, "madvise") && strcmp(text, "never"))
        return pm_errf(err, "'%s' is not a THP mode (accepted: always, madvise, never)", text);
    struct vm_knob kn;
    fill(&kn, "thp", THP_PATH, text, "thp", text, "a kernel built with CONFIG_TRANSPARENT_HUGEPAGE");
    return add(k, &kn, check_kernel, err);
}

int vmknobs_parse_zswap(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err)
{
    if (strcmp(text, "on") && strcmp(text, "off"))
        return pm_errf(err, "'%s' is not a zswap setting (accepted: on, off)", text);
    struct vm_knob kn;
    fill(&kn, "zswap", ZSWAP_PATH, strcmp(text, "on") == 0 ? "Y" : "N", "zswap", text, "a kernel built with CONFIG_ZSWAP");
    return add(k, &kn, check_kernel, err);
}

/* The kernel reads the mask with base 0 (kstrtouint), so "0x0007" as it
 * shows the mask is also what writes it back; y and n switch every
 * component (Documentation/admin-guide/mm/multigen_lru.rst). */
int vmknobs_parse_lru_gen(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err)
{
    const char *value = strcmp(text, "on") == 0 ? "y" : strcmp(text, "off") == 0 ? "n" : text;
    size_t digits = strncmp(text, "0x", 2) == 0 ? strspn(text + 2, "0123456789abcdefABCDEF") : 0;
    if (value == text && (digits == 0 || digits > 4 || text[2 + digits]))
        return pm_errf(err, "'%s' is not an MGLRU setting (accepted: on, off, or a mask of its components from "
                       "0x0000 to 0xffff, e.g. 0x0007 for all, 0x0001 for the main switch alone)", text);
    struct vm_knob kn;
    fill(&kn, "lru_gen.enabled", LRU_GEN_PATH, value, "lru-gen", text, "a kernel built with CONFIG_LRU_GEN");
    return add(k, &kn, check_kernel, err);
}

int vmknobs_parse_lru_gen_min_ttl(struct vm_knobs *k, const char *text, bool check_kernel, struct pm_err *err)
{
    uint64_t ms;
    if (pm_parse_uint(text, 0, UINT32_MAX, &ms) < 0)
        return pm_errf(err, "'%s' is not a time in milliseconds (accepted: a whole number from 0 to %u, e.g. 1000; "
                       "0 switches the thrashing prevention off)", text, UINT32_MAX);
    char value[32];
    snprintf(value, sizeof value, "%llu", (unsigned long long)ms);
    struct vm_knob kn;
    fill(&kn, "lru_gen.min_ttl_ms", LRU_GEN_TTL_PATH, value, "lru-gen-min-ttl", text,
         "a kernel built with CONFIG_LRU_GEN");
    return add(k, &kn, check_kernel, err);
}

int vmknobs_apply(const struct vm_knobs *k, struct kv_list *meta, struct pm_err *err)
{
    for (size_t i = 0; i < k->n; i++) {
        const struct vm_knob *kn = &k->v[i];
        /* A suite cell's kernel is judged here, where it runs. */
        if (access(kn->path, F_OK) != 0) {
            char why[600];
            lacking(kn, why, sizeof why);
            return pm_errf(err, "--%s: %s", kn->option, why);
        }
        char old[256];
        int rc = strcmp(kn->name, "thp") == 0 ? pm_read_choice(kn->path, old, sizeof old)
                                              : pm_read_file(kn->path, old, sizeof old);
        if (rc < 0)
            return pm_errf(err, "reading %s: %s", kn->path, strerror(errno));
        /* Multi-value sysctls read back tab-separated and are written back
         * the same way; the kernel accepts either blank. */
        if (undo_push(UNDO_FILE, kn->path, old, err) < 0)
            return -1;
        if (pm_write_file(kn->path, kn->value, err) < 0)
            return -1;
        char now[256];
        if ((strcmp(kn->name, "thp") == 0 ? pm_read_choice(kn->path, now, sizeof now)
                                          : pm_read_file(kn->path, now, sizeof now)) < 0)
            snprintf(now, sizeof now, "%s", kn->value);
        char key[160];
        snprintf(key, sizeof key, "set.%s", kn->name);
        pm_kv_setf(meta, key, "%s (was %s)", now, old);
    }
    return 0;
}
