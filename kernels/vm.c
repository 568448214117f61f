#include "kernels/vm.h"
#include "kernels/results.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "harness/run.h"
#include "kernels/build_step.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "lib/utf8.h"
#include "pressure/undo.h"

/* QEMU's option values end at a comma unless it is doubled. */
static void qemu_value(char *buf, size_t len, const char *prefix, const char *path, const char *suffix)
{
    size_t o = (size_t)snprintf(buf, len, "%s", prefix);
    for (const char *p = path; *p && o + 3 < len; p++) {
        buf[o++] = *p;
        if (*p == ',')
            buf[o++] = ',';
    }
    buf[o] = '\0';
    snprintf(buf + o, len - o, "%s", suffix);
}

void vm_console_tail(const char *path, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char text[8192];
    struct stat st;
    off_t at = fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof text - 1 ? st.st_size - (off_t)sizeof text + 1 : 0;
    ssize_t got = pread(fd, text, sizeof text - 1, at);
    close(fd);
    if (got <= 0)
        return;
    text[got] = '\0';
    /* Lines from the end, skipping blank ones; printed oldest first. */
    const char *lines[16];
    size_t lens[16];
    int k = 0;
    char *end = text + got;
    while (k < n && k < 16 && end > text) {
        char *e = end;
        while (e > text && (e[-1] == '\n' || e[-1] == '\r'))
            e--;
        char *s = e;
        while (s > text && s[-1] != '\n')
            s--;
        if (e > s) {
            lines[k] = s;
            lens[k++] = (size_t)(e - s);
        }
        end = s;
        if (s == text)
            break;
    }
    size_t o = 0;
    for (int i = k - 1; i >= 0 && o + 4 < len; i--) {
        if (o)
            o += (size_t)snprintf(buf + o, len - o, " | ");
        for (size_t j = 0; j < lens[i] && o + 1 < len; j++) {
            const unsigned char *p = (const unsigned char *)lines[i] + j;
            size_t seq = p[0] >= 0x80 ? utf8_seq(p) : 1;
            bool c1 = (seq == 2 && p[0] == 0xc2 && p[1] <= 0x9f) || (seq == 0 && p[0] <= 0x9f);
            if (p[0] < 0x20 || p[0] == 0x7f || c1) {
                buf[o++] = ' ';
                j += seq == 2 ? 1 : 0;
                continue;
            }
            /* A whole sequence or nothing of it, so a cut leaves valid text. */
            size_t take = seq ? seq : 1;
            if (j + take > lens[i] || o + take >= len)
                break;
            memcpy(buf + o, p, take);
            o += take;
            j += take - 1;
        }
        buf[o] = '\0';
    }
}

/* Does a (small, growing) log hold s (QEMU's, for KVM's failure)? Read
 * from *pos on, so each byte is looked at about once. */
static bool log_has(const char *path, off_t *pos, const char *s)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[4096 + 64];
    bool found = false;
    ssize_t n;
    size_t sl = strlen(s);
    while (!found && (n = pread(fd, buf, sizeof buf - 1, *pos)) > 0) {
        buf[n] = '\0';
        found = memmem(buf, (size_t)n, s, sl) != NULL;
        /* Keep the tail that could start a match across reads. */
        *pos += n > (ssize_t)sl ? n - (ssize_t)sl : n;
        if (n <= (ssize_t)sl)
            break;
    }
    close(fd);
    return found;
}

/* Relay the guest's own lines (pressmark's, the suite's progress) from
 * the console as they come; *pos is how far the console was read.
 * *up_seen once the guest's init has said it is up, *run_seen once its
 * suite has started its first run. */
