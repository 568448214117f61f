/* run fio's pure parts: the data set against the cap, the file's size in
 * blocks, the paths a job file may name, the job files' text, line by
 * line (what fio is handed is pressmark's own words and numbers), and the
 * bytes fio's JSON says a run moved, against real fio 3.33 output
 * (tests/fixtures/figures/). */
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "workloads/dataset.h"
#include "workloads/fio_job.h"

#define FX "tests/fixtures/figures/"

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
    /* Each alone after an accepted "/tmp/a": a list of files, a variable,
     * another option, a blank, a comment, an escape, fio's %-expansion, an
     * assignment, a section's comment, a tab, quotes, a list's comma, a
     * home directory, a byte that is not ASCII; and nothing at all. */
    const char *const bad[] = { "/tmp/a:b", "/tmp/$HOME", "/tmp/a\nrw=write", "/tmp/a b", "/tmp/a;b", "/tmp/a\\b",
                                "/tmp/a%b", "/tmp/a=b", "/tmp/a#b", "/tmp/a\tb", "/tmp/a\"b", "/tmp/a'b",
                                "/tmp/a,b", "/tmp/~a", "/tmp/a\xc3\xa9", "" };
    const char *const said[] = { "colon", "dollar", "newline", "blank", "semicolon", "backslash", "percent sign",
                                 "equals sign", "hash", "tab", "double quote", "single quote", "comma", "tilde",
                                 "non-ASCII byte", "nothing" };
    ok(fio_job_path_ok("/tmp/a") && fio_job_path_ok("/tmp/ab"), "  (the path each is put in is accepted alone)");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ok(!fio_job_path_ok(bad[i]), "refused: a path with a %s", said[i]);
    struct fio_job j = { .size = 8192, .bs = 4096, .numjobs = 1, .iodepth = 1 };
    char buf[FIO_JOB_TEXT_MAX];
    struct pm_err err;
    ok(fio_job_text(&j, FIO_MEASURED, "/tmp/a:b", buf, sizeof buf, &err) < 0, "fio_job_text refuses it too");
    is_str(err.msg, "'/tmp/a:b' cannot go into a fio job file (accepted: a path of letters, digits and . _ + - /)",
           "  saying what is accepted");
}

/* The buffer's edge: a job that needs L bytes and its NUL fits in L + 1,
 * identical to what a large buffer holds, and not in L. */
static void edges(void)
{
    struct fio_job j = { .size = 8192, .bs = 4096, .rw = FIO_RANDREAD, .numjobs = 1, .iodepth = 1 };
    char big[4096], fit[4096];
    struct pm_err err;
    for (int phase = FIO_LAYOUT; phase <= FIO_MEASURED; phase++) {
        ok(fio_job_text(&j, phase, "/tmp/f", big, sizeof big, &err) == 0, "phase %d into a large buffer", phase);
        size_t L = strlen(big);
        memset(fit, 'x', sizeof fit);
        ok(fio_job_text(&j, phase, "/tmp/f", fit, L, &err) < 0, "  not into %zu bytes (its length)", L);
        char want[96];
        snprintf(want, sizeof want, "internal: fio's job file is longer than %zu bytes", L);
        is_str(err.msg, want, "  saying so");
        ok(fio_job_text(&j, phase, "/tmp/f", fit, L + 1, &err) == 0 && strcmp(fit, big) == 0,
           "  into %zu bytes (its length and the NUL), the same text", L + 1);
    }
    /* The longest job (every line, the largest numbers) with the longest
     * path the check lets through fits FIO_JOB_TEXT_MAX. */
    struct fio_job most = { .size = UINT64_MAX, .bs = UINT64_MAX, .runtime_ns = UINT64_MAX - 1000000,
                            .rw = FIO_RANDRW, .engine = FIO_POSIXAIO, .numjobs = 4294967295u,
                            .iodepth = 4294967295u };
    char path[FIO_PATH_MAX], text[FIO_JOB_TEXT_MAX];
    memset(path, 'p', sizeof path - 1);
    path[0] = '/';
    path[sizeof path - 1] = '\0';
    ok(fio_job_text(&most, FIO_MEASURED, path, text, sizeof text, &err) == 0 &&
       fio_job_text(&most, FIO_LAYOUT, path, text, sizeof text, &err) == 0,
       "the longest job with a %zu-byte path fits FIO_JOB_TEXT_MAX (%d)", strlen(path), FIO_JOB_TEXT_MAX);
}

