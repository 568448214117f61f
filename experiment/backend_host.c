/* The host backend: a suite's kernels booted on this machine one after
 * another. suite run runs the running kernel's cells and says which
 * kernel is next; with --reboot kexec it loads that kernel with kexec,
 * installs a systemd unit that continues the suite after the boot, and
 * reboots into it. The unit removes itself when the suite is complete. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "experiment/run_opts.h"
#include "experiment/backend.h"
#include "experiment/backend_vm.h"
#include "experiment/runner.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/spawn.h"

#define UNIT_DIR "/etc/systemd/system"

static void unit_name(const struct suite_plan *p, char *buf, size_t len)
{
    /* Suite names are [A-Za-z0-9._-]: a valid unit name as they are. */
    snprintf(buf, len, "pressmark-suite-%s.service", p->name);
}

/* The unit that continues the suite after each boot. */
static void write_unit(FILE *f, const struct suite_plan *p, const char *exe, const char *suite, const char *db)
{
    fprintf(f, "# Written by pressmark: continues suite %s after each kernel it boots;\n"
               "# removed by pressmark when the suite is complete.\n"
               "[Unit]\n"
               "Description=pressmark suite %s: continue after a kernel change\n"
               "After=local-fs.target network-online.target\n"
               "Wants=network-online.target\n\n"
               "[Service]\n"
               "Type=oneshot\n"
               "Environment=", p->name, p->name);
    char env[PATH_MAX + 16];
    snprintf(env, sizeof env, "PRESSMARK_DB=%s", db);
    quote_systemd_env(f, env);
    /* A service has no HOME: the cache this suite began with, said. */
    char cache[PATH_MAX];
    if (pm_cache_root(cache, sizeof cache) == 0 && quote_systemd_ok(cache)) {
        fputs("\nEnvironment=", f);
        snprintf(env, sizeof env, "PRESSMARK_CACHE=%s", cache);
        quote_systemd_env(f, env);
    }
    fputs("\nExecStart=", f);
    const char *words[] = { exe, "suite", "run", "--reboot", "kexec", suite };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (i)
            fputc(' ', f);
        quote_systemd_exec(f, words[i]);
    }
    fputs("\n\n[Install]\nWantedBy=multi-user.target\n", f);
}

/* Show a command (dry run) or run it. */
static int command(const struct exp_events *ev, char *const *argv, bool dry_run, struct pm_err *err)
{
    if (dry_run) {
        char *line = NULL;
        size_t len;
        FILE *f = open_memstream(&line, &len);
        if (!f)
            return pm_errf(err, "out of memory");
        fputs("would run:", f);
        for (char *const *a = argv; *a; a++) {
            char q[PATH_MAX + 64];
            quote_terminal(*a, q, sizeof q);
            fprintf(f, " %s", q);
        }
        fputc('\n', f);
        if (fclose(f) != 0) {
            free(line);
            return pm_errf(err, "out of memory");
        }
        exp_say(ev, EXP_DRY_RUN, "%s", line);
        free(line);
        return 0;
    }
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL };
    return pm_spawn_run(&sp, err);
}

/* The unit's words: the suite file and the database as absolute paths,
 * and the binary; systemd drops what a unit cannot carry, so such a path
 * is refused here instead. */
static int unit_words(struct runner *r, const char *path, char *suite, char *db)
{
    if (!realpath(path, suite) || !realpath(store_db_path(), db)) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: --reboot: %s: %s\n", path, strerror(errno));
        return -1;
    }
    const char *const carried[] = { suite, db, r->rs.exe };
    for (size_t i = 0; i < sizeof carried / sizeof carried[0]; i++)
        if (!quote_systemd_ok(carried[i])) {
            char q[PATH_MAX * 4];
            quote_terminal(carried[i], q, sizeof q);
            exp_say(r->ev, EXP_LOG, "pressmark suite run: --reboot: %s cannot be carried by a systemd unit (accepted: a path "
                    "in UTF-8 without control characters)\n", q);
            return -1;
        }
    return 0;
}

