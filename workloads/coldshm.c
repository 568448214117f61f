/* The cold shmem holder: "pressmark __cold-shmem BYTES" writes every page of
 * a memfd of BYTES once, says "filled" on descriptor 4 and waits to be
 * killed. Each page gets a quarter of pseudo-random bytes and zeros after
 * them: compressible as ordinary data is (about 4:1 to zswap's compressors),
 * and never one repeated word, which zswap would store without compressing
 * at all. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "workloads/coldshm.h"
#include "workloads/ready.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

int coldshm_main(int argc, char **argv)
{
    uint64_t size;
    if (argc != 2 || pm_parse_uint(argv[1], 4096, UINT64_MAX, &size) < 0)
        return 2;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        return 1;
    /* Never executable: a kernel with vm.memfd_noexec=2 refuses any other. */
    int fd = memfd_create("pressmark-cold-shmem", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL)          /* before 6.3 */
        fd = memfd_create("pressmark-cold-shmem", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
        fprintf(stderr, "pressmark cold shmem: %llu bytes: %s\n", (unsigned long long)size, strerror(errno));
        return 1;
    }
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "pressmark cold shmem: cannot map %llu bytes: %s\n", (unsigned long long)size,
                strerror(errno));
        return 1;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t off = 0; off + page <= size; off += page)
        for (size_t i = 0; i < page / 4; i += sizeof x) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;        /* xorshift64 */
            memcpy(p + off + i, &x, sizeof x);
        }
    /* Unmapped, the pages stay the memfd's: nothing of this process touches them again. */
    if (munmap(p, size) < 0 || write(4, "filled\n", 7) != 7)
        return 1;
    for (;;)
        pause();
}

int coldshm_start(struct run_ctx *rc, uint64_t bytes, struct coldshm *c, double *fill_s, struct pm_err *err)
{
    char size[32];
    snprintf(size, sizeof size, "%llu", (unsigned long long)bytes);
    char *argv[] = { (char *)run_exe(rc), COLDSHM_HELPER, size, NULL };
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    uint64_t t0 = pm_now_ns();
    int sp = run_spawn_fd(rc, argv, p[1], &c->pid, err);
    close(p[1]);
    if (sp < 0) {
        close(p[0]);
        c->pid = 0;
        return -1;
    }
    c->report = p[0];
    if (wl_wait_ready(rc, p[0], c->pid, "filled") == 0) {
        *fill_s = (double)(pm_now_ns() - t0) / 1e9;
        return 0;
    }
    struct run_exit ex;
    kill(c->pid, SIGKILL);
    int w = run_wait(rc, c->pid, &ex, err);
    close(c->report);
    c->pid = 0;
    if (w < 0)
        return -1;
    if (ex.aborted || run_check_abort(rc))
        run_set_status(rc, "aborted", "interrupted while the cold shmem was being filled");
    else
        run_set_status(rc, "failed", "the cold shmem holder ended before it had written its %s bytes", size);
    return 1;
}

bool coldshm_stop(struct run_ctx *rc, struct coldshm *c)
{
    if (!c->pid)
        return false;
    struct run_exit ex;
    struct pm_err e;
    bool early = pm_child_ended(c->pid);
    kill(c->pid, SIGKILL);
    if (run_wait(rc, c->pid, &ex, &e) < 0)
        fprintf(run_say(rc), "pressmark: the cold shmem holder: %s\n", e.msg);
    close(c->report);
    c->pid = 0;
    return early;
}
