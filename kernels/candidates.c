/* A bisection's Debian candidates: apt's kernel packages of a flavour,
 * their versions from apt-cache show, ordered by lib/debver. Names and
 * versions are apt's output: data, kept only when they have the form a
 * kernel package's name and a Debian version have. */
#include "kernels/candidates.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"
#include "lib/debver.h"
#include "lib/spawn.h"

#define APT_OUT (1u << 20)

void kernel_flavour(const char *package, char *buf, size_t len)
{
    buf[0] = '\0';
    if (strncmp(package, "linux-image-", 12) != 0 || !isdigit((unsigned char)package[12]))
        return;
    /* The release's parts after the version and ABI: the first part
     * that starts with a letter on (6.1.0-47-cloud-amd64). */
    for (const char *p = package + 12; (p = strchr(p, '-')); p++)
        if (isalpha((unsigned char)p[1])) {
            snprintf(buf, len, "%s", p + 1);
            return;
        }
}

bool kernel_package_name_ok(const char *name, const char *flavour)
{
    char fl[128];
    kernel_flavour(name, fl, sizeof fl);
    return flavour[0] && strcmp(fl, flavour) == 0 && strlen(name) < 128 &&
           strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789.+-") == strlen(name);
}

/* apt's names of kernel packages of the flavour (not -dbg, -unsigned). */
static int names_of(const char *flavour, char ***names, size_t *n, struct pm_err *err)
{
    char *out = malloc(APT_OUT);
    if (!out)
        return pm_errf(err, "out of memory");
    char *argv[] = { "apt-cache", "pkgnames", "--", "linux-image-", NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .err = PM_FD_NULL,
                           .missing_hint = "(Debian's apt is needed for --packages)" };
    if (pm_spawn_capture(&sp, out, APT_OUT, err) < 0) {
        free(out);
        return -1;
    }
    size_t cap = 0;
    *names = NULL;
    *n = 0;
    for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
        if (!kernel_package_name_ok(l, flavour))
            continue;
        if (pm_alloc_grow((void **)names, sizeof **names, *n + 1, &cap) < 0 || !((*names)[*n] = strdup(l))) {
            free(out);
            return pm_errf(err, "out of memory");
        }
        (*n)++;
    }
    free(out);
    return 0;
}

static int by_version(const void *a, const void *b)
{
    return debver_cmp(((const struct kernel_package *)a)->version, ((const struct kernel_package *)b)->version);
}

/* The Package/Version pairs of apt-cache show's stanzas, kept when
 * between from and to. */
static int keep_between(char *text, const char *from, const char *to, struct kernel_package **v, size_t *n,
                        struct pm_err *err)
{
    size_t cap = 0;
    struct kernel_package cur = { "", "" };
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        if (strncmp(l, "Package: ", 9) == 0)
            snprintf(cur.name, sizeof cur.name, "%s", l + 9);
        if (strncmp(l, "Version: ", 9) != 0)
            continue;
        snprintf(cur.version, sizeof cur.version, "%s", l + 9);
        if (!cur.name[0] || !debver_valid(cur.version) || debver_cmp(cur.version, from) <= 0 ||
            debver_cmp(cur.version, to) >= 0)
            continue;
        if (pm_alloc_grow((void **)v, sizeof **v, *n + 1, &cap) < 0)
            return pm_errf(err, "out of memory");
        (*v)[(*n)++] = cur;
        cur.name[0] = '\0';
    }
    return 0;
}

int kernel_packages_between(const char *flavour, const char *from, const char *to, struct kernel_package **v,
                            size_t *n, struct pm_err *err)
{
    *v = NULL;
    *n = 0;
    char **names = NULL;
    size_t nn = 0;
    int rc = names_of(flavour, &names, &nn, err);
    char **argv = rc == 0 ? calloc(nn + 5, sizeof *argv) : NULL;
    char *out = rc == 0 ? malloc(APT_OUT) : NULL;
    if (rc == 0 && (!argv || !out))
        rc = pm_errf(err, "out of memory");
    if (rc == 0 && nn) {
        size_t k = 0;
        argv[k++] = "apt-cache";
        argv[k++] = "show";
        argv[k++] = "--no-all-versions";
        argv[k++] = "--";
        for (size_t i = 0; i < nn; i++)
            argv[k++] = names[i];
        struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .err = PM_FD_NULL };
        rc = pm_spawn_capture(&sp, out, APT_OUT, err);
        if (rc == 0)
            rc = keep_between(out, from, to, v, n, err);
        if (rc == 0 && *n)      /* qsort of no array is undefined */
            qsort(*v, *n, sizeof **v, by_version);
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    free(argv);
    free(out);
    return rc;
}