static void texts(void)
{
    struct fio_job j = { .size = 96u << 20, .bs = 4096, .rw = FIO_RANDREAD, .engine = FIO_PSYNC, .numjobs = 2,
                         .iodepth = 1, .runtime_ns = 1500000000ull };
    char buf[FIO_JOB_TEXT_MAX];
    struct pm_err err;
    ok(fio_job_text(&j, FIO_LAYOUT, "/tmp/d/pm-fio.data", buf, sizeof buf, &err) == 0, "the layout job");
    is_str(buf,
           "; pressmark run fio, the layout phase: the file written once, start to end, and synced.\n"
           "; Written by pressmark from numbers and fixed words.\n"
           "[layout]\nsize=100663296\nbs=1048576\nrw=write\nioengine=psync\ndirect=0\ninvalidate=0\nend_fsync=1\n"
           "thread=1\nfilename=/tmp/d/pm-fio.data\n",
           "  writes every byte once in 1M blocks, buffered, keeps what is cached, syncs at the end, one process");
    ok(fio_job_text(&j, FIO_MEASURED, "/tmp/d/pm-fio.data", buf, sizeof buf, &err) == 0, "the measured job");
    is_str(buf,
           "; pressmark run fio, the measured phase: buffered I/O over the file the layout phase wrote,\n"
           "; its cached pages kept. Written by pressmark from numbers and fixed words.\n"
           "[measured]\nsize=100663296\nbs=4096\nrw=randread\nioengine=psync\niodepth=1\nnumjobs=2\n"
           "direct=0\ninvalidate=0\ngroup_reporting=1\nthread=1\nrandom_distribution=random\nnorandommap=1\n"
           "time_based=1\nruntime=1500ms\nfilename=/tmp/d/pm-fio.data\n",
           "  randread for 1.5 s: uniform, no random map (the MGLRU letter's), direct=0, invalidate=0, one report, "
           "its jobs threads of one process");
    j = (struct fio_job){ .size = 8192, .bs = 4096, .rw = FIO_READ, .engine = FIO_IO_URING, .numjobs = 1,
                          .iodepth = 32, .runtime_ns = 1 };
    ok(fio_job_text(&j, FIO_MEASURED, "/f", buf, sizeof buf, &err) == 0, "a sequential read with io_uring");
    ok(!strstr(buf, "random_distribution") && !strstr(buf, "norandommap"), "  has no random lines");
    ok(strstr(buf, "\nrw=read\n") && strstr(buf, "\nioengine=io_uring\n") && strstr(buf, "\niodepth=32\n"),
       "  its mode, engine and depth");
    ok(strstr(buf, "\nthread=1\n") != NULL, "  its jobs threads of one process");
    ok(strstr(buf, "\nruntime=1ms\n") != NULL, "  a duration below a millisecond is 1ms, never 0 (which is none)");
    j.runtime_ns = 0;
    ok(fio_job_text(&j, FIO_MEASURED, "/f", buf, sizeof buf, &err) == 0 && !strstr(buf, "time_based") &&
       !strstr(buf, "runtime"), "no --duration: one pass, not time_based");
}

/* Every value of both enums against its word and what it is. */
static void words(void)
{
    static const struct {
        unsigned v;
        const char *word;
        bool reads, writes;
    } rw[] = { { FIO_READ, "read", true, false },           { FIO_RANDREAD, "randread", true, false },
               { FIO_WRITE, "write", false, true },         { FIO_RANDWRITE, "randwrite", false, true },
               { FIO_READWRITE, "readwrite", true, true }, { FIO_RANDRW, "randrw", true, true } };
    size_t n = sizeof rw / sizeof rw[0];
    for (size_t i = 0; i < n; i++)
        ok(rw[i].v == i && fio_rw_words[i] && strcmp(fio_rw_words[i], rw[i].word) == 0 &&
           fio_rw_reads(rw[i].v) == rw[i].reads && fio_rw_writes(rw[i].v) == rw[i].writes,
           "--rw %s: value %zu, %s%s", rw[i].word, i, rw[i].reads ? "reads " : "", rw[i].writes ? "writes" : "");
    ok(fio_rw_words[n] == NULL, "  and no word after randrw");
    static const struct {
        unsigned v;
        const char *word;
        bool async;
    } eng[] = { { FIO_PSYNC, "psync", false },      { FIO_SYNC, "sync", false },
                { FIO_PVSYNC, "pvsync", false },    { FIO_PVSYNC2, "pvsync2", false },
                { FIO_IO_URING, "io_uring", true }, { FIO_LIBAIO, "libaio", true },
                { FIO_POSIXAIO, "posixaio", true }, { FIO_MMAP, "mmap", false } };
    n = sizeof eng / sizeof eng[0];
    for (size_t i = 0; i < n; i++)
        ok(eng[i].v == i && fio_engine_words[i] && strcmp(fio_engine_words[i], eng[i].word) == 0 &&
           fio_engine_async(eng[i].v) == eng[i].async, "--ioengine %s: value %zu, %s", eng[i].word, i,
           eng[i].async ? "an iodepth" : "one I/O at a time");
    ok(fio_engine_words[n] == NULL, "  and no word after mmap");
}

/* text with the first "from" replaced by "to" (malloc'd). */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        return NULL;
    size_t a = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to);
    char *s = malloc(n + 1);
    if (s)
        snprintf(s, n + 1, "%.*s%s%s", (int)a, text, to, at + strlen(from));
    return s;
}