static void relay(const char *console, off_t *pos, FILE *say, bool *up_seen, bool *run_seen)
{
    int fd = open(console, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[8192];
    ssize_t n = pread(fd, buf, sizeof buf - 1, *pos);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    char *last = strrchr(buf, '\n');
    if (!last) {
        /* No whole line yet, or one longer than the buffer: passed over. */
        if (n == (ssize_t)sizeof buf - 1)
            *pos += n;
        return;
    }
    *pos += last + 1 - buf;
    last[1] = '\0';
    for (char *l = buf; *l;) {
        size_t len = strcspn(l, "\n");
        l[len] = '\0';
        char *cr = strchr(l, '\r');
        if (cr)
            *cr = '\0';
        if (strstr(l, "pressmark-guest: "))
            *up_seen = true;
        if (strncmp(l, "pressmark", 9) == 0 || strncmp(l, "suite ", 6) == 0) {
            /* The suite's first line comes as its first run starts. */
            if (strncmp(l, "pressmark: suite ", 17) == 0)
                *run_seen = true;
            if (say) {
                char q[512];
                quote_terminal(l, q, sizeof q);
                fprintf(say, "  guest: %s\n", q);
            }
        }
        l += len + 1;
    }
}

int vm_job_archive(const char *scratch, const struct vm_boot *b, char *job, size_t len, struct pm_err *err)
{
    char p1[PATH_MAX + 32], p2[PATH_MAX + 32], p3[PATH_MAX + 32], p4[PATH_MAX + 32], p5[PATH_MAX + 32];
    snprintf(p1, sizeof p1, "%s/vm-pressmark", scratch);
    snprintf(p2, sizeof p2, "%s/vm-%s", scratch, b->suite_file);
    snprintf(p3, sizeof p3, "%s/vm-args", scratch);
    snprintf(p4, sizeof p4, "%s/vm-job-meta", scratch);
    snprintf(p5, sizeof p5, "%s/vm-%s", scratch, b->extra_name ? b->extra_name : "");
    snprintf(job, len, "%s/vm-job.tar", scratch);
    const char *meta = b->meta ? b->meta : "";
    int rc = 0;
    if (build_copy_file(b->exe, p1, 0755, err) < 0 || build_write_text(p2, b->suite_text, 0644, err) < 0 ||
        build_write_text(p3, b->args, 0644, err) < 0 || build_write_text(p4, meta, 0644, err) < 0 ||
        (b->extra_name && build_write_text(p5, b->extra_text, 0644, err) < 0))
        rc = -1;
    /* Fixed owner, group and times: the same job is the same archive,
     * so its digest (a LAVA job checks it) says what it holds. */
    char *argv[] = { "tar", "-cf", job, "-C", (char *)scratch, "--transform=s/^vm-//", "--owner=0", "--group=0",
                     "--numeric-owner", "--mtime=@0", "vm-pressmark", p2 + strlen(scratch) + 1, "vm-args",
                     "vm-job-meta", b->extra_name ? p5 + strlen(scratch) + 1 : NULL, NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = PM_FD_NULL };
    if (rc == 0)
        rc = pm_spawn_run(&sp, err);
    unlink(p1);
    unlink(p2);
    unlink(p3);
    unlink(p4);
    if (b->extra_name)
        unlink(p5);
    return rc;
}

/* What the guest left on its results disk, into the boot's directory:
 * read strictly (kernels/results.h), as the guest is not trusted. */
static void collect_results(const struct vm_boot *b, const char *result, const char *console, struct vm_result *r)
{
    struct pm_err e;
    char db[PATH_MAX + 32], st[PATH_MAX + 32], v[32];
    snprintf(db, sizeof db, "%s/results.db", b->log_dir);
    snprintf(st, sizeof st, "%s/status", b->log_dir);
    if (results_unpack(result, b->log_dir, &e) < 0) {
        r->how = VM_BAD_RESULTS;
        snprintf(r->reason, sizeof r->reason, "the guest's results were refused: %s", e.msg);
    } else if (pm_read_file(st, v, sizeof v) == 0) {
        r->guest_status = atoi(v);
    }
    if (r->how == VM_DONE && !pm_path_exists(db)) {
        char tail[800];
        vm_console_tail(console, 5, tail, sizeof tail);
        r->how = VM_NO_RESULTS;
        snprintf(r->reason, sizeof r->reason, "the guest ended without results after %.0f s; console's last lines: %s",
                 r->wall_s, tail[0] ? tail : "(none)");
    }
}

/* One boot's files and its QEMU. The disks live in the journalled
 * scratch directory; console.log and qemu.log in the boot's log_dir. */
struct boot_state {
    char scratch[PATH_MAX];
    char job[PATH_MAX + 32], result[PATH_MAX + 32], overlay[PATH_MAX + 32];
    char console[PATH_MAX + 32], qlog[PATH_MAX + 32];
    pid_t pid;                  /* QEMU until it is reaped; -1 then */
    int pid_undo;               /* QEMU's journal entry; -1: none */
    uint64_t t0;                /* the boot's times count from here */
};

/* The scratch directory is journalled as soon as it exists, so a
 * pressmark killed from here on still has it removed. Its journal id,
 * or -1 with err and no directory left behind. */
static int make_scratch(struct boot_state *s, struct pm_err *err)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(s->scratch, sizeof s->scratch, "%s/pressmark-vm-XXXXXX", tmp && *tmp ? tmp : "/var/tmp");
    if (!mkdtemp(s->scratch))
        return pm_errf(err, "%s: %s", s->scratch, strerror(errno));
    int sid = undo_push(UNDO_SCRATCH, s->scratch, "vm-", err);
    if (sid < 0) {
        rmdir(s->scratch);
        return -1;
    }
    return sid;
}

