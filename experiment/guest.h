#ifndef PM_EXPERIMENT_GUEST_H
#define PM_EXPERIMENT_GUEST_H
/* What every backend that runs a group's cells somewhere else (a VM, a
 * LAVA lab's device) does with what comes back: the guest's runs merged
 * into the suite through the same checks, or the cells failed with the
 * reason, and a private directory per boot or job for its files. */
#include <stdbool.h>
#include <stddef.h>
#include "experiment/runner.h"
#include "experiment/plan.h"
#include "kernels/base.h"
#include "kernels/image.h"
#include "lib/err.h"
#include "lib/kv.h"

/* The runs the group's cells still need each get a failed run with this
 * reason, so the suite goes on and status and the report say why.
 * Returns 0, or 2 for a harness error (said). */
int exp_mark_failed(struct runner *r, int group, const char *reason);
/* The guest's runs in dir/results.db into the host's database and the
 * suite: only those of the cells planned for the group, with their labels
 * and workloads, at most the suite's runs for each (store/guest_runs.h);
 * each refused run gets a line in dir/host.log. */
int exp_merge_guest(struct runner *r, int group, const char *dir, int *adopted, int *refused, struct pm_err *err);
/* A new private directory DB.boots/suiteS-kernelG-KINDN (0700, in a 0700
 * DB.boots of this user's): a boot's or a job's logs and results. */
int exp_boot_dir(const struct runner *r, int group, const char *kind, char *buf, size_t len, struct pm_err *err);
/* After a group's runs came back: the runner's view reloaded, progress
 * told, and a run that failed or ended oom there counted as one here
 * does (the suite's exit status says some run did not end ok). 0, or 2
 * for a harness error (said). */
int exp_group_merged(struct runner *r, int group, int *worst);
/* What the group's image tells of its kernel (its configuration) and the
 * machine it asks for, into the group's run metadata. */
void exp_image_meta(struct runner *r, int group, const struct vm_image *img);
/* The Debian packages the group's cells' workloads need in a guest
 * (workload_ops.guest_packages), each once, in the order first met,
 * comma-separated; "" when none. One that does not fit is left out
 * (the guest then says what is missing, as a host does). */
void exp_guest_apps(const struct suite_plan *p, int group, char *buf, size_t len);
/* The job's metadata file: key=value lines every guest run carries;
 * malloc'd, NULL when out of memory. */
char *exp_meta_text(const struct kv_list *m);
/* Can the group's kernel's guest image be made here, to boot it as how
 * says ("booting it in a VM")? It needs root and the image's tools, and
 * with qemu QEMU itself. 0, or -1 with err "FILE:LINE: kernel = ...". */
int exp_image_check(const struct suite_plan *p, int group, const char *how, bool qemu, struct pm_err *err);

#endif
