/* Each group's kernel, found before anything runs or boots, and what
 * every run of the group carries about it. */
#include "experiment/kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "experiment/backend.h"
#include "kernels/find.h"

static const char *kind_name(enum kernel_kind k)
{
    return k == KERNEL_RUNNING ? "running" : k == KERNEL_PACKAGE ? "package" : k == KERNEL_DEB ? "package file"
                                                                                               : "bzImage";
}

/* What every run of the group carries about its kernel. */
static void kernel_meta(struct kv_list *m, const struct group_kernel *k)
{
    pm_kv_set(m, "kernel.value", k->spec.value);
    pm_kv_set(m, "kernel.source", kind_name(k->spec.kind));
    pm_kv_set(m, "kernel.release", k->info.release);
    if (k->info.version[0])
        pm_kv_set(m, "kernel.version", k->info.version);
    if (k->info.package[0])
        pm_kv_set(m, "kernel.package", k->info.package);
    if (k->info.build_id[0])
        pm_kv_set(m, "kernel.build_id", k->info.build_id);
    pm_kv_set(m, "kernel.config", k->info.config_known ? "known" : "unknown");
    for (size_t i = 0; i < k->info.config.n; i++)
        pm_kv_set(m, k->info.config.v[i].key, k->info.config.v[i].value);
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
        /* What booting it elsewhere needs (root, tools), as the backend says. */
        if (!k->running && p->backend->check_kernel && p->backend->check_kernel(p, (int)g, o, &err) < 0) {
            exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
            return -1;
        }
        kernel_meta(&r->kernel_meta[g], k);
        if (k->running)
            pm_kv_set(&r->kernel_meta[g], "vm.accel", "none");
    }
    return 0;
}

void suite_kernels_free(struct runner *r)
{
    const struct suite_plan *p = r->p;
    for (size_t g = 0; r->kernels && g < p->ngroups; g++)
        kernel_info_free(&r->kernels[g].info);
    for (size_t g = 0; r->kernel_meta && g < p->ngroups; g++)
        pm_kv_free(&r->kernel_meta[g]);
    free(r->kernels);
    free(r->kernel_meta);
    r->kernels = NULL;
    r->kernel_meta = NULL;
}

