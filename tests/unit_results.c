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
               "t = tarfile.open(sys.argv[1], '%s', format=tarfile.GNU_FORMAT)\n"
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
    snprintf(cmd, sizeof cmd, "python3 %s %s", script, path);
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
        n += e->d_name[0] != '.';
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

int main(void)
{
    snprintf(base, sizeof base, "/tmp/pressmark-unit.XXXXXX");
    if (!mkdtemp(base)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    char img[128], dir[128], path[256];

    /* What the guest init writes: taken, each a private regular file. */
    snprintf(img, sizeof img, "%s/good.img", base);
    fresh_dir(dir, sizeof dir, "good");
    ok(make_archive(img, "special('.', tarfile.DIRTYPE, mode=0o777)\n"
                         "reg('./results.db', b'SQLite format 3\\0' + bytes(100))\n"
                         "reg('./status', b'0\\n', mode=0o4755, uid=0, gid=0)\n"
                         "reg('./guest.log', b'log\\n' * 1000)\n"
                         "reg('./dmesg.txt', b'dmesg\\n')", "w") == 0, "good: the archive is made");
    struct pm_err err = { "" };
    ok(results_unpack(img, dir, &err) == 0, "good: unpacked (%s)", err.msg);
    is_num(entries(dir), 4, 0, "good: its four files");
    struct stat st;
    snprintf(path, sizeof path, "%s/status", dir);
    ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600,
       "good: a setuid member is written 0600 (mode %o)", (unsigned)(st.st_mode & 07777));
    snprintf(path, sizeof path, "%s/guest.log", dir);
    ok(lstat(path, &st) == 0 && st.st_size == 4000, "good: its bytes exactly (guest.log %lld of 4000)",
       (long long)st.st_size);
    ok(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700, "good: a './' member of mode 0777 leaves the directory 0700");

    /* What a hostile or broken guest could write instead. */
    refused("symlink", "special('results.db', tarfile.SYMTYPE, linkname='/etc/shadow')", "w", "is a symbolic link");
    refused("hardlink", "reg('status', b'0')\nspecial('results.db', tarfile.LNKTYPE, linkname='status')", "w",
            "is a hard link");
    refused("device", "special('guest.log', tarfile.CHRTYPE, devmajor=1, devminor=3)", "w", "is a character device");
    refused("fifo", "special('status', tarfile.FIFOTYPE)", "w", "is a FIFO");
    refused("subdir", "special('results.db', tarfile.DIRTYPE)", "w", "is a directory");
    refused("other-name", "reg('evil.sh', b'#!/bin/sh\\n')", "w", "member 'evil.sh' is not one the guest writes");
    refused("traversal", "reg('../results.db', b'x')", "w", "member '../results.db' is not one the guest writes");
    refused("absolute", "reg('/tmp/results.db', b'x')", "w", "is not one the guest writes");
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
    return tap_failed ? 1 : 0 * printf("1..%d\n", tap_n);
}
