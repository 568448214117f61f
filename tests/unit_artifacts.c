/* The artifact store's tokens: the guest's token disk found by its serial
 * and its first line judged (labs/guest_token.c), the token file rules
 * both token keys share (labs/token_file.c), and PUTs to the lab's own
 * store (tools/lava-lab/artifacts.py, run as nobody on a loopback port):
 * the token given for a store sent to it and only to it, in a header, a
 * guest's token only for its names, each refusal in words that never
 * hold a token. */
#include "tests/tap.h"
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "labs/artifacts.h"
#include "labs/guest_token.h"
#include "labs/token_file.h"
#include "lib/fileio.h"
#include "lib/spawn.h"

static char dir[] = "/tmp/pressmark-unit.XXXXXX";
static const char main_tok[] = "0123456789abcdef0123456789abcdef", guest_tok[] = "guest-token_0123456789+/~.";

static void bail(const char *what)
{
    tap_diag("Bail out! %s", what);
    exit(1);
}

static void write_bytes(const char *path, const char *data, size_t n, mode_t mode)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (fd < 0 || write(fd, data, n) != (ssize_t)n || fchmod(fd, mode) < 0 || close(fd) < 0)
        bail(path);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    write_bytes(path, text, strlen(text), mode);
}

/* sys/vdNAME/serial and dev/vdNAME: a disk as the guest's kernel shows it. */
static void disk(const char *name, const char *serial, const char *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sys/%s", dir, name);
    if (mkdir(path, 0700) < 0 && errno != EEXIST)
        bail(path);
    snprintf(path, sizeof path, "%s/sys/%s/serial", dir, name);
    write_file(path, serial, 0600);
    snprintf(path, sizeof path, "%s/dev/%s", dir, name);
    write_bytes(path, data, n, 0600);
}

static int find(char *tok, struct pm_err *err)
{
    char sys[256], dev[256];
    snprintf(sys, sizeof sys, "%s/sys", dir);
    snprintf(dev, sizeof dev, "%s/dev", dir);
    err->msg[0] = '\0';
    return lava_guest_token_find(sys, dev, tok, 600, err);
}

static void test_guest_disk(void)
{
    char sys[256], dev[256], tok[600];
    struct pm_err err;
    snprintf(sys, sizeof sys, "%s/sys", dir);
    snprintf(dev, sizeof dev, "%s/dev", dir);
    if (mkdir(sys, 0700) < 0 || mkdir(dev, 0700) < 0)
        bail("mkdir sys, dev");
    ok(find(tok, &err) == 0 && tok[0] == '\0', "no disk: no token, no error (%s)", err.msg);
    disk("vda", "root-disk\n", "0123456789abcdefXYZ\n", 20);
    disk("sda", "pressmark-token\n", "0123456789abcdefXYZ\n", 20);
    ok(find(tok, &err) == 0, "a vd disk of another serial, an sd disk of that serial: none (%s)", err.msg);
    /* As tools/lava-lab.sh makes it: the token's line, padded with NULs. */
    char img[4096] = { 0 };
    snprintf(img, sizeof img, "%s\n", guest_tok);
    disk("vdb", "pressmark-token\n", img, sizeof img);
    ok(find(tok, &err) == 1 && strcmp(tok, guest_tok) == 0, "the disk of serial pressmark-token: its first line (%s)",
       err.msg);
    memset(img, 0, sizeof img);
    memcpy(img, guest_tok, strlen(guest_tok));
    disk("vdb", "pressmark-token", img, sizeof img);
    ok(find(tok, &err) == 1 && strcmp(tok, guest_tok) == 0, "ended by a NUL, its serial without a newline (%s)",
       err.msg);
    const char *bad[][2] = { { "short-token\n", "shorter than 16" }, { "0123456789abcdef 12\n", "a blank" },
                             { "0123456789abcdef\"x\n", "a quote" }, { "", "empty" } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        disk("vdb", "pressmark-token\n", bad[i][0], strlen(bad[i][0]));
        ok(find(tok, &err) == -1 && strstr(err.msg, "its first line is not a token (accepted: 16 to 512") &&
           tok[0] == '\0' && (!bad[i][0][0] || !strstr(err.msg, "0123456789abcdef")),
           "%s: refused, the text not in the message: %s", bad[i][1], err.msg);
    }
    memset(img, 'a', 513);
    disk("vdb", "pressmark-token\n", img, 600);
    ok(find(tok, &err) == -1 && strstr(err.msg, "longer than 512 bytes") && !strstr(err.msg, "aaaa"),
       "a first line of 513 bytes: refused: %s", err.msg);
    memset(img, 'a', 512);
    img[512] = '\n';
    disk("vdb", "pressmark-token\n", img, 600);
    ok(find(tok, &err) == 1 && strlen(tok) == 512, "one of 512: taken (%s)", err.msg);
}

