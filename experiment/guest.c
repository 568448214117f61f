/* What comes back from a group run elsewhere: merged, or failed with
 * the reason (experiment/guest.h). */
#include "experiment/guest.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels/image.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "store/guest_runs.h"
#include "store/merge.h"
#include "store/runs.h"
#include "store/suites.h"

/* Runs the group's cells still need get a failed run each, with reason,
 * so the suite goes on and status and the report say why. */
int exp_mark_failed(struct runner *r, int group, const char *reason)
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
            pm_kv_setf(&meta, "suite.round", "%d", round + k + 1);
            pm_kv_setf(&meta, "suite.seq", "%lld", (long long)seq);
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
            pm_kv_free(&meta);
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

/* Beside the database, one directory per boot or job, so a failed cell's
 * reason can name its console; private, as a guest's results are
 * unpacked into it and merged from it. */
int exp_boot_dir(const struct runner *r, int group, const char *kind, char *buf, size_t len, struct pm_err *err)
{
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s.boots", store_db_path());
    int bfd = pm_open_private_dir(base, true, err);
    if (bfd < 0)
        return -1;
    for (int n = 1; n < 10000; n++) {
        char name[96];
        snprintf(name, sizeof name, "suite%lld-kernel%d-%s%d", (long long)r->suite.id, group, kind, n);
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

/* The guest's runs into the host's database and the suite: only those of
 * the cells this boot ran, with their labels and workloads, at most the
 * suite's runs for each (store/guest_runs.h); each refused run gets a line
 * in the boot's host.log. */
int exp_merge_guest(struct runner *r, int group, const char *dir, int *adopted, int *refused, struct pm_err *err)
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
    int rc = store_guest_runs_select(db, r->suite.uuid, cells, p->ncells, &sel, err);
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
    store_guest_selection_free(&sel);
    return rc;
}


void exp_image_meta(struct runner *r, int group, const struct vm_image *img)
{
    const struct suite_group *sg = &r->p->groups[group];
    struct kv_list *m = &r->kernel_meta[group];
    pm_kv_set(m, "kernel.config", img->info.config_known ? "known" : "unknown");
    for (size_t i = 0; i < img->info.config.n; i++)
        pm_kv_set(m, img->info.config.v[i].key, img->info.config.v[i].value);
    pm_kv_setf(m, "vm.memory", "%llu", (unsigned long long)sg->vm_memory);
    pm_kv_setf(m, "vm.cpus", "%u", sg->vm_cpus);
    if (sg->vm_append[0])
        pm_kv_set(m, "vm.append", sg->vm_append);
}

char *exp_meta_text(const struct kv_list *m)
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

int exp_group_merged(struct runner *r, int group, int *worst)
{
    struct pm_err err;
    if (runner_reload(r, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    runner_update_progress(r);
    for (size_t c = 0; c < r->p->ncells; c++)
        if (r->p->cells[c].group == group && r->cs[c].failed > 0 && *worst < 1)
            *worst = 1;
    return 0;
}

/* Is word (n bytes) one of list's comma-separated items? */
static bool listed(const char *list, const char *word, size_t n)
{
    for (const char *p = list; *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && strncmp(p, word, n) == 0)
            return true;
        p += m + (p[m] == ',');
    }
    return false;
}

void exp_guest_apps(const struct suite_plan *p, int group, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t c = 0; c < p->ncells; c++) {
        const struct suite_cell *cell = &p->cells[c];
        if (cell->group != group || !cell->wl || !cell->wl->guest_packages)
            continue;
        for (const char *w = cell->wl->guest_packages; *w;) {
            size_t n = strcspn(w, ",");
            if (n && !listed(buf, w, n) && used + (used > 0) + n < len) {
                used += (size_t)snprintf(buf + used, len - used, "%s%.*s", used ? "," : "", (int)n, w);
            }
            w += n + (w[n] == ',');
        }
    }
}

int exp_image_check(const struct suite_plan *p, int group, const char *how, bool qemu, struct pm_err *err)
{
    const struct suite_group *sg = &p->groups[group];
    if (geteuid() != 0)
        return pm_errf(err, "%s:%d: kernel = %s: %s needs root (it builds the guest's image with debootstrap and "
                       "mounts; accepted: run as root, or backend = host)", p->file.path, sg->line, sg->kernel, how);
    static const char *const tools[][2] = { { "qemu-system-x86_64", "qemu-system-x86" }, { "qemu-img", "qemu-utils" },
                                            { "debootstrap", "debootstrap" }, { "mkfs.ext4", "e2fsprogs" } };
    for (size_t t = qemu ? 0 : 1; t < sizeof tools / sizeof tools[0]; t++)
        if (!pm_in_path(tools[t][0]))
            return pm_errf(err, "%s:%d: kernel = %s: %s needs %s (accepted: apt-get install %s)", p->file.path,
                           sg->line, sg->kernel, how, tools[t][0], tools[t][1]);
    return 0;
}
