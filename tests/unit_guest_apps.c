/* The application packages a suite's guest gets: the union of its
 * group's cells' workloads' (exp_guest_apps), each once, in the order
 * first met, a group without any getting none, and a list that does not
 * fit cut between packages, never inside one; and base_image refusing a
 * list that is not Debian package names before it touches the cache. */
#include "tests/tap.h"
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "experiment/guest.h"
#include "kernels/base.h"
#include "lib/fileio.h"
#include "workloads/workload.h"

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void unions(void)
{
    struct suite_cell cells[5] = { 0 };
    const char *wl[] = { "chat", "redis", "memcached", "redis", "usemem" };
    const int group[] = { 0, 0, 0, 0, 1 };
    for (size_t i = 0; i < 5; i++) {
        cells[i].wl = workload_find(wl[i]);
        cells[i].group = group[i];
    }
    ok(cells[1].wl && cells[2].wl && cells[4].wl, "the workloads are found");
    struct suite_plan p = { .cells = cells, .ncells = 5, .ngroups = 2 };
    char buf[GUEST_APPS_MAX + 1];
    exp_guest_apps(&p, 0, buf, sizeof buf);
    is_str(buf, "redis-server,redis-tools,memcached", "group 0: redis's two and memcached's, each once, in order");
    exp_guest_apps(&p, 1, buf, sizeof buf);
    is_str(buf, "", "group 1 (usemem only): none");
    exp_guest_apps(&p, 2, buf, sizeof buf);
    is_str(buf, "", "a group without cells: none");
    char small[sizeof "redis-server,redis-tools"];
    exp_guest_apps(&p, 0, small, sizeof small);
    is_str(small, "redis-server,redis-tools", "a list that does not fit ends at a whole package");
    char mid[sizeof "redis-server,redis"];
    exp_guest_apps(&p, 0, mid, sizeof mid);
    is_str(mid, "redis-server", "  never inside a package");
    char tiny[sizeof "redis-server"];
    exp_guest_apps(&p, 0, tiny, sizeof tiny);
    is_str(tiny, "redis-server", "  however small");
    cells[1].wl = NULL;             /* the first redis cell's workload unknown */
    exp_guest_apps(&p, 0, buf, sizeof buf);
    is_str(buf, "memcached,redis-server,redis-tools", "a cell without a workload adds nothing (the next redis cell adds them)");
}

static void refusals(void)
{
    char dir[] = "/tmp/pressmark-unit.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        exit(1);
    }
    /* Should a list get through, its debootstrap is not found: it fails
     * here at once rather than fetching from the mirror. */
    if (setenv("PATH", "/nonexistent", 1) < 0) {
        printf("Bail out! setenv\n");
        exit(1);
    }
    const char *bad[] = { "redis;rm", "Redis-server", ",memcached", "memcached,", "memcached,,fio", "a",
                          "-f", "fio,../x", "fio memcached", "fio\nmemcached", "redis-server,x" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char base[4096];
        struct pm_err err = { 0 };
        int rc = base_image(dir, bad[i], base, sizeof base, NULL, &err);
        ok(rc == -1 && strstr(err.msg, "not a comma-separated list of Debian package names"), "bad list %zu (of %zu) is refused",
           i + 1, sizeof bad / sizeof bad[0]);
    }
    char longest[GUEST_APPS_MAX + 8];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    char base[4096];
    struct pm_err err = { 0 };
    ok(base_image(dir, longest, base, sizeof base, NULL, &err) == -1 && strstr(err.msg, "longer than 512"),
       "a list longer than GUEST_APPS_MAX is refused");
    is_num(entries(dir), 0, 0, "nothing was made in the cache");
    pm_remove_all(dir);
}

static bool present(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return pm_path_exists(path);
}

static void made(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mkdir(path, 0700) < 0) {
        printf("Bail out! %s\n", path);
        exit(1);
    }
}

/* What a new base drops. debootstrap is not found (refusals set PATH),
 * so each call fails after its pruning and names its base all the same. */
static void pruning(void)
{
    char dir[] = "/tmp/pressmark-unit.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        exit(1);
    }
    char base[4096], core[256];
    struct pm_err err;
    ok(base_image(dir, NULL, base, sizeof base, NULL, &err) == -1, "without debootstrap no base is made");
    snprintf(core, sizeof core, "%s", strrchr(base, '/') + 1);
    ok(strncmp(core, "base-", 5) == 0 && strlen(core) > 22, "the plain base's name: %s", core);
    char apps_of_core[300], old_core[300];
    snprintf(apps_of_core, sizeof apps_of_core, "%s-0123456789abcdef", core);
    snprintf(old_core, sizeof old_core, "%.*s0000000000000000", (int)strlen(core) - 16, core);
    made(dir, core);
    made(dir, "kernel-6.12.1-cloud-amd64-1111111111111111");
    ok(base_image(dir, "memcached", base, sizeof base, NULL, &err) == -1, "a base with memcached, not made");
    ok(strncmp(strrchr(base, '/') + 1, core, strlen(core)) == 0 && strlen(strrchr(base, '/') + 1) == strlen(core) + 17,
       "  named after the plain one's core, its applications' hash after it");
    ok(present(dir, core) && present(dir, "kernel-6.12.1-cloud-amd64-1111111111111111"),
       "  the plain base and the kernel images made from it stay");
    pm_remove_all(dir);
    if (mkdir(dir, 0700) < 0) {
        printf("Bail out! mkdir\n");
        exit(1);
    }
    made(dir, old_core);
    made(dir, apps_of_core);
    made(dir, "kernel-6.1.0-9-cloud-amd64-2222222222222222");
    made(dir, "debs");
    ok(base_image(dir, NULL, base, sizeof base, NULL, &err) == -1, "the plain base, another of its core beside it");
    ok(present(dir, old_core) && present(dir, apps_of_core) && present(dir, "kernel-6.1.0-9-cloud-amd64-2222222222222222"),
       "  a base of the same core exists: nothing is dropped");
    pm_remove_all(dir);
    if (mkdir(dir, 0700) < 0) {
        printf("Bail out! mkdir\n");
        exit(1);
    }
    made(dir, old_core);
    made(dir, "kernel-6.1.0-9-cloud-amd64-2222222222222222");
    made(dir, "debs");
    ok(base_image(dir, "redis-server,redis-tools", base, sizeof base, NULL, &err) == -1, "a new core's first base");
    ok(!present(dir, old_core) && !present(dir, "kernel-6.1.0-9-cloud-amd64-2222222222222222") && present(dir, "debs"),
       "  drops the old core's base and every kernel image, and nothing else");
    pm_remove_all(dir);
}

int main(void)
{
    /* base_image journals its build directory: in a state directory of
     * the test's own, never the machine's, whose journal another test may
     * be about to recover. */
    char state[] = "/tmp/pressmark-unit.XXXXXX";
    if (!mkdtemp(state) || setenv("PRESSMARK_STATE_DIR", state, 1) < 0) {
        printf("Bail out! state directory\n");
        return 1;
    }
    unions();
    refusals();
    pruning();
    pm_remove_all(state);
    return done_testing();
}
