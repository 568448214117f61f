#include "pressure/vmknobs.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "pressure/undo.h"

#define THP_PATH "/sys/kernel/mm/transparent_hugepage/enabled"
#define ZSWAP_PATH "/sys/module/zswap/parameters/enabled"

static int add(struct vm_knobs *k, const char *name, const char *path, const char *value, struct pm_err *err)
{
    for (size_t i = 0; i < k->n; i++) {
        if (strcmp(k->v[i].path, path) == 0) {       /* a later setting wins */
            snprintf(k->v[i].value, sizeof k->v[i].value, "%s", value);
            return 0;
        }
    }
    if (k->n == PM_MAX_KNOBS)
        return pm_errf(err, "at most %d VM settings per run", PM_MAX_KNOBS);
    struct vm_knob *kn = &k->v[k->n++];
    snprintf(kn->name, sizeof kn->name, "%s", name);
    snprintf(kn->path, sizeof kn->path, "%s", path);
    snprintf(kn->value, sizeof kn->value, "%s", value);
    return 0;
}

int vm_knob_parse_sysctl(struct vm_knobs *k, const char *text, struct pm_err *err)
{
    const char *eq = strchr(text, '=');
    if (strncmp(text, "vm.", 3) != 0 || !eq || eq == text + 3 || !eq[1] || strlen(eq + 1) >= 128)
        return pm_errf(err, "'%s' is not a VM setting (accepted: vm.NAME=VALUE, NAME a file of /proc/sys/vm)", text);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - text - 3), text + 3);
    if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name))
        return pm_errf(err, "'%s' is not a VM setting (accepted: vm.NAME=VALUE, NAME a file of /proc/sys/vm)", text);
    char path[256];
    snprintf(path, sizeof path, "/proc/sys/vm/%s", name);
    if (access(path, F_OK) != 0)
        return pm_errf(err, "'%s': this kernel has no /proc/sys/vm/%s (accepted: vm.NAME=VALUE, NAME a file of /proc/sys/vm)",
                       text, name);
    char full[160];
    snprintf(full, sizeof full, "vm.%s", name);
    return add(k, full, path, eq + 1, err);
}

int vm_knob_parse_thp(struct vm_knobs *k, const char *text, struct pm_err *err)
{
    if (strcmp(text, "always") && strcmp(text, "madvise") && strcmp(text, "never"))
        return pm_errf(err, "'%s' is not a THP mode (accepted: always, madvise, never)", text);
    if (access(THP_PATH, F_OK) != 0)
        return pm_errf(err, "'%s': this kernel has no transparent hugepages (%s is missing)", text, THP_PATH);
    return add(k, "thp", THP_PATH, text, err);
}

int vm_knob_parse_zswap(struct vm_knobs *k, const char *text, struct pm_err *err)
{
    if (strcmp(text, "on") && strcmp(text, "off"))
        return pm_errf(err, "'%s' is not a zswap setting (accepted: on, off)", text);
    if (access(ZSWAP_PATH, F_OK) != 0)
        return pm_errf(err, "'%s': this kernel has no zswap (%s is missing)", text, ZSWAP_PATH);
    return add(k, "zswap", ZSWAP_PATH, strcmp(text, "on") == 0 ? "Y" : "N", err);
}

int vm_knobs_apply(const struct vm_knobs *k, struct kv_list *meta, struct pm_err *err)
{
    for (size_t i = 0; i < k->n; i++) {
        const struct vm_knob *kn = &k->v[i];
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
        kv_setf(meta, key, "%s (was %s)", now, old);
    }
    return 0;
}
