/* A guest's results archive (kernels/results.h), read as a hostile guest
 * would write it. Each archive is made by python3's tarfile in this test's
 * own directory, then unpacked into a private directory of its own, as a
 * boot's: what is refused leaves nothing, what is taken is a regular file
 * of a known name, 0600, its bytes exactly; nothing is ever made outside
 * the directory, a FIFO never blocks, a compressed archive never expands. */
#include "tests/tap.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels/results.h"
#include "lib/fileio.h"

static char base[64];

/* Make an archive with python: BODY adds members to the TarFile t. The
 * script goes into a file of its own: no shell quoting in between. */
static int make_archive(const char *path, const char *body, const char *mode)
{
    char script[160], cmd[400];
    snprintf(script, sizeof script, "%s.py", path);
    FILE *f = fopen(script, "w");
    if (!f)
        return -1;
    fprintf(f, "import io, tarfile, sys\n"
               "B = sys.argv[2]  # this test's own directory, where every decoy lives\n"
               "fmt = tarfile.PAX_FORMAT if 'pax' in sys.argv[1] else tarfile.GNU_FORMAT\n"
               "t = tarfile.open(sys.argv[1], '%s', format=fmt)\n"
               "def reg(name, data, mode=0o644, **kw):\n"
               "    i = tarfile.TarInfo(name); i.size = len(data); i.mode = mode\n"
               "    for k, v in kw.items(): setattr(i, k, v)\n"
               "    t.addfile(i, io.BytesIO(data))\n"
               "def special(name, type, **kw):\n"
               "    i = tarfile.TarInfo(name); i.type = type\n"
               "    for k, v in kw.items(): setattr(i, k, v)\n"
               "    t.addfile(i)\n"
               "%s\n"
               "t.close()\n",
            mode, body);
    if (fclose(f) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "python3 %s %s %s", script, path, base);
    return system(cmd) == 0 ? 0 : -1;
}

