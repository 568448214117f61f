/* Internal commands pressmark runs as its own helper processes. They are
 * not for users and do not appear in help. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "harness/balloon.h"
#include "harness/cli.h"
#include "harness/sysfs.h"
#include "harness/timeutil.h"
#include "harness/units.h"

int cmd_balloon_helper(int argc, char **argv)
{
    (void)argv;
    if (argc != 1)
        return 2;
    return balloon_helper_main(3);
}

/* Fill memory the way a program's data fills it: every 8-byte word
 * different, so zram and zswap cannot store the page as "same-filled"
 * for free, yet compressible as real data is. */
static void touch(char *p, size_t len, size_t stride, uint64_t seed)
{
    if (stride == 0) {
        uint64_t *w = (uint64_t *)p;
        for (size_t i = 0; i < len / sizeof *w; i++)
            w[i] = seed + i;
    } else {
        for (size_t off = 0; off < len; off += stride)
            *(uint64_t *)(p + off) = seed + off;
    }
}

/* The seed's swap-bench-pause: hold touched anonymous memory, then stop. */
int cmd_hold_helper(int argc, char **argv)
{
    uint64_t bytes;
    if (argc != 2 || pm_parse_uint(argv[1], 1, UINT64_MAX, &bytes) < 0)
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* The timed allocator, not the holders, is what the OOM killer should
     * take when the cap is too small: that is the run's result. */
    pm_write_file("/proc/self/oom_score_adj", "-900", NULL);
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "pressmark hold: cannot map %llu bytes: %s\n", (unsigned long long)bytes, strerror(errno));
        return 1;
    }
    touch(p, bytes, 0, 0x5eed);
    raise(SIGSTOP);
    for (;;)
        pause();
}

/* LTP's mtest01 -b SIZE -w: allocate SIZE in chunks and write every chunk. */
int cmd_swapout_helper(int argc, char **argv)
{
    uint64_t size, chunk;
    if (argc != 4 || pm_parse_uint(argv[1], 1, UINT64_MAX, &size) < 0 || pm_parse_uint(argv[2], 4096, UINT64_MAX, &chunk) < 0)
        return 2;
    bool every_byte = strcmp(argv[3], "every-byte") == 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* The timed part is the allocating and writing, as in mtest01: this
     * process's own start-up (loading pressmark's libraries) is not. */
    uint64_t t0 = pm_now_ns();
    uint64_t done = 0;
    while (done < size) {
        uint64_t n = size - done < chunk ? size - done : chunk;
        char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr, "FAIL ... %llu bytes allocated: %s\n", (unsigned long long)done, strerror(errno));
            return 1;
        }
        touch(p, n, every_byte ? 0 : page, done);
        done += n;
    }
    uint64_t t1 = pm_now_ns();
    printf("PASS ... %llu bytes allocated.\n", (unsigned long long)done);
    char line[96];
    int n = snprintf(line, sizeof line, "elapsed_ns %llu\n", (unsigned long long)(t1 - t0));
    if (fcntl(4, F_GETFD) >= 0 && write(4, line, (size_t)n) != n)
        return 1;
    return 0;
}

/* One wblg-disk process: until the deadline, a disk operation (a write of
 * io-min to io-max bytes appended to its file, or a read) and/or a pass
 * over its shared memory segment touching 4 bytes every stride. */
int cmd_shmio_worker(int argc, char **argv)
{
    int shm = -1;
    unsigned long long stride = 4096, io_min = 1024, io_max = 262144, read_pct = 0, until = 0, seed = 1;
    const char *role = "alternate", *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--shm=", 6) == 0) shm = atoi(a + 6);
        else if (strncmp(a, "--stride=", 9) == 0) stride = strtoull(a + 9, NULL, 10);
        else if (strncmp(a, "--io=", 5) == 0) sscanf(a + 5, "%llu,%llu", &io_min, &io_max);
        else if (strncmp(a, "--read-pct=", 11) == 0) read_pct = strtoull(a + 11, NULL, 10);
        else if (strncmp(a, "--role=", 7) == 0) role = a + 7;
        else if (strncmp(a, "--until=", 8) == 0) until = strtoull(a + 8, NULL, 10);
        else if (strncmp(a, "--seed=", 7) == 0) seed = strtoull(a + 7, NULL, 10);
        else if (strncmp(a, "--file=", 7) == 0) file = a + 7;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    bool do_io = strcmp(role, "mem") != 0, do_mem = strcmp(role, "io") != 0;
    struct shmid_ds ds;
    char *mem = NULL;
    size_t size = 0;
    if (do_mem) {
        if (shmctl(shm, IPC_STAT, &ds) < 0 || (mem = shmat(shm, NULL, 0)) == (void *)-1) {
            fprintf(stderr, "pressmark shmio: cannot attach segment %d: %s\n", shm, strerror(errno));
            return 1;
        }
        size = ds.shm_segsz;
    }
    int fd = -1;
    char *buf = NULL;
    if (do_io) {
        fd = open(file, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        buf = malloc(io_max);
        if (fd < 0 || !buf) {
            fprintf(stderr, "pressmark shmio: %s: %s\n", file, strerror(errno));
            free(buf);
            return 1;
        }
        for (unsigned long long i = 0; i < io_max; i++)
            buf[i] = (char)(i * 131 + seed);
    }
    uint64_t s = seed * 2654435761ull, written = 0, reads = 0, passes = 0;
    while (pm_now_ns() < until) {
        if (do_io) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            size_t n = (size_t)(io_min + (s >> 33) % (io_max - io_min + 1));
            off_t end = lseek(fd, 0, SEEK_END);
            if (read_pct && (s >> 20) % 100 < read_pct && end > 0) {
                ssize_t r = pread(fd, buf, n, (off_t)((s >> 13) % (uint64_t)end));
                if (r > 0)
                    reads += (uint64_t)r;
            } else {
                ssize_t w = write(fd, buf, n);
                if (w < 0) {
                    fprintf(stderr, "pressmark shmio: writing %s: %s\n", file, strerror(errno));
                    free(buf);
                    close(fd);
                    return 1;
                }
                written += (uint64_t)w;
            }
        }
        if (do_mem) {
            for (size_t off = 0; off + 4 <= size; off += stride)
                (*(volatile uint32_t *)(mem + off))++;
            passes++;
        }
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    if (mem)
        shmdt(mem);
    char line[128];
    int n = snprintf(line, sizeof line, "written %llu read %llu passes %llu\n", (unsigned long long)written,
                     (unsigned long long)reads, (unsigned long long)passes);
    return write(4, line, (size_t)n) == n ? 0 : 1;
}
