/* backend = vm, the default: each kernel that is not the one booted now
 * boots in a QEMU virtual machine of its own, which runs its group's
 * cells; their runs come back into the suite. Its key: vm-accel. */
#include "experiment/backend_vm.h"
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "experiment/run_opts.h"
#include "experiment/backend.h"
#include "experiment/guest.h"
#include "experiment/runner.h"
#include "kernels/find.h"
#include "kernels/image.h"
#include "kernels/vm.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "store/runs.h"
#include "store/suites.h"

/* KVM that fails at the guest's first instructions (nested
 * virtualisation on some hosts) is remembered, so later boots go to TCG
 * at once instead of failing first. */
static void kvm_flag(char *buf, size_t len)
{
    char cache[PATH_MAX];
    struct pm_err e;
    if (kernel_cache_dir(cache, sizeof cache, &e) < 0)
        buf[0] = '\0';
    else
        snprintf(buf, len, "%s/kvm-failed", cache);
}

static const char *const accel_words[] = { "auto", "kvm", "tcg", NULL };

static int set_accel(void *state, const char *v, struct pm_err *err)
{
    struct exp_vm_keys *k = state;
    for (unsigned i = 0; accel_words[i]; i++)
        if (strcmp(v, accel_words[i]) == 0) {
            k->accel = i;
            return 0;
        }
    return pm_errf(err, "not an accelerator (accepted: auto, kvm, tcg)");
}

static void show_accel(const void *state, char *buf, size_t len)
{
    const struct exp_vm_keys *k = state;
    snprintf(buf, len, "%s", accel_words[k->accel]);
}

const struct opt exp_vm_options[] = {
    { .name = "vm-accel", .type = OPT_CALLBACK, .offset = offsetof(struct exp_vm_keys, accel),
      .metavar = "auto|kvm|tcg", .def = "auto", .set = set_accel, .show = show_accel,
      .help = "how the VMs run their guests: kvm, tcg (emulation), or auto (KVM where it works)" },
    { .type = OPT_END },
};

static enum vm_accel choose_accel(const struct suite_plan *p)
{
    const struct exp_vm_keys *k = p->backend_state;
    if (k->accel == EXP_VM_ACCEL_TCG)
        return VM_TCG;
    if (k->accel == EXP_VM_ACCEL_KVM)
        return VM_KVM;
    char flag[PATH_MAX + 16];
    kvm_flag(flag, sizeof flag);
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return VM_TCG;
    close(fd);
    return flag[0] && pm_path_exists(flag) ? VM_TCG : VM_KVM;
}

/* The image of the group's kernel, and what its runs carry of it. -1
 * when it cannot be made: the group's cells are then marked failed (rc
 * says how that went). */
static int prepare_image(struct runner *r, int group, const struct suite_run_opts *o, struct vm_image *img,
                         FILE *say, int *worst, int *rc)
{
    const struct suite_group *sg = &r->p->groups[group];
    struct pm_err err;
    (void)o;
    char apps[GUEST_APPS_MAX + 1];
    exp_guest_apps(r->p, group, apps, sizeof apps);
    if (image_prepare(&r->kernels[group].spec, apps, img, say, &err) < 0) {
        char reason[1400];
        snprintf(reason, sizeof reason, "kernel %s: its VM image could not be made: %s", sg->kernel, err.msg);
        char qr[1500];
        quote_terminal(reason, qr, sizeof qr);
        exp_say(r->ev, EXP_LOG, "pressmark: %s; its cells are marked failed\n", qr);
        image_free(img);
        if (*worst < 1)
            *worst = 1;
        *rc = exp_mark_failed(r, group, reason);
        return -1;
    }
    exp_image_meta(r, group, img);
    return 0;
}

/* Boot the group's VM once with accel; the runs it made are merged in.
 * Returns 0 (res says how the boot ended), or 2 for a harness error. */