/* A fresh private directory, like a boot's. */
static void fresh_dir(char *dir, size_t len, const char *name)
{
    snprintf(dir, len, "%s/%s", base, name);
    mkdir(dir, 0700);
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

/* The archive made from body is refused with a message matching want. */
static void refused(const char *name, const char *body, const char *mode, const char *want)
{
    char img[128], dir[128];
    snprintf(img, sizeof img, "%s/%s.img", base, name);
    fresh_dir(dir, sizeof dir, name);
    if (!ok(make_archive(img, body, mode) == 0, "%s: the archive is made", name))
        return;
    struct pm_err err = { "" };
    int rc = results_unpack(img, dir, &err);
    ok(rc < 0, "%s: refused", name);
    ok(strstr(err.msg, want) != NULL, "%s: saying \"%s\" (%s)", name, want, err.msg);
    is_num(entries(dir), 0, 0, "%s: nothing is left in the boot's directory", name);
    struct stat st;
    ok(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700, "%s: which stays 0700", name);
}

/* The decoy's bytes, as this test wrote them. */
static int decoy_intact(void)
{
    char path[128], buf[64] = "";
    snprintf(path, sizeof path, "%s/decoy", base);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return strcmp(buf, "a decoy of the test's own\n") == 0;
}

/* The good archive's members as its script writes them, byte for byte:
 * results.db's header then bytes 0 to 99, guest.log's numbered lines
 * (no two blocks alike: a member written from the wrong offset differs). */
static size_t good_bytes(size_t i, char *buf, size_t len)
{
    size_t n = 0;
    switch (i) {
    case 0:
        memcpy(buf, "SQLite format 3", 16);
        for (n = 16; n < 116; n++)
            buf[n] = (char)(n - 16);
        return n;
    case 1:
        memcpy(buf, "0\n", 2);
        return 2;
    case 2:
        for (int k = 0; k < 1000 && n < len; k++)
            n += (size_t)snprintf(buf + n, len - n, "log %d\n", k);
        return n;
    default:
        memcpy(buf, "dmesg\n", 6);
        return 6;
    }
}

int main(void)
{
    /* A reader that blocked (on a FIFO) fails the test instead of hanging it. */
    alarm(120);
    snprintf(base, sizeof base, "/tmp/pressmark-unit.XXXXXX");
    if (!mkdtemp(base)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    char img[128], dir[128], path[256];
    snprintf(path, sizeof path, "%s/decoy", base);
    FILE *dc = fopen(path, "w");
    if (!dc || fputs("a decoy of the test's own\n", dc) < 0 || fclose(dc) != 0) {
        printf("Bail out! decoy\n");
        return 1;
    }

    /* What the guest init writes: taken, each a private regular file. */
    snprintf(img, sizeof img, "%s/good.img", base);
    fresh_dir(dir, sizeof dir, "good");
    ok(make_archive(img, "special('.', tarfile.DIRTYPE, mode=0o777)\n"
                         "reg('./results.db', b'SQLite format 3\\0' + bytes(range(100)))\n"
                         "reg('./status', b'0\\n', mode=0o4755, uid=0, gid=0)\n"
                         "reg('./guest.log', b''.join(b'log %d\\n' % i for i in range(1000)))\n"
                         "reg('./dmesg.txt', b'dmesg\\n')", "w") == 0, "good: the archive is made");
    struct pm_err err = { "" };
    ok(results_unpack(img, dir, &err) == 0, "good: unpacked (%s)", err.msg);
    is_num(entries(dir), 4, 0, "good: its four files");
    struct stat st;
    snprintf(path, sizeof path, "%s/status", dir);
    /* (stat first: the message's mode is read after, whatever the order
     * ok()'s arguments are evaluated in) */
    bool got_st = lstat(path, &st) == 0;
    ok(got_st && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600,
       "good: a setuid member is written 0600 (mode %o)", got_st ? (unsigned)(st.st_mode & 07777) : 0u);
    static const char *const names[] = { "results.db", "status", "guest.log", "dmesg.txt" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char buf[16384], want[16384];
        size_t wlen = good_bytes(i, want, sizeof want);
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
        if (f)
            fclose(f);
        ok(n == wlen && memcmp(buf, want, wlen) == 0, "good: %s, its %zu bytes exactly (%zu read)", names[i], wlen, n);
    }
    ok(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700, "good: a './' member of mode 0777 leaves the directory 0700");

    /* What a hostile or broken guest could write instead. */
    refused("symlink", "special('results.db', tarfile.SYMTYPE, linkname=B + '/decoy')", "w", "is a symbolic link");
    /* The attack a link is for: a member of its name after it, written
     * through it into the decoy. */
    refused("through-link", "special('results.db', tarfile.SYMTYPE, linkname=B + '/decoy')\nreg('results.db', b'pwned')",
            "w", "is a symbolic link");
    ok(decoy_intact(), "through-link: the decoy the link points at is untouched");
    refused("hardlink", "reg('status', b'0')\nspecial('results.db', tarfile.LNKTYPE, linkname='status')", "w",
            "is a hard link");
    refused("device", "special('guest.log', tarfile.CHRTYPE, devmajor=1, devminor=3)", "w", "is a character device");
    refused("fifo", "special('status', tarfile.FIFOTYPE)", "w", "is a FIFO");
    refused("subdir", "special('results.db', tarfile.DIRTYPE)", "w", "is a directory");
    refused("other-name", "reg('evil.sh', b'#!/bin/sh\\n')", "w", "member 'evil.sh' is not one the guest writes");
    refused("traversal", "reg('../results.db', b'x')", "w", "member '../results.db' is not one the guest writes");
    snprintf(path, sizeof path, "%s/results.db", base);
    ok(access(path, F_OK) != 0, "traversal: nothing was written beside the boot's directory");
    refused("absolute", "reg(B + '/decoy', b'pwned')", "w", "is not one the guest writes");
    ok(decoy_intact(), "absolute: the decoy it names is untouched");
    refused("pax-path", "i = tarfile.TarInfo('status'); i.size = 1; i.pax_headers = {'path': '../pax-escape'}\n"
                        "t.addfile(i, io.BytesIO(b'0'))", "w", "member '../pax-escape' is not one the guest writes");
    refused("long-name", "reg('guest.log/' + 'x' * 200, b'x')", "w", "is not one the guest writes");
    refused("sparse", "i = tarfile.TarInfo('guest.log'); i.type = tarfile.GNUTYPE_SPARSE; i.size = 1 << 40\n"
                      "t.addfile(i)", "w", "member 'guest.log' is");
    refused("twice", "reg('status', b'0')\nreg('./status', b'1')", "w", "member './status' comes twice");
    refused("oversize", "reg('status', b'0' * 100)", "w", "member 'status' is larger than its 16 bytes");
    refused("gzip", "reg('guest.log', bytes(4 << 20))", "w:gz", "not a tar archive");
    refused("escape", "reg('x\\x1b]0;owned\\x07', b'x')", "w", "member 'x\\x1b]0;owned\\x07' is not one");
    /* After a good member, a bad one refuses the whole: the good is removed. */
    refused("late", "reg('results.db', b'SQLite format 3\\0')\nspecial('status', tarfile.FIFOTYPE)", "w", "is a FIFO");

    /* An archive that is not one, and no archive at all. */
    snprintf(img, sizeof img, "%s/noise.img", base);
    int fd = open(img, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ok(fd >= 0 && write(fd, "not a tar archive at all, just words\n", 37) == 37 && close(fd) == 0, "noise: written");
    fresh_dir(dir, sizeof dir, "noise");
    ok(results_unpack(img, dir, &err) < 0 && strstr(err.msg, "not a tar archive"), "noise: refused (%s)", err.msg);
    snprintf(img, sizeof img, "%s/pipe.img", base);
    ok(mkfifo(img, 0600) == 0, "an image that is a FIFO");
    ok(results_unpack(img, dir, &err) < 0 && strstr(err.msg, "not a regular file"), "is refused at once (%s)", err.msg);

    /* A boot directory that is not private is not written into. */
    fresh_dir(dir, sizeof dir, "open");
    chmod(dir, 0777);
    snprintf(img, sizeof img, "%s/good.img", base);
    ok(results_unpack(img, dir, &err) < 0 && strstr(err.msg, "not a private directory"), "an open boot directory: refused (%s)",
       err.msg);
    is_num(entries(dir), 0, 0, "  nothing written there");

    pm_remove_all(base);
    return done_testing();
}