static void io_bytes(void)
{
    size_t len;
    char *two = slurp(FX "fio-3.33.json", &len), *same = slurp(FX "fio-3.33-numjobs.json", &len);
    char *cut = slurp(FX "fio-3.33-truncated.json", &len);
    struct fio_job j = { .rw = FIO_RANDRW, .numjobs = 1, .runtime_ns = 1 };
    uint64_t b[2];
    char why[256];
    ok(fio_io_bytes(two, &j, b, why, sizeof why) == 0 && b[0] == 15654912 && b[1] == 1668771840,
       "fio-3.33.json, a reader and a writer: read 15654912, wrote 1668771840 (%llu, %llu)",
       (unsigned long long)b[0], (unsigned long long)b[1]);
    j.rw = FIO_RANDWRITE;
    ok(fio_io_bytes(same, &j, b, why, sizeof why) == 0 && b[0] == 0 && b[1] == 516947968ull + 512671744ull,
       "fio-3.33-numjobs.json, two writers: their io_bytes summed (%llu), no reads counted", (unsigned long long)b[1]);
    j.rw = FIO_RANDREAD;
    ok(fio_io_bytes(two, &j, b, why, sizeof why) == 0 && b[0] == 15654912 && b[1] == 0,
       "  a read mode counts only reads");
    char *text = replaced(two, "\"io_bytes\" : 15654912", "\"io_byte\" : 15654912");
    ok(fio_io_bytes(text, &j, b, why, sizeof why) < 0 && b[0] == 0, "a job without read.io_bytes: refused");
    is_str(why, "no read.io_bytes in fio's JSON (job 0)", "  naming it and the job");
    free(text);
    text = replaced(two, "\"io_bytes\" : 15654912", "\"io_bytes\" : -4096");
    ok(fio_io_bytes(text, &j, b, why, sizeof why) < 0, "a negative io_bytes: refused");
    is_str(why, "fio's JSON has read.io_bytes -4096 (job 0): not a count of bytes", "  saying so");
    free(text);
    text = replaced(two, "\"io_bytes\" : 15654912", "\"io_bytes\" : 15654912.5");
    ok(fio_io_bytes(text, &j, b, why, sizeof why) < 0, "a fraction of a byte: refused (%s)", why);
    free(text);
    j.rw = FIO_WRITE;
    text = replaced(two, "\"io_bytes\" : 1668771840", "\"io_bytes\" : \"1668771840\"");
    ok(fio_io_bytes(text, &j, b, why, sizeof why) < 0, "a string: refused (%s)", why);
    is_str(why, "no write.io_bytes in fio's JSON (job 1)", "  the second job named");
    free(text);
    ok(fio_io_bytes(cut, &j, b, why, sizeof why) < 0 && strstr(why, "JSON of fio --output-format=json"),
       "a JSON cut short: refused (%s)", why);
    ok(fio_io_bytes("{\"jobs\": []}", &j, b, why, sizeof why) < 0, "no jobs: refused");
    is_str(why, "fio's JSON has no jobs", "  saying so");
    free(two);
    free(same);
    free(cut);
}

static void passes(void)
{
    struct fio_job j = { .size = 96u << 20, .bs = 4096, .rw = FIO_RANDREAD, .numjobs = 1 };
    char why[256];
    uint64_t b[2] = { 96u << 20, 0 };
    ok(fio_pass_check(&j, b, why, sizeof why) == 0, "one pass read the file once: accepted");
    b[0] -= 4096;
    ok(fio_pass_check(&j, b, why, sizeof why) < 0, "a block short: refused");
    is_str(why, "one pass of 1 job over 100663296 bytes read 100659200 bytes, not 100663296", "  saying what it read");
    j.numjobs = 2;
    b[0] = 96u << 20;
    ok(fio_pass_check(&j, b, why, sizeof why) < 0, "two jobs must read it twice");
    b[0] = 192u << 20;
    ok(fio_pass_check(&j, b, why, sizeof why) == 0, "  and do");
    j = (struct fio_job){ .size = 96u << 20, .bs = 4096, .rw = FIO_RANDRW, .numjobs = 1 };
    b[0] = 40u << 20;
    b[1] = 56u << 20;
    ok(fio_pass_check(&j, b, why, sizeof why) == 0, "randrw: reads and writes together are the file");
    b[1] = 0;
    ok(fio_pass_check(&j, b, why, sizeof why) < 0 && strstr(why, "read and wrote 41943040 bytes"),
       "  not the reads alone (%s)", why);
    j.rw = FIO_RANDWRITE;
    b[0] = 96u << 20;
    ok(fio_pass_check(&j, b, why, sizeof why) < 0 && strstr(why, "wrote 0 bytes"), "randwrite counts its writes (%s)",
       why);
    j.runtime_ns = 1000000000ull;
    ok(fio_pass_check(&j, b, why, sizeof why) == 0, "a time-based run moves what it moves");
}

int main(void)
{
    sizing();
    paths();
    edges();
    texts();
    words();
    io_bytes();
    passes();
    return done_testing();
}
