/* run fio --ramdisk's pure parts (pressure/ramdisk.h) and the journal's
 * rules for its lines: a brd someone else has (its /sys/module entry, a
 * /dev/ram0) refused, shown on decoys in a directory of the test's own;
 * the room ext4 leaves on a ramdisk and the smallest ramdisk for a file;
 * which ramdisk mount points and modules a journal line may name; and
 * which load of brd a line's identity is. The real brd is loaded,
 * formatted, mounted and undone in a 6.12 guest
 * (tests/slow/t62-fio-mglru.t). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tests/tap.h"
#include "pressure/ramdisk.h"
#include "pressure/undo_line.h"

static void taken(void)
{
    char root[] = "/tmp/pressmark-test.unit-ramdisk.XXXXXX", p[256], why[256] = "";
    if (!mkdtemp(root)) {
        ok(0, "mkdtemp: %s", strerror(errno));
        return;
    }
    char dev[256], sys[256];
    snprintf(dev, sizeof dev, "%s/dev", root);
    snprintf(sys, sizeof sys, "%s/sys", root);
    snprintf(p, sizeof p, "%s/sys/module", root);
    ok(mkdir(dev, 0700) == 0 && mkdir(sys, 0700) == 0 && mkdir(p, 0700) == 0, "decoy /dev and /sys/module");
    ok(ramdisk_taken(root, why, sizeof why) == 0, "no brd and no /dev/ram0: a ramdisk may be made");
    snprintf(p, sizeof p, "%s/sys/module/brd", root);
    ok(mkdir(p, 0700) == 0 && ramdisk_taken(root, why, sizeof why) < 0, "a brd in /sys/module is refused");
    ok(strstr(why, "brd is loaded already") && strstr(why, "only a brd it loaded itself"), "  saying whose it may be: %s",
       why);
    rmdir(p);
    snprintf(p, sizeof p, "%s/dev/ram0", root);
    FILE *f = fopen(p, "w");
    ok(f && fclose(f) == 0 && ramdisk_taken(root, why, sizeof why) < 0, "a /dev/ram0 without brd is refused");
    ok(strstr(why, "/dev/ram0 exists already") != NULL, "  saying so: %s", why);
    unlink(p);
    snprintf(p, sizeof p, "%s/dev/ram0", root);
    ok(symlink("/dev/null", p) == 0 && ramdisk_taken(root, why, sizeof why) < 0, "  and so is a link there");
    unlink(p);
    snprintf(p, sizeof p, "%s/sys/module", root);
    rmdir(p);
    rmdir(sys);
    rmdir(dev);
    ok(rmdir(root) == 0, "the decoys are gone");
}

static void rooms(void)
{
    const uint64_t M = 1ull << 20;
    is_num(ramdisk_room(64 * M), 54 * M, 0, "64M: 2M of tables, 4M of the rest, a 4M journal");
    is_num(ramdisk_room(448 * M), 448 * M - 14 * M - 4 * M - 16 * M, 0, "448M: a 16M journal");
    is_num(ramdisk_room(3ull << 30), (3ull << 30) - 96 * M - 4 * M - 64 * M, 0, "3G: a 64M journal");
    is_num(ramdisk_room(108ull << 30), (108ull << 30) - (108ull << 30) / 32 - 4 * M - (1ull << 30), 0,
           "the cover letter's 108G: a 1G journal at most");
    is_num(ramdisk_room(4 * M), 0, 0, "less than the tables take: no room");
    /* The smallest ramdisk for a file holds it, and a MiB less does not
     * (above the smallest ramdisk of all). */
    const uint64_t files[] = { 1, 10 * M, 54 * M, 55 * M, 96 * M, 352 * M, 2816 * M, 16ull << 30, 99ull << 30 };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        uint64_t s = ramdisk_for(files[i]);
        ok(s % M == 0 && ramdisk_room(s) >= files[i] && (s == PM_RAMDISK_MIN || ramdisk_room(s - M) < files[i]),
           "a file of %llu bytes: %llu MiB, the smallest that holds it", (unsigned long long)files[i],
           (unsigned long long)(s / M));
    }
}

static void lines(void)
{
    ok(undo_place_ours(UNDO_MODULE, "brd") && undo_place_ours(UNDO_MODULE, "zram"), "brd and zram are modules of ours");
    ok(!undo_place_ours(UNDO_MODULE, "ext4") && !undo_place_ours(UNDO_MODULE, "brd ") &&
       !undo_place_ours(UNDO_MODULE, ""), "  no other module, nor a name near one");
    ok(undo_place_ours(UNDO_RAMDISK, "/var/tmp/pressmark-fio.0a1b2c3d4e5f/ramdisk"), "a ramdisk in a scratch directory");
    const char *not[] = { "/var/tmp/ramdisk", "/var/tmp/pressmark-/ramdisk", "/var/tmp/pressmark-fio.x/ramdisk/x",
                          "/var/tmp/pressmark-fio.x/../ramdisk", "/var/tmp/pressmark-fio.x//ramdisk",
                          "/mnt/ramdisk2", "var/tmp/pressmark-fio.x/ramdisk", "/ramdisk", "/pressmark-fio.x/ram",
                          "/var/tmp/xpressmark-fio.x/ramdisk", "/var/tmp/pressmark-fio.x/./ramdisk" };
    for (size_t i = 0; i < sizeof not / sizeof not[0]; i++)
        ok(!undo_place_ours(UNDO_RAMDISK, not[i]), "  not %s", not[i]);
    ok(!undo_place_ours(UNDO_MOUNT, "/var/tmp/pressmark-fio.x/ramdisk"), "  nor as a build's mount");
    char buf[1200], a[UNDO_FIELD_MAX], b[UNDO_FIELD_MAX];
    enum undo_kind k;
    ok(undo_line_format(buf, sizeof buf, UNDO_MODULE, "brd", "ino=4242") > 0, "a module line with its identity");
    buf[strcspn(buf, "\n")] = '\0';
    ok(undo_line_parse(buf, &k, a, b) == 1 && k == UNDO_MODULE && strcmp(a, "brd") == 0 && strcmp(b, "ino=4242") == 0,
       "  reads back: %s", buf);
    ok(undo_line_parse("ramdisk\t/tmp/pressmark-fio.ab/ramdisk", &k, a, b) == 1 && k == UNDO_RAMDISK,
       "a ramdisk line reads back");
    ok(undo_line_parse("ramdisk\t/tmp/decoy/ramdisk", &k, a, b) == -1, "  one outside a scratch directory is refused");
}

static void loads(void)
{
    ok(undo_module_load_is("ino=4242", 4242), "the load whose inode the line has is pressmark's");
    ok(!undo_module_load_is("ino=4242", 4243), "  another load is not");
    ok(undo_module_load_is("", 7), "  a line without one (zram's) names whichever is loaded");
    const char *bad[] = { "ino=", "ino=x", "ino=42x", "ino=-1", "ino= 42", "inode=42", "42", "ino=042",
                          "ino=123456789012345678901" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ok(!undo_module_load_is(bad[i], 42), "  '%s' names no load of pressmark's", bad[i]);
}

int main(void)
{
    taken();
    rooms();
    lines();
    loads();
    return done_testing();
}