/* The guest's three disks, in the scratch directory. The first failure
 * stops the rest; what was made goes with the directory, so nothing is
 * undone here. */
static int make_disks(const struct vm_boot *b, struct boot_state *s, struct pm_err *err)
{
    snprintf(s->result, sizeof s->result, "%s/vm-result.img", s->scratch);
    snprintf(s->overlay, sizeof s->overlay, "%s/vm-overlay.qcow2", s->scratch);
    int rc = vm_job_archive(s->scratch, b, s->job, sizeof s->job, err);
    /* The results disk: sparse, written by the guest as one tar archive. */
    if (rc == 0) {
        int fd = open(s->result, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)RESULTS_DISK_BYTES) < 0)
            rc = pm_errf(err, "%s: %s", s->result, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    if (rc == 0) {
        char backing[PATH_MAX + 16];
        snprintf(backing, sizeof backing, "%s", b->img->root);
        char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", backing, s->overlay, NULL };
        struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = PM_FD_NULL,
                               .missing_hint = "(Debian's qemu-utils)" };
        rc = pm_spawn_run(&sp, err);
    }
    return rc;
}

/* QEMU's command line and the strings it points into. */
struct qemu_cmd {
    char mem[32], cpus[16], append[1024], d_root[PATH_MAX + 64], d_job[PATH_MAX + 64], d_res[PATH_MAX + 64],
        chardev[PATH_MAX + 64];
    char *argv[48];
};

/* How the guest is run: no display, monitor or network, the serial
 * console into console.log, the three disks; name is the word the
 * journal knows this QEMU by. */
static void qemu_argv(const struct vm_boot *b, const struct boot_state *s, const char *name, struct qemu_cmd *c)
{
    snprintf(c->mem, sizeof c->mem, "%llu", (unsigned long long)(b->memory >> 20));
    snprintf(c->cpus, sizeof c->cpus, "%u", b->cpus);
    /* panic=-1 with -no-reboot: a guest that panics ends QEMU at once. */
    snprintf(c->append, sizeof c->append,
             "console=ttyS0 root=/dev/vda rw init=/usr/lib/pressmark/guest-init panic=-1%s%s",
             b->append && *b->append ? " " : "", b->append ? b->append : "");
    qemu_value(c->d_root, sizeof c->d_root, "file=", s->overlay, ",format=qcow2,if=virtio,cache=unsafe");
    qemu_value(c->d_job, sizeof c->d_job, "file=", s->job, ",format=raw,if=virtio,readonly=on");
    qemu_value(c->d_res, sizeof c->d_res, "file=", s->result, ",format=raw,if=virtio");
    qemu_value(c->chardev, sizeof c->chardev, "file,id=console,path=", s->console, "");
    char **argv = c->argv;
    int n = 0;
    argv[n++] = "qemu-system-x86_64";
    argv[n++] = "-name";
    argv[n++] = (char *)name;       /* the word the journal knows this QEMU by */
    argv[n++] = "-accel";
    argv[n++] = b->accel == VM_KVM ? "kvm" : "tcg";
    argv[n++] = "-cpu";
    argv[n++] = b->accel == VM_KVM ? "host" : "max";
    argv[n++] = "-m";
    argv[n++] = c->mem;
    argv[n++] = "-smp";
    argv[n++] = c->cpus;
    argv[n++] = "-display";
    argv[n++] = "none";
    argv[n++] = "-monitor";
    argv[n++] = "none";
    argv[n++] = "-no-reboot";
    argv[n++] = "-nic";
    argv[n++] = "none";
    argv[n++] = "-chardev";
    argv[n++] = c->chardev;
    argv[n++] = "-serial";
    argv[n++] = "chardev:console";
    argv[n++] = "-kernel";
    argv[n++] = (char *)b->img->vmlinuz;
    if (b->img->initrd[0]) {
        argv[n++] = "-initrd";
        argv[n++] = (char *)b->img->initrd;
    }
    argv[n++] = "-append";
    argv[n++] = c->append;
    argv[n++] = "-drive";
    argv[n++] = c->d_root;
    argv[n++] = "-drive";
    argv[n++] = c->d_job;
    argv[n++] = "-drive";
    argv[n++] = c->d_res;
    argv[n] = NULL;
}

