/* run fio's pure parts: the data set against the cap, the file's size in
 * blocks, the paths a job file may name, and the job files' text, line by
 * line (what fio is handed is pressmark's own words and numbers). */
#include <string.h>
#include "tests/tap.h"
#include "workloads/dataset.h"
#include "workloads/fio_job.h"

static void sizing(void)
{
    struct pm_err err;
    uint64_t b = 0;
    ok(wl_dataset_resolve("", 64u << 20, &b, &err) == 0 && b == 96u << 20, "no --dataset under a 64M cap: 150%% (%llu)",
       (unsigned long long)b);
    ok(wl_dataset_resolve("", 0, &b, &err) == 0 && b == 256u << 20, "no --dataset and no cap: 256M (%llu)",
       (unsigned long long)b);
    ok(wl_dataset_resolve("50%", 64u << 20, &b, &err) == 0 && b == 32u << 20, "--dataset 50%% of 64M: 32M");
    ok(wl_dataset_resolve("10M", 0, &b, &err) == 0 && b == 10u << 20, "--dataset 10M without a cap: 10M");
    ok(wl_dataset_resolve("150%", 0, &b, &err) < 0, "a share without a cap is refused");
    is_str(err.msg, "--dataset: '150%' is a share of the cap and there is none (accepted without --mem-cap: a size "
           "such as 256M)", "  saying so");
    is_num(fio_job_size(96u << 20, 4096), 96u << 20, 0, "a whole number of blocks stays as it is");
    is_num(fio_job_size((96u << 20) + 100, 4096), 96u << 20, 0, "a part block is left off, as fio would");
    is_num(fio_job_size(1000, 4096), 0, 0, "less than a block is no file");
    is_num(fio_job_size((1u << 20) + 512, 512), (1u << 20) + 512, 0, "512-byte blocks: every one of them");
    struct fio_job j = { .size = 96u << 20, .bs = 4096 };
    is_num(fio_layout_bs(&j), 1u << 20, 0, "the layout writes 1M blocks where the size is whole MiB");
    j.size = (96u << 20) + 4096;
    is_num(fio_layout_bs(&j), 4096, 0, "  else the measured phase's blocks, so every byte is written");
}

static void paths(void)
{
    ok(fio_job_path_ok("/tmp/pressmark-fio.0a1b2c3d4e5f/pm-fio.data"), "a scratch path goes into a job file");
    ok(fio_job_path_ok("/srv/ram-disk_1/x+y-z"), "  so does one of letters, digits and . _ + - /");
    /* A list of files, a variable, another option, a blank, a comment, an escape, nothing. */
    const char *const bad[] = { "/tmp/a:b", "/tmp/$HOME", "/tmp/a\nrw=write", "/tmp/a b", "/tmp/a;b", "/tmp/a\\:b",
                                "" };
    const char *const said[] = { "colon", "dollar", "newline", "blank", "semicolon", "backslash", "empty" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ok(!fio_job_path_ok(bad[i]), "refused: a path with a %s", said[i]);
    struct fio_job j = { .size = 8192, .bs = 4096, .numjobs = 1, .iodepth = 1 };
    char buf[2048];
    struct pm_err err;
    ok(fio_job_text(&j, FIO_MEASURED, "/tmp/a:b", buf, sizeof buf, &err) < 0, "fio_job_text refuses it too");
    is_str(err.msg, "'/tmp/a:b' cannot go into a fio job file (accepted: a path of letters, digits and . _ + - /)",
           "  saying what is accepted");
    ok(fio_job_text(&j, FIO_MEASURED, "/tmp/f", buf, 64, &err) < 0, "a buffer too small is an error, not a cut job");
}

static void texts(void)
{
    struct fio_job j = { .size = 96u << 20, .bs = 4096, .rw = FIO_RANDREAD, .engine = FIO_PSYNC, .numjobs = 2,
                         .iodepth = 1, .runtime_ns = 1500000000ull };
    char buf[2048];
    struct pm_err err;
    ok(fio_job_text(&j, FIO_LAYOUT, "/tmp/d/pm-fio.data", buf, sizeof buf, &err) == 0, "the layout job");
    is_str(buf,
           "; pressmark run fio, the layout phase: the file written once, start to end, and synced.\n"
           "; Written by pressmark from numbers and fixed words.\n"
           "[layout]\nsize=100663296\nbs=1048576\nrw=write\nioengine=psync\ndirect=0\ninvalidate=0\nend_fsync=1\n"
           "filename=/tmp/d/pm-fio.data\n",
           "  writes every byte once in 1M blocks, buffered, keeps what is cached, syncs at the end");
    ok(fio_job_text(&j, FIO_MEASURED, "/tmp/d/pm-fio.data", buf, sizeof buf, &err) == 0, "the measured job");
    is_str(buf,
           "; pressmark run fio, the measured phase: buffered I/O over the file the layout phase wrote,\n"
           "; its cached pages kept. Written by pressmark from numbers and fixed words.\n"
           "[measured]\nsize=100663296\nbs=4096\nrw=randread\nioengine=psync\niodepth=1\nnumjobs=2\n"
           "direct=0\ninvalidate=0\ngroup_reporting=1\nrandom_distribution=random\nnorandommap=1\n"
           "time_based=1\nruntime=1500ms\nfilename=/tmp/d/pm-fio.data\n",
           "  randread for 1.5 s: uniform, no random map (the MGLRU letter's), direct=0, invalidate=0, one report");
    j = (struct fio_job){ .size = 8192, .bs = 4096, .rw = FIO_READ, .engine = FIO_IO_URING, .numjobs = 1,
                          .iodepth = 32, .runtime_ns = 1 };
    ok(fio_job_text(&j, FIO_MEASURED, "/f", buf, sizeof buf, &err) == 0, "a sequential read with io_uring");
    ok(!strstr(buf, "random_distribution") && !strstr(buf, "norandommap"), "  has no random lines");
    ok(strstr(buf, "\nrw=read\n") && strstr(buf, "\nioengine=io_uring\n") && strstr(buf, "\niodepth=32\n"),
       "  its mode, engine and depth");
    ok(strstr(buf, "\nruntime=1ms\n") != NULL, "  a duration below a millisecond is 1ms, never 0 (which is none)");
    j.runtime_ns = 0;
    ok(fio_job_text(&j, FIO_MEASURED, "/f", buf, sizeof buf, &err) == 0 && !strstr(buf, "time_based") &&
       !strstr(buf, "runtime"), "no --duration: one pass, not time_based");
    ok(fio_rw_reads(FIO_READWRITE) && fio_rw_writes(FIO_READWRITE) && fio_rw_reads(FIO_RANDRW) &&
       fio_rw_writes(FIO_RANDRW), "readwrite and randrw read and write");
    ok(!fio_rw_writes(FIO_RANDREAD) && !fio_rw_reads(FIO_RANDWRITE) && fio_rw_reads(FIO_READ) &&
       fio_rw_writes(FIO_WRITE), "  the others one way");
    ok(fio_engine_async(FIO_IO_URING) && fio_engine_async(FIO_LIBAIO) && !fio_engine_async(FIO_PSYNC) &&
       !fio_engine_async(FIO_MMAP), "an iodepth only for io_uring, libaio and posixaio");
    ok(!strcmp(fio_rw_words[FIO_RANDRW], "randrw") && !fio_rw_words[FIO_RANDRW + 1] &&
       !strcmp(fio_engine_words[FIO_MMAP], "mmap") && !fio_engine_words[FIO_MMAP + 1], "the words match the enums");
}

int main(void)
{
    sizing();
    paths();
    texts();
    return done_testing();
}