static int kexec_into(struct runner *r, int g, const char *path, const struct suite_run_opts *o)
{
    const struct group_kernel *k = &r->kernels[g];
    struct pm_err err;
    char suite[PATH_MAX], db[PATH_MAX];
    if (unit_words(r, path, suite, db) < 0)
        return -1;
    char vmlinuz[PATH_MAX], initrd[PATH_MAX] = "";
    const char *rel = k->info.release;
    /* The kernel must be installed here to be booted: its package's
     * scripts make the initramfs; a bzImage boots as it is. */
    if (k->spec.kind == KERNEL_BZIMAGE) {
        snprintf(vmlinuz, sizeof vmlinuz, "%s", k->spec.path);
    } else {
        snprintf(vmlinuz, sizeof vmlinuz, "/boot/vmlinuz-%s", rel);
        snprintf(initrd, sizeof initrd, "/boot/initrd.img-%s", rel);
        if (!pm_path_exists(vmlinuz)) {
            char *apt[] = { "apt-get", "install", "-y", (char *)k->info.package, NULL };
            char *dpkg[] = { "dpkg", "-i", (char *)k->spec.path, NULL };
            if (command(r->ev, k->spec.kind == KERNEL_DEB ? dpkg : apt, o->dry_run, &err) < 0)
                goto fail;
        }
    }
    char unit[200], unit_path[PATH_MAX];
    unit_name(r->p, unit, sizeof unit);
    snprintf(unit_path, sizeof unit_path, "%s/%s", UNIT_DIR, unit);
    if (o->dry_run) {
        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        if (!f || (write_unit(f, r->p, r->rs.exe, suite, db), fclose(f)) != 0) {
            free(text);
            pm_errf(&err, "out of memory");
            goto fail;
        }
        exp_say(r->ev, EXP_DRY_RUN, "would write %s:\n%s", unit_path, text);
        free(text);
    } else {
        FILE *f = pm_create_file(unit_path);
        if (!f) {
            exp_say(r->ev, EXP_LOG, "pressmark suite run: --reboot: %s: %s\n", unit_path, strerror(errno));
            return -1;
        }
        write_unit(f, r->p, r->rs.exe, suite, db);
        if (fclose(f) != 0) {
            exp_say(r->ev, EXP_LOG, "pressmark suite run: --reboot: %s: %s\n", unit_path, strerror(errno));
            return -1;
        }
    }
    char initrd_opt[PATH_MAX + 16];
    snprintf(initrd_opt, sizeof initrd_opt, "--initrd=%s", initrd);
    char *reload[] = { "systemctl", "daemon-reload", NULL };
    char *enable[] = { "systemctl", "enable", unit, NULL };
    char *load[] = { "kexec", "-l", vmlinuz, initrd[0] ? initrd_opt : "--reuse-cmdline",
                     initrd[0] ? "--reuse-cmdline" : NULL, NULL };
    /* systemctl kexec: a clean shutdown, then the loaded kernel. */
    char *boot[] = { "systemctl", "kexec", NULL };
    if (command(r->ev, reload, o->dry_run, &err) < 0 || command(r->ev, enable, o->dry_run, &err) < 0 ||
        command(r->ev, load, o->dry_run, &err) < 0)
        goto fail;
    if (!o->dry_run)
        exp_say(r->ev, EXP_LOG, "pressmark: rebooting into %s with kexec; %s continues the suite after the boot\n", rel, unit);
    if (command(r->ev, boot, o->dry_run, &err) < 0)
        goto fail;
    return 0;
fail:
    exp_say(r->ev, EXP_LOG, "pressmark suite run: --reboot kexec: %s\n", err.msg);
    return -1;
}