/* QEMU in a process group of its own, dying with pressmark, its output
 * in qemu.log. 0 once it runs (s->pid); its journal entry, when that
 * could be written, in s->pid_undo. -1 with err if it did not start. */
static int start_qemu(const struct vm_boot *b, struct boot_state *s, struct pm_err *err)
{
    struct qemu_cmd c;
    const char *name = strrchr(s->scratch, '/') + 1;
    qemu_argv(b, s, name, &c);
    int qfd = open(s->qlog, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct pm_spawn sp = { .argv = c.argv, .in = PM_FD_NULL, .out = qfd < 0 ? PM_FD_NULL : qfd,
                           .err = qfd < 0 ? PM_FD_NULL : qfd, .new_group = true, .die_with_parent = true,
                           .missing_hint = "(Debian's qemu-system-x86)" };
    /* Journalled before it starts: a pressmark killed at any moment
     * leaves no QEMU behind (and pdeathsig ends it before that). */
    char word[64];
    snprintf(word, sizeof word, "%s", name);
    int rc = 0;
    if (qfd < 0)
        rc = pm_errf(err, "%s: %s", s->qlog, strerror(errno));
    else if (pm_spawn(&sp, &s->pid, err) < 0)
        rc = -1;
    if (qfd >= 0)
        close(qfd);
    if (rc == 0) {
        char pids[16];
        snprintf(pids, sizeof pids, "%d", (int)s->pid);
        s->pid_undo = undo_push(UNDO_PROCESS, pids, word, err);
    }
    return rc;
}

/* QEMU ended by itself, already reaped: the guest powered off or
 * panicked, or QEMU gave up. One that ends before the guest printed
 * anything could not run it: under KVM, KVM failed (on this project's
 * machines nested KVM dies at once with an MSR assertion). */
static void qemu_ended(const struct vm_boot *b, struct boot_state *s, double t, struct vm_result *r)
{
    r->wall_s = t;
    s->pid = -1;
    struct stat cst;
    if (b->accel == VM_KVM && (stat(s->console, &cst) < 0 || cst.st_size == 0)) {
        char last[300];
        vm_console_tail(s->qlog, 1, last, sizeof last);
        r->how = VM_KVM_FAILED;
        snprintf(r->reason, sizeof r->reason, "QEMU ended before the guest printed anything: %s",
                 last[0] ? last : "(nothing in qemu.log)");
    }
}

/* A boot that was interrupted, hit KVM's internal error or ran out of
 * time, its QEMU killed and reaped: the reason says which. */
static void qemu_stopped(const struct vm_boot *b, struct boot_state *s, double t, int sig, bool kvm_failed,
                         struct vm_result *r)
{
    s->pid = -1;
    r->wall_s = t;
    char tail[800];
    vm_console_tail(s->console, 5, tail, sizeof tail);
    if (sig) {
        r->how = VM_INTERRUPTED;
        r->signal = sig;
        snprintf(r->reason, sizeof r->reason, "interrupted by SIG%s", sigabbrev_np(sig));
    } else if (kvm_failed) {
        r->how = VM_KVM_FAILED;
        snprintf(r->reason, sizeof r->reason, "KVM failed to run the guest (\"KVM internal error\" in qemu.log)");
    } else {
        r->how = VM_TIMEOUT;
        snprintf(r->reason, sizeof r->reason, "the guest did not finish within %.0f s; console's last lines: %s",
                 b->timeout_s, tail[0] ? tail : "(none)");
    }
}

/* What the watch over a boot keeps from one look to the next. */
struct boot_watch {
    const struct vm_boot *b;
    struct boot_state *s;
    struct vm_result *r;
    off_t kvm_pos, con_pos;
    bool up_seen, run_seen;
    double t;                   /* seconds since the boot began, at the last look */
    int sig;                    /* the signal that interrupted the boot; 0: none */
    bool kvm_failed;
};

/* One look: the guest's new console lines relayed (a plain file, hence
 * the looks), its milestones timed. */
static void boot_look(struct boot_watch *bw)
{
    bw->t = (double)(pm_now_ns() - bw->s->t0) / 1e9;
    relay(bw->s->console, &bw->con_pos, bw->b->say, &bw->up_seen, &bw->run_seen);
    if (bw->up_seen && bw->r->up_s < 0)
        bw->r->up_s = bw->t;
    if (bw->run_seen && bw->r->first_run_s < 0)
        bw->r->first_run_s = bw->t;
}

/* Asked at every look while QEMU runs: it is killed outright (the
 * guest's disks are scratch) when pressmark is interrupted, KVM failed,
 * or the guest has had its time, judged by the clock of the look. */
static int boot_stop(void *arg, int taken)
{
    struct boot_watch *bw = arg;
    (void)taken;               /* no signal is taken by the wait's sleeps */
    boot_look(bw);
    bw->sig = harness_pending_abort();
    bw->kvm_failed = bw->b->accel == VM_KVM && log_has(bw->s->qlog, &bw->kvm_pos, "KVM internal error");
    return bw->sig || bw->kvm_failed || bw->t > bw->b->timeout_s ? PM_WAIT_KILL : PM_WAIT_GO_ON;
}

/* Until QEMU is gone, looking every 100 ms; when this returns 0, QEMU
 * has been reaped and r says how the boot ended. */
static int watch_boot(const struct vm_boot *b, struct boot_state *s, struct vm_result *r, struct pm_err *err)
{
    struct boot_watch bw = { .b = b, .s = s, .r = r };
    const struct pm_wait_opts w = { .poll_ns = 100000000ull, .stop = boot_stop, .arg = &bw };
    struct pm_wait_result res;
    if (pm_wait_deadline(s->pid, &w, &res, err) < 0) {
        s->pid = -1;           /* not pressmark's child (any more): its number is not ours to signal */
        return -1;
    }
    if (res.stopped) {
        qemu_stopped(b, s, bw.t, bw.sig, bw.kvm_failed, r);
        return 0;
    }
    boot_look(&bw);            /* what it wrote before it ended */
    qemu_ended(b, s, bw.t, r);
    return 0;
}

int vm_boot(const struct vm_boot *b, struct vm_result *r, struct pm_err *err)
{
    memset(r, 0, sizeof *r);
    r->up_s = r->first_run_s = -1;
    r->guest_status = -1;
    struct boot_state s;
    int sid = make_scratch(&s, err);
    if (sid < 0)
        return -1;
    int rc = make_disks(b, &s, err);
    snprintf(s.console, sizeof s.console, "%s/console.log", b->log_dir);
    snprintf(s.qlog, sizeof s.qlog, "%s/qemu.log", b->log_dir);
    s.pid = -1;
    s.pid_undo = -1;
    s.t0 = pm_now_ns();
    if (rc == 0)
        rc = start_qemu(b, &s, err);
    if (rc == 0)
        rc = watch_boot(b, &s, r, err);
    if (s.pid_undo >= 0)
        undo_done(s.pid_undo);
    if (rc == 0 && r->how == VM_DONE)
        collect_results(b, s.result, s.console, r);
    char said[256];
    undo_apply(UNDO_SCRATCH, s.scratch, "vm-", said, sizeof said);
    undo_done(sid);
    return rc;
}