static int boot_once(struct runner *r, int group, const struct suite_run_opts *o, const struct vm_image *img,
                     enum vm_accel accel, FILE *say, char *dir, size_t dirlen, struct vm_result *res)
{
    const struct suite_plan *p = r->p;
    const struct suite_group *sg = &p->groups[group];
    struct kv_list *m = &r->kernel_meta[group];
    struct pm_err err;
    char mem[32], q[300];
    pm_fmt_size(mem, sizeof mem, sg->vm_memory);
    quote_terminal(sg->kernel, q, sizeof q);
    pm_kv_set(m, "vm.accel", accel == VM_KVM ? "kvm" : "tcg");
    pm_kv_set(m, "emulated", accel == VM_TCG ? "yes" : "no");
    if (exp_boot_dir(r, group, "boot", dir, dirlen, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    char *mt = exp_meta_text(m);
    /* The guest's arguments: numbers and pressmark's own words only. */
    char args[512], file[160];
    snprintf(file, sizeof file, "%s.ini", p->name);
    snprintf(args, sizeof args, "--guest-group %d --guest-suite %s --guest-seed %llu --guest-meta job-meta %s\n",
             group, r->suite.uuid, (unsigned long long)r->suite.seed, file);
    if (!o->quiet)
        exp_say(r->ev, EXP_LOG, "pressmark: kernel %s (%s): booting in a VM (%s, %s RAM, %u CPUs); logs in %s\n", q,
                img->info.release, accel == VM_KVM ? "KVM" : "TCG emulation", mem, sg->vm_cpus, dir);
    struct vm_boot b = { .img = img, .memory = sg->vm_memory, .cpus = sg->vm_cpus, .append = sg->vm_append,
                         .accel = accel, .timeout_s = suite_group_timeout(p, sg), .exe = r->rs.exe,
                         .suite_text = p->file.canonical, .suite_file = file, .args = args,
                         .meta = mt ? mt : "", .log_dir = dir, .say = say };
    int brc = vm_boot(&b, res, &err);
    free(mt);
    if (brc < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: kernel %s: %s\n", q, err.msg);
        return 2;
    }
    return 0;
}

/* After a boot that ended as it should: bring the guest's runs in and
 * check the group is done. Returns the group's status (0, or 2). */
static int take_runs(struct runner *r, int group, const struct suite_run_opts *o, const char *dir,
                     const struct vm_result *res, int *worst)
{
    const struct suite_group *sg = &r->p->groups[group];
    struct pm_err err;
    char reason[1500], q[300];
    quote_terminal(sg->kernel, q, sizeof q);
    int adopted = 0, refused = 0;
    if (exp_merge_guest(r, group, dir, &adopted, &refused, &err) < 0) {
        snprintf(reason, sizeof reason, "kernel %s: the guest's results could not be merged: %s", sg->kernel,
                 err.msg);
        *worst = *worst < 1 ? 1 : *worst;
        return exp_mark_failed(r, group, reason);
    }
    if (!o->quiet)
        exp_say(r->ev, EXP_LOG, "pressmark: kernel %s: %d runs from the VM (up after %.1f s, first run at %.1f s, %.1f s "
                "in all)\n", q, adopted, res->up_s, res->first_run_s, res->wall_s);
    if (refused)
        exp_say(r->ev, EXP_LOG, "pressmark: kernel %s: %d run%s of the guest's refused (see %s/host.log)\n", q, refused,
                refused == 1 ? "" : "s", dir);
    if (exp_group_merged(r, group, worst) != 0)
        return 2;
    if (!runner_group_done(r, group)) {
        snprintf(reason, sizeof reason, "kernel %s: the guest's suite ended with runs left (its exit status %d; "
                 "its log: %s/guest.log)", sg->kernel, res->guest_status, dir);
        *worst = *worst < 1 ? 1 : *worst;
        return exp_mark_failed(r, group, reason);
    }
    return 0;
}

/* Boot the group's kernel in a VM, run its cells there, bring the runs
 * in: KVM first where it may work, TCG when KVM cannot run guests here. */
static int vm_run_group(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst)
{
    const struct suite_group *sg = &r->p->groups[group];
    FILE *say = o->quiet ? NULL : exp_say_file(r->ev);
    struct vm_image img;
    int rc = 0;
    if (prepare_image(r, group, o, &img, say, worst, &rc) < 0) {
        if (say)
            fclose(say);
        return rc;
    }
    enum vm_accel accel = choose_accel(r->p);
    for (int attempt = 0; attempt < 2; attempt++) {
        char dir[PATH_MAX + 64];
        struct vm_result res;
        if ((rc = boot_once(r, group, o, &img, accel, say, dir, sizeof dir, &res)) != 0)
            break;
        if (res.how == VM_KVM_FAILED && attempt == 0) {
            char flag[PATH_MAX + 16];
            kvm_flag(flag, sizeof flag);
            if (flag[0]) {
                FILE *f = pm_create_file(flag);
                if (f)
                    fclose(f);
            }
            exp_say(r->ev, EXP_LOG, "pressmark: KVM cannot run guests here (%s); booting with TCG emulation instead, and "
                    "from now on (remove %s to try KVM again)\n", res.reason, flag);
            accel = VM_TCG;
            continue;
        }
        if (res.how == VM_INTERRUPTED) {
            *abort_sig = res.signal;
            break;
        }
        if (res.how != VM_DONE) {
            char reason[1500];
            snprintf(reason, sizeof reason, "kernel %s: %s (console: %s/console.log)", sg->kernel, res.reason, dir);
            if (!o->quiet) {
                char qr[1600];
                quote_terminal(reason, qr, sizeof qr);
                exp_say(r->ev, EXP_LOG, "pressmark: %s\n", qr);
            }
            rc = exp_mark_failed(r, group, reason);
            if (*worst < 1)
                *worst = 1;
            break;
        }
        rc = take_runs(r, group, o, dir, &res, worst);
        break;
    }
    image_free(&img);
    if (say)
        fclose(say);
    return rc;
}

static void vm_where(const struct suite_plan *p, const struct suite_group *g, char *buf, size_t len)
{
    (void)p;
    char mem[32];
    pm_fmt_size(mem, sizeof mem, g->vm_memory);
    snprintf(buf, len, "boots in a VM (%s, %u CPUs%s)", mem, g->vm_cpus,
             g->vm_append[0] ? ", more kernel parameters" : "");
}

static void vm_describe(const struct suite_plan *p, char *buf, size_t len)
{
    const struct exp_vm_keys *k = p->backend_state;
    snprintf(buf, len, "in a VM per kernel (vm-accel = %s)", accel_words[k->accel]);
}

static int vm_bisects(const struct suite_plan *p, struct pm_err *err)
{
    if (geteuid() != 0)
        return pm_errf(err, "%s: backend = vm: booting kernels in VMs needs root (accepted: run as root, or backend = "
                       "host)", p->file.path);
    return 0;
}

static int vm_check_kernel(const struct suite_plan *p, int group, const struct suite_run_opts *o, struct pm_err *err)
{
    (void)o;
    return exp_image_check(p, group, "booting it in a VM", true, err);
}

/* A group whose kernel is not the one running: its VM. */
const struct exp_backend exp_backend_vm = {
    .name = "vm", .summary = "a virtual machine per kernel",
    .options = exp_vm_options, .state_size = sizeof(struct exp_vm_keys),
    .where = vm_where, .describe = vm_describe, .bisects = vm_bisects, .check_kernel = vm_check_kernel,
    .run_group = vm_run_group,
};
