/* A guest's results disk (kernels/results.h): the input is the disk's
 * bytes, unpacked into a private directory as a boot's. Properties: the
 * reader ends (no crash, no hang, no leak); a refused archive leaves the
 * directory empty; a taken one leaves only regular files of the names the
 * guest writes, 0600, each within its size; the directory stays 0700 and
 * nothing appears beside it. */
#include "fuzz/fuzz.h"
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels/results.h"
#include "lib/fileio.h"

static char base[64], image[96], boot[96];

static void remove_base(void)
{
    pm_remove_all(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/pressmark-fuzz.XXXXXX", tmp && *tmp == '/' && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(base))
        abort();
    snprintf(image, sizeof image, "%s/result.img", base);
    snprintf(boot, sizeof boot, "%s/boot", base);
    atexit(remove_base);
    return 0;
}

static int64_t limit_of(const char *name)
{
    static const struct { const char *name; int64_t max; } names[] = {
        { "results.db", (int64_t)RESULTS_DISK_BYTES }, { "status", 16 }, { "guest.log", 64ll << 20 },
        { "dmesg.txt", 16ll << 20 },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0)
            return names[i].max;
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pm_remove_all(boot);
    if (mkdir(boot, 0700) < 0)
        abort();
    FILE *f = fopen(image, "w");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    struct pm_err err;
    int rc = results_unpack(image, boot, &err);
    FUZZ_ASSERT(rc == 0 || rc == -1, "returned %d", rc);
    DIR *d = opendir(boot);
    if (!d)
        abort();
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        FUZZ_ASSERT(rc == 0, "refused (%s), yet '%s' is left", err.msg, e->d_name);
        char path[256];
        snprintf(path, sizeof path, "%s/%s", boot, e->d_name);
        struct stat st;
        FUZZ_ASSERT(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "'%s' is not a regular file", e->d_name);
        FUZZ_ASSERT((st.st_mode & 07777) == 0600, "'%s' has mode %o", e->d_name, (unsigned)(st.st_mode & 07777));
        int64_t max = limit_of(e->d_name);
        FUZZ_ASSERT(max >= 0, "'%s' is not a name the guest writes", e->d_name);
        FUZZ_ASSERT(st.st_size <= max, "'%s' holds %lld bytes, past %lld", e->d_name, (long long)st.st_size,
                    (long long)max);
    }
    closedir(d);
    FUZZ_ASSERT(n <= 4, "%d files", n);
    struct stat bs;
    FUZZ_ASSERT(stat(boot, &bs) == 0 && (bs.st_mode & 07777) == 0700, "the boot directory is no longer 0700");
    d = opendir(base);
    int beside = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        beside += e->d_name[0] != '.' && strcmp(e->d_name, "boot") != 0 && strcmp(e->d_name, "result.img") != 0;
    if (d)
        closedir(d);
    FUZZ_ASSERT(beside == 0, "%d entries appeared beside the boot directory", beside);
    return 0;
}