static const struct token_rule rule = { .key = "k-file", .chars = "abcdef0123456789", .min = 16, .max = 40,
                                        .accepted = "accepted: hex" };

static void test_token_file(void)
{
    char f[256], link[256], tok[64];
    struct pm_err err = { "" };
    snprintf(f, sizeof f, "%s/tok", dir);
    snprintf(link, sizeof link, "%s/tok-link", dir);
    write_file(f, "0123456789abcdef0\n", 0640);
    ok(token_file_read(&rule, f, tok, sizeof tok, &err) == -1 && strstr(err.msg, "k-file = ") &&
       strstr(err.msg, "readable by others (mode 0640)") && !strstr(err.msg, "0123456789abcdef0"),
       "group-readable: refused by the key's name, the text not echoed: %s", err.msg);
    chmod(f, 0604);
    ok(token_file_read(&rule, f, tok, sizeof tok, &err) == -1 && strstr(err.msg, "readable by others (mode 0604)"),
       "world-readable: refused: %s", err.msg);
    chmod(f, 0600);
    ok(token_file_read(&rule, f, tok, sizeof tok, &err) == 0 && strcmp(tok, "0123456789abcdef0") == 0,
       "0600: taken, without its newline (%s)", err.msg);
    if (symlink(f, link) < 0)
        bail("symlink");
    ok(token_file_read(&rule, link, tok, sizeof tok, &err) == -1 && strstr(err.msg, "a symbolic link"),
       "a link to it: refused: %s", err.msg);
    write_file(f, "0123456789abcde\n", 0600);
    ok(token_file_read(&rule, f, tok, sizeof tok, &err) == -1 && strstr(err.msg, "shorter than 16 characters; accepted: hex"),
       "under min: refused: %s", err.msg);
    write_file(f, "0123456789abcdef0123456789abcdef0123456789\n", 0600);
    ok(token_file_read(&rule, f, tok, sizeof tok, &err) == -1 && strstr(err.msg, "longer than 40 characters"),
       "over max: refused: %s", err.msg);
}

static pid_t store_pid;
static unsigned store_port;

/* artifacts.py as the lab runs it: root's token files, dropped to nobody. */
static bool start_store(void)
{
    struct passwd *pw = getpwnam("nobody");
    if (geteuid() != 0 || !pw)
        return false;
    char root[256], tmain[256], tguest[256], portf[256], port[16];
    snprintf(root, sizeof root, "%s/store", dir);
    snprintf(tmain, sizeof tmain, "%s/main.token", dir);
    snprintf(tguest, sizeof tguest, "%s/guest.token", dir);
    snprintf(portf, sizeof portf, "%s/store.port", dir);
    write_file(tmain, main_tok, 0600);
    write_file(tguest, guest_tok, 0600);
    if (mkdir(root, 0755) < 0 || chown(root, pw->pw_uid, pw->pw_gid) < 0)
        bail("the store's directory");
    char *const argv[] = { "/usr/bin/python3", "tools/lava-lab/artifacts.py", "--root", root, "--user", "nobody",
                           "--token-file", tmain, "--guest-token-file", tguest, "--guest-names",
                           "pressmark/results-*.tar", "smoke/*", "--bind", "127.0.0.1", "--port", "0",
                           "--port-file", portf, NULL };
    struct pm_spawn sp = { .argv = argv, .out = PM_FD_NULL, .err = PM_FD_NULL, .die_with_parent = true };
    struct pm_err err;
    if (pm_spawn(&sp, &store_pid, &err) < 0)
        bail(err.msg);
    for (int i = 0; i < 400; i++) {
        if (pm_read_file(portf, port, sizeof port) == 0 && (store_port = (unsigned)strtoul(port, NULL, 10)))
            return true;
        nanosleep(&(struct timespec){ 0, 25000000 }, NULL);
    }
    bail("tools/lava-lab/artifacts.py did not start");
    return false;
}

