#ifndef PM_KERNEL_VM_H
#define PM_KERNEL_VM_H
/* One boot of a kernel under test in a QEMU virtual machine. The guest
 * gets three disks: its root (a copy-on-write overlay of the cached
 * image, so nothing a run writes survives the boot), the job (a tar
 * archive: this pressmark's binary, the suite file, the arguments), and
 * an empty disk it writes its results to as a tar archive before it
 * powers off. Everything of a boot but its logs lives in a journalled
 * scratch directory, and QEMU dies with pressmark, also by SIGKILL. */
#include <stdbool.h>
#include <stdint.h>
#include "kernels/image.h"
#include "lib/err.h"

enum vm_accel { VM_KVM, VM_TCG };

struct vm_boot {
    const struct vm_image *img;
    uint64_t memory;            /* bytes */
    unsigned cpus;
    const char *append;         /* more kernel parameters, or NULL */
    enum vm_accel accel;
    double timeout_s;
    const char *exe;            /* the pressmark binary the guest runs */
    const char *suite_text;     /* the suite file */
    const char *suite_file;     /* its name in the guest (the suite's name, .ini): it names the suite there */
    const char *args;           /* suite run's arguments, the file's name last: pressmark's own words, numbers
                                 * and that name ([A-Za-z0-9._-]) only, as the guest splits them on blanks */
    const char *meta;           /* key=value lines every run in the guest carries (job-meta) */
    /* One more file of the job archive, for a guest that is not a VM's
     * (a lab's job: where it puts its results): its name, a word of
     * pressmark's own ([a-z-]), and its text. NULL: none. */
    const char *extra_name, *extra_text;
    const char *log_dir;        /* console.log, qemu.log; the guest's results.db, guest.log, dmesg.txt */
    FILE *say;                  /* the guest's progress lines, as they come; NULL: quiet */
};

enum vm_outcome { VM_DONE, VM_NO_RESULTS, VM_BAD_RESULTS, VM_TIMEOUT, VM_KVM_FAILED, VM_INTERRUPTED };

struct vm_result {
    enum vm_outcome how;
    int signal;                 /* VM_INTERRUPTED: the signal */
    double up_s;                /* from QEMU's start to the guest's init; -1: never */
    double first_run_s;         /* to the guest's first run starting; -1: never */
    double wall_s;
    int guest_status;           /* the guest pressmark's exit status; -1 unknown */
    char reason[1200];          /* what went wrong, with the console's last lines */
};

/* Boot, run the job, collect its results. 0 when QEMU could be started
 * and was waited for (r says how the boot ended); -1 with err when it
 * could not be set up. */
int vm_boot(const struct vm_boot *b, struct vm_result *r, struct pm_err *err);
/* The job archive (a tar) in dir: pressmark, the suite file, its
 * arguments, job-meta and the extra file (a lab job's results-url). The
 * guest's init or `pressmark __lava-guest` unpacks it. */
int vm_job_archive(const char *dir, const struct vm_boot *b, char *job, size_t len, struct pm_err *err);
/* The last n lines of a console log that hold text, joined with " | ",
 * control characters made spaces (they become a run's failure reason):
 * C0 and DEL, and C1 (U+0080 to U+009F, as UTF-8 or a bare byte), which
 * some terminals take as ESC [ and the like. */
void vm_console_tail(const char *path, int n, char *buf, size_t len);

#endif
