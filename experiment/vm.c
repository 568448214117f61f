/* A suite's kernels: each group of cells runs under its kernel, here
 * when it is the kernel booted now, else in a QEMU virtual machine
 * (backend vm) or after booting it on this machine (backend host). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "experiment/run_opts.h"
#include "experiment/backend.h"
#include "experiment/runner.h"
#include "kernels/find.h"
#include "kernels/image.h"
#include "kernels/vm.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "store/guest_runs.h"
#include "store/merge.h"
#include "store/runs.h"
#include "store/suites.h"

/* Runs the group's cells still need get a failed run each, with reason,
 * so the suite goes on and status and the report say why. */
static int mark_failed(struct runner *r, int group, const char *reason)
{
    const struct suite_plan *p = r->p;
    struct pm_err err;
    if (runner_reload(r, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    int64_t seq = r->nslots ? r->slots[r->nslots - 1].seq + 1 : 0;
    int round = 0;
    for (size_t i = 0; i < r->nslots; i++)
        if (r->slots[i].round > round && p->cells[r->slots[i].cell].group == group)
            round = r->slots[i].round;
    for (size_t c = 0; c < p->ncells; c++) {
        const struct suite_cell *cell = &p->cells[c];
        const struct cell_state *s = &r->cs[c];
        if (cell->group != group || !suite_cell_wants_run(p, s))
            continue;
        int n = (unsigned)s->finished < p->runs_min ? (int)p->runs_min - s->finished : 1;
        for (int k = 0; k < n; k++, seq++) {
            struct kv_list meta = { 0 };
            runner_cell_meta(r, (int)c, &meta);
            kv_setf(&meta, "suite.round", "%d", round + k + 1);
            kv_setf(&meta, "suite.seq", "%lld", (long long)seq);
            struct metric_set none = { 0 };
            struct run_row row = { .label = cell->label, .workload = cell->wl->name, .params = cell->params };
            int rc = store_run_begin(&r->rs.db, r->rs.machine_id, &row, &err);
            int64_t run_id = row.id;
            struct run_record rec = { .status = "failed", .reason = reason, .metrics = &none, .meta = &meta };
            if (rc == 0)
                rc = store_run_end(&r->rs.db, run_id, &rec, &err);
            if (rc == 0)
                rc = suites_add_slot(&r->rs.db, r->suite.id, seq, round + k + 1, (int)c, &err);
            if (rc == 0)
                rc = suites_link_run(&r->rs.db, r->suite.id, seq, run_id, &err);
            kv_free(&meta);
            if (rc < 0) {
                exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
                return 2;
            }
        }
    }
    if (runner_reload(r, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    runner_update_progress(r);
    return 0;
}

/* Where a boot's logs are kept: beside the database, one directory per
 * boot, so a failed cell's reason can name its console. */
/* A boot's directory, DB.boots/suiteS-kernelG-bootN: private (0700, in a
 * 0700 DB.boots of this user's), as a guest's results are unpacked into
 * it and merged from it. */
static int boot_dir(const struct runner *r, int group, char *buf, size_t len, struct pm_err *err)
{
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s.boots", pm_db_path());
    int bfd = pm_open_private_dir(base, true, err);
    if (bfd < 0)
        return -1;
    for (int n = 1; n < 10000; n++) {
        char name[96];
        snprintf(name, sizeof name, "suite%lld-kernel%d-boot%d", (long long)r->suite.id, group, n);
        snprintf(buf, len, "%s/%s", base, name);
        if (mkdirat(bfd, name, 0700) == 0) {
            close(bfd);
            return 0;
        }
        if (errno != EEXIST) {
            close(bfd);
            return pm_errf(err, "%s: %s", buf, strerror(errno));
        }
    }
    close(bfd);
    return pm_errf(err, "%s: no free boot directory", base);
}

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

static enum vm_accel choose_accel(const struct suite_plan *p)
{
    if (p->accel == ACCEL_TCG)
        return VM_TCG;
    if (p->accel == ACCEL_KVM)
        return VM_KVM;
    char flag[PATH_MAX + 16];
    kvm_flag(flag, sizeof flag);
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return VM_TCG;
    close(fd);
    return flag[0] && pm_path_exists(flag) ? VM_TCG : VM_KVM;
}

/* The job's metadata file: key=value lines every guest run carries. */
static char *meta_text(const struct kv_list *m)
{
    char *t = NULL;
    size_t len;
    FILE *f = open_memstream(&t, &len);
    if (!f)
        return NULL;
    for (size_t i = 0; i < m->n; i++)
        if (!strchr(m->v[i].key, '\n') && !strchr(m->v[i].value, '\n'))
            fprintf(f, "%s=%s\n", m->v[i].key, m->v[i].value);
    fclose(f);
    return t;
}

/* The guest's runs into the host's database and the suite: only those of
 * the cells this boot ran, with their labels and workloads, at most the
 * suite's runs for each (store/guest_runs.h); each refused run gets a line
 * in the boot's host.log. */
static int merge_guest(struct runner *r, int group, const char *dir, int *adopted, int *refused, struct pm_err *err)
{
    const struct suite_plan *p = r->p;
    char db[PATH_MAX + 80], log[PATH_MAX + 80];
    snprintf(db, sizeof db, "%s/results.db", dir);
    snprintf(log, sizeof log, "%s/host.log", dir);
    struct guest_cell *cells = calloc(p->ncells + 1, sizeof *cells);
    if (!cells)
        return pm_errf(err, "out of memory");
    for (size_t c = 0; c < p->ncells; c++)
        cells[c] = (struct guest_cell){ .planned = p->cells[c].group == group, .max_runs = (int)p->runs_max,
                                        .label = p->cells[c].label, .workload = p->cells[c].wl->name };
    struct guest_selection sel;
    int rc = guest_runs_select(db, r->suite.uuid, cells, p->ncells, &sel, err);
    free(cells);
    if (rc < 0)
        return -1;
    *refused = (int)sel.nrefused;
    FILE *f = sel.nrefused ? pm_create_file(log) : NULL;
    for (size_t i = 0; f && i < sel.nrefused; i++) {
        char label[4 * sizeof sel.refused[i].label], uuid[4 * sizeof sel.refused[i].uuid];
        quote_terminal(sel.refused[i].label, label, sizeof label);
        quote_terminal(sel.refused[i].uuid, uuid, sizeof uuid);
        fprintf(f, "refused run %s, label '%s': %s\n", uuid, label, sel.refused[i].reason);
    }
    if (f)
        fclose(f);
    const char **only = calloc(sel.n + 1, sizeof *only);
    struct suite_adoption *adopt = calloc(sel.n + 1, sizeof *adopt);
    for (size_t i = 0; only && adopt && i < sel.n; i++) {
        only[i] = sel.runs[i].uuid;
        adopt[i] = (struct suite_adoption){ sel.runs[i].uuid, sel.runs[i].round, sel.runs[i].cell };
    }
    int added = 0, present = 0;
    rc = !only || !adopt ? pm_errf(err, "out of memory")
                         : merge_database(&r->rs.db, db, only, sel.n, &added, &present, err);
    if (rc == 0)
        rc = suites_adopt_runs(&r->rs.db, r->suite.id, adopt, sel.n, adopted, err);
    free(only);
    free(adopt);
    guest_selection_free(&sel);
    return rc;
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
    if (image_prepare(&r->kernels[group].spec, img, say, &err) < 0) {
        char reason[1400];
        snprintf(reason, sizeof reason, "kernel %s: its VM image could not be made: %s", sg->kernel, err.msg);
        char qr[1500];
        quote_terminal(reason, qr, sizeof qr);
        exp_say(r->ev, EXP_LOG, "pressmark: %s; its cells are marked failed\n", qr);
        image_free(img);
        if (*worst < 1)
            *worst = 1;
        *rc = mark_failed(r, group, reason);
        return -1;
    }
    /* The image knows the kernel's configuration (its /boot/config). */
    struct kv_list *m = &r->kernel_meta[group];
    kv_set(m, "kernel.config", img->info.config_known ? "known" : "unknown");
    for (size_t i = 0; i < img->info.config.n; i++)
        kv_set(m, img->info.config.v[i].key, img->info.config.v[i].value);
    kv_setf(m, "vm.memory", "%llu", (unsigned long long)sg->vm_memory);
    kv_setf(m, "vm.cpus", "%u", sg->vm_cpus);
    if (sg->vm_append[0])
        kv_set(m, "vm.append", sg->vm_append);
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
    kv_set(m, "vm.accel", accel == VM_KVM ? "kvm" : "tcg");
    kv_set(m, "emulated", accel == VM_TCG ? "yes" : "no");
    if (boot_dir(r, group, dir, dirlen, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    char *mt = meta_text(m);
    /* The guest's arguments: numbers and pressmark's own words only. */
    char args[512], file[160];
    snprintf(file, sizeof file, "%s.ini", p->name);
    snprintf(args, sizeof args, "--guest-group %d --guest-suite %s --guest-seed %llu --guest-meta job-meta %s\n",
             group, r->suite.uuid, (unsigned long long)r->suite.seed, file);
    if (!o->quiet)
        exp_say(r->ev, EXP_LOG, "pressmark: kernel %s (%s): booting in a VM (%s, %s RAM, %u CPUs); logs in %s\n", q,
                img->info.release, accel == VM_KVM ? "KVM" : "TCG emulation", mem, sg->vm_cpus, dir);
    struct vm_boot b = { .img = img, .memory = sg->vm_memory, .cpus = sg->vm_cpus, .append = sg->vm_append,
                         .accel = accel, .timeout_s = p->vm_timeout_s, .exe = r->rs.exe,
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
    if (merge_guest(r, group, dir, &adopted, &refused, &err) < 0) {
        snprintf(reason, sizeof reason, "kernel %s: the guest's results could not be merged: %s", sg->kernel,
                 err.msg);
        *worst = *worst < 1 ? 1 : *worst;
        return mark_failed(r, group, reason);
    }
    if (!o->quiet)
        exp_say(r->ev, EXP_LOG, "pressmark: kernel %s: %d runs from the VM (up after %.1f s, first run at %.1f s, %.1f s "
                "in all)\n", q, adopted, res->up_s, res->first_run_s, res->wall_s);
    if (refused)
        exp_say(r->ev, EXP_LOG, "pressmark: kernel %s: %d run%s of the guest's refused (see %s/host.log)\n", q, refused,
                refused == 1 ? "" : "s", dir);
    if (runner_reload(r, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    runner_update_progress(r);
    /* A run that failed or ended oom in the guest counts as one here
     * does: the suite's exit status says some run did not end ok. */
    for (size_t c = 0; c < r->p->ncells; c++)
        if (r->p->cells[c].group == group && r->cs[c].failed > 0 && *worst < 1)
            *worst = 1;
    if (!runner_group_done(r, group)) {
        snprintf(reason, sizeof reason, "kernel %s: the guest's suite ended with runs left (its exit status %d; "
                 "its log: %s/guest.log)", sg->kernel, res->guest_status, dir);
        *worst = *worst < 1 ? 1 : *worst;
        return mark_failed(r, group, reason);
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
            rc = mark_failed(r, group, reason);
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

/* A group whose kernel is not the one running: its VM. */
const struct exp_backend exp_backend_vm = { .name = "vm", .run_group = vm_run_group };
