/* Internal commands pressmark runs as its own helper processes. They are
 * not for users and do not appear in help. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "harness/balloon.h"
#include "harness/cli.h"
#include "harness/sysfs.h"
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
    printf("PASS ... %llu bytes allocated.\n", (unsigned long long)done);
    return 0;
}
