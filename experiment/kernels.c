/* Each group's kernel, found before anything runs or boots, and what
 * every run of the group carries about it. */
#include "experiment/kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "kernels/find.h"
#include "lib/fileio.h"

static const char *kind_name(enum kernel_kind k)
{
    return k == KERNEL_RUNNING ? "running" : k == KERNEL_PACKAGE ? "package" : k == KERNEL_DEB ? "package file"
                                                                                               : "bzImage";
}

/* What every run of the group carries about its kernel. */
static void kernel_meta(struct kv_list *m, const struct group_kernel *k)
{
    kv_set(m, "kernel.value", k->spec.value);
    kv_set(m, "kernel.source", kind_name(k->spec.kind));
    kv_set(m, "kernel.release", k->info.release);
    if (k->info.version[0])
        kv_set(m, "kernel.version", k->info.version);
    if (k->info.package[0])
        kv_set(m, "kernel.package", k->info.package);
    if (k->info.build_id[0])
        kv_set(m, "kernel.build_id", k->info.build_id);
    kv_set(m, "kernel.config", k->info.config_known ? "known" : "unknown");
    for (size_t i = 0; i < k->info.config.n; i++)
        kv_set(m, k->info.config.v[i].key, k->info.config.v[i].value);
}

int suite_kernels_check(struct runner *r, const struct suite_run_opts *o)
{
    const struct suite_plan *p = r->p;
    r->kernels = calloc(p->ngroups, sizeof *r->kernels);
    r->kernel_meta = calloc(p->ngroups, sizeof *r->kernel_meta);
    if (!r->kernels || !r->kernel_meta) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: out of memory\n");
        return -1;
    }
    struct utsname now;
    if (uname(&now) < 0)
        now.release[0] = '\0';
    for (size_t g = 0; g < p->ngroups; g++) {
        const struct suite_group *sg = &p->groups[g];
        struct group_kernel *k = &r->kernels[g];
        struct pm_err err;
        if (kernel_spec_parse(sg->kernel, &k->spec, &err) < 0) {
            exp_say(r->ev, EXP_LOG, "pressmark suite run: %s:%d: %s\n", p->file.path, sg->line, err.msg);
            return -1;
        }
        k->running = kernel_spec_is_running(&k->spec);
        int rc = k->running ? kernel_running_info(&k->info, &err) : kernel_find(&k->spec, &k->info, &err);
        if (rc < 0) {
            exp_say(r->ev, EXP_LOG, "pressmark suite run: %s:%d: %s\n", p->file.path, sg->line, err.msg);
            return -1;
        }
        /* A metapackage or package file may stand for the kernel booted now. */
        if (!k->running && strcmp(k->info.release, now.release) == 0) {
            kernel_info_free(&k->info);
            k->running = kernel_running_info(&k->info, &err) == 0;
        }
        if (!k->running && (p->backend == BACKEND_VM || p->backend == BACKEND_LAVA)) {
            const char *how = p->backend == BACKEND_VM ? "booting it in a VM" : "its LAVA job's image";
            if (geteuid() != 0) {
                exp_say(r->ev, EXP_LOG, "pressmark suite run: %s:%d: kernel = %s: %s needs root (it builds the guest's "
                        "image with debootstrap and mounts; accepted: run as root, or backend = host)\n",
                        p->file.path, sg->line, sg->kernel, how);
                return -1;
            }
            static const char *const tools[][2] = { { "qemu-system-x86_64", "qemu-system-x86" },
                                                    { "qemu-img", "qemu-utils" }, { "debootstrap", "debootstrap" },
                                                    { "mkfs.ext4", "e2fsprogs" } };
            /* A lab's dispatcher runs QEMU; here only the image is made. */
            for (size_t t = p->backend == BACKEND_LAVA ? 1 : 0; t < sizeof tools / sizeof tools[0]; t++)
                if (!pm_in_path(tools[t][0])) {
                    exp_say(r->ev, EXP_LOG, "pressmark suite run: %s:%d: kernel = %s: %s needs %s (accepted: apt-get "
                            "install %s)\n", p->file.path, sg->line, sg->kernel, how, tools[t][0], tools[t][1]);
                    return -1;
                }
        }
        if (!k->running && p->backend == BACKEND_HOST && o->reboot && !o->dry_run && !pm_in_path("kexec")) {
            exp_say(r->ev, EXP_LOG, "pressmark suite run: --reboot kexec needs kexec (accepted: apt-get install kexec-tools)\n");
            return -1;
        }
        kernel_meta(&r->kernel_meta[g], k);
        if (k->running)
            kv_set(&r->kernel_meta[g], "vm.accel", "none");
    }
    return 0;
}

void suite_kernels_free(struct runner *r)
{
    const struct suite_plan *p = r->p;
    for (size_t g = 0; r->kernels && g < p->ngroups; g++)
        kernel_info_free(&r->kernels[g].info);
    for (size_t g = 0; r->kernel_meta && g < p->ngroups; g++)
        kv_free(&r->kernel_meta[g]);
    free(r->kernels);
    free(r->kernel_meta);
    r->kernels = NULL;
    r->kernel_meta = NULL;
}