static bool no_token_in(const char *msg)
{
    return !strstr(msg, main_tok) && !strstr(msg, guest_tok);
}

static void test_puts(const char *src)
{
    char store[64], url[160], other[64];
    struct pm_err err = { "" };
    snprintf(store, sizeof store, "http://127.0.0.1:%u", store_port);
    snprintf(url, sizeof url, "%s/pressmark/a-vmlinuz", store);
    ok(artifact_put(url, src, &err) == -1 && strstr(err.msg, "answered HTTP 401 to a PUT: the store wants a token "
       "(accepted: lava-artifacts-token-file"), "no token given: a 401 that names the key: %s", err.msg);
    snprintf(other, sizeof other, "%s/press", store);
    artifact_store_token(other, main_tok);
    ok(artifact_put(url, src, &err) == -1 && strstr(err.msg, "HTTP 401"),
       "a token for another path of the host (/press, not /pressmark): not sent: %s", err.msg);
    snprintf(other, sizeof other, "http://127.0.0.1:%u0", store_port);
    artifact_store_token(other, main_tok);
    ok(artifact_put(url, src, &err) == -1 && strstr(err.msg, "HTTP 401"), "nor for another port: %s", err.msg);
    artifact_store_token(store, main_tok);
    ok(artifact_put(url, src, &err) == 0, "the store's token for the store: 201 (%s)", err.msg);
    ok(artifact_put(url, src, &err) == -1 && strstr(err.msg, "HTTP 409 to a PUT: the name is taken") &&
       no_token_in(err.msg), "again: a 409 in words: %s", err.msg);
    artifact_store_token(NULL, NULL);
    ok(artifact_put_bearer(url, src, "wrong-token-0123456789", &err) == -1 &&
       strstr(err.msg, "HTTP 401 to a PUT: the store does not take this token") && !strstr(err.msg, "wrong-token"),
       "a wrong token: a 401 that names the store's token file, not the token: %s", err.msg);
    snprintf(url, sizeof url, "%s/pressmark/b-vmlinuz", store);
    ok(artifact_put_bearer(url, src, guest_tok, &err) == -1 &&
       strstr(err.msg, "HTTP 403 to a PUT: this token may not write this name") && no_token_in(err.msg),
       "the guest's token outside its names: a 403: %s", err.msg);
    snprintf(url, sizeof url, "%s/pressmark/results-x-kernel0-ab.tar", store);
    ok(artifact_put_bearer(url, src, guest_tok, &err) == 0, "the guest's token for its results: 201 (%s)", err.msg);
    char path[256];
    snprintf(path, sizeof path, "%s/store/pressmark/results-x-kernel0-ab.tar", dir);
    ok(pm_path_exists(path), "  and the store has them");
}

int main(void)
{
    if (!mkdtemp(dir))
        bail("mkdtemp");
    test_guest_disk();
    test_token_file();
    if (start_store()) {
        char src[256];
        snprintf(src, sizeof src, "%s/src.bin", dir);
        write_file(src, "the bytes of a kernel\n", 0644);
        test_puts(src);
        struct pm_err err;
        int status;
        if (kill(store_pid, SIGTERM) < 0 || pm_wait(store_pid, &status, &err) < 0)
            bail("cannot stop the store");
    } else {
        ok(1, "# SKIP PUTs to the lab's store: it needs root (it drops root for nobody) and the user nobody");
    }
    if (pm_remove_all(dir) < 0)
        bail("cannot remove the test directory");
    return done_testing();
}