static int host_next(struct runner *r, const char *path, const struct suite_run_opts *o)
{
    const struct suite_plan *p = r->p;
    bool running[SUITE_MAX_GROUPS];
    for (size_t g = 0; g < p->ngroups; g++)
        running[g] = r->kernels[g].running;
    int g = suite_next_group(p, r->cs, running);
    if (g < 0)
        return 0;
    char q[300], qp[PATH_MAX + 16];
    quote_terminal(p->groups[g].kernel, q, sizeof q);
    quote_terminal(path, qp, sizeof qp);
    if (running[g]) {
        exp_say(r->ev, EXP_LOG, "pressmark: suite %lld: the running kernel's cells are not done; 'pressmark suite run %s' "
                "continues them\n", (long long)r->suite.id, qp);
        return 0;
    }
    exp_say(r->ev, EXP_LOG, "pressmark: suite %lld: this kernel's cells are done; boot %s (%s) next and run 'pressmark suite "
            "run %s' again ('pressmark suite next-kernel %s' prints it)\n", (long long)r->suite.id, q,
            r->kernels[g].info.release, qp, qp);
    if (!o->reboot)
        return 0;
    return kexec_into(r, g, path, o);
}

static int host_finish(struct runner *r, const char *path, const struct suite_run_opts *o)
{
    (void)path;
    if (!o->reboot)
        return 0;
    char unit[200], unit_path[PATH_MAX];
    unit_name(r->p, unit, sizeof unit);
    snprintf(unit_path, sizeof unit_path, "%s/%s", UNIT_DIR, unit);
    if (!pm_path_exists(unit_path) && !o->dry_run)
        return 0;
    struct pm_err err;
    char *disable[] = { "systemctl", "disable", unit, NULL };
    char *reload[] = { "systemctl", "daemon-reload", NULL };
    if (command(r->ev, disable, o->dry_run, &err) < 0)
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
    if (o->dry_run)
        exp_say(r->ev, EXP_DRY_RUN, "would remove %s\n", unit_path);
    else if (unlink(unit_path) < 0)
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s: %s\n", unit_path, strerror(errno));
    command(r->ev, reload, o->dry_run, &err);
    exp_say(r->ev, EXP_LOG, "pressmark: suite complete; %s removed\n", unit);
    return 0;
}

/* A group whose kernel is not the one running waits for its boot. */
static int host_defer_group(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst)
{
    (void)group, (void)o, (void)abort_sig, (void)worst;
    r->incomplete = true;
    return 0;
}

static void host_where(const struct suite_plan *p, const struct suite_group *g, char *buf, size_t len)
{
    (void)p, (void)g;
    snprintf(buf, len, "runs after a boot into it");
}

static void host_describe(const struct suite_plan *p, char *buf, size_t len)
{
    (void)p;
    snprintf(buf, len, "on this machine after a reboot into each kernel");
}

/* Its batches boot here like any group: it waits for each reboot. */
static int host_bisects(const struct suite_plan *p, struct pm_err *err)
{
    (void)p, (void)err;
    return 0;
}

static int host_check_kernel(const struct suite_plan *p, int group, const struct suite_run_opts *o,
                             struct pm_err *err)
{
    (void)p, (void)group;
    if (o->reboot && !o->dry_run && !pm_in_path("kexec"))
        return pm_errf(err, "--reboot kexec needs kexec (accepted: apt-get install kexec-tools)");
    return 0;
}

/* It takes backend vm's keys (vm-accel), though nothing here reads them:
 * a suite moves between vm and host by its backend line alone, and a
 * bisection's batches carry them as they always did (each kernel's key
 * digests them). */
const struct exp_backend exp_backend_host = {
    .name = "host", .summary = "this machine rebooted into each kernel", .flags = EXP_BACKEND_REBOOTS,
    .options = exp_vm_options, .state_size = sizeof(struct exp_vm_keys),
    .where = host_where, .describe = host_describe, .bisects = host_bisects, .check_kernel = host_check_kernel,
    .run_group = host_defer_group, .next = host_next, .finish = host_finish,
};
