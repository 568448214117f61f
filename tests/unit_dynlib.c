/* libcurl and libarchive opened on first use (lib/dynlib.h): each table
 * filled whole, and only once, the same one for every caller, and a
 * missing library or function said in one line that names it and the
 * package to install (those cannot be removed from the machine here, so
 * the loader is given a library that is not there, and a function libc
 * does not have). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "lib/archive_lib.h"
#include "lib/curl_lib.h"
#include "lib/dynlib.h"
#include "tests/tap.h"

struct two {
    void (*first)(void);
    void (*second)(void);
};

static void missing(void)
{
    static struct two t;
    static const struct pm_dynsym none[] = { { "pm_no_such_function", offsetof(struct two, first) } };
    static struct pm_dynlib absent = PM_DYNLIB("libpm-not-there.so.9", "libpm9", none, t);
    struct pm_err e1 = { "" }, e2 = { "" };
    unsigned before = pm_dynlib_loads();
    ok(pm_dynlib_get(&absent, &e1) == NULL && strstr(e1.msg, "libpm-not-there.so.9") &&
           strstr(e1.msg, "install the libpm9 package") && !strchr(e1.msg, '\n'),
       "a missing library: named, with its package: %s", e1.msg);
    ok(pm_dynlib_get(&absent, &e2) == NULL && strcmp(e1.msg, e2.msg) == 0 && pm_dynlib_loads() - before == 1,
       "asked again: the same reason, not tried again: %s", e2.msg);
    /* The first is there, the second not: neither may be left set. */
    static struct two half;
    static const struct pm_dynsym second_missing[] = { { "getpid", offsetof(struct two, first) },
                                                       { "pm_no_such_function", offsetof(struct two, second) } };
    static struct pm_dynlib libc = PM_DYNLIB("libc.so.6", "libc6", second_missing, half);
    ok(pm_dynlib_get(&libc, &e1) == NULL && strstr(e1.msg, "libc.so.6 has no pm_no_such_function") &&
           strstr(e1.msg, "newer libc6 package"),
       "a missing function: named, with its package: %s", e1.msg);
    ok(half.first == NULL && half.second == NULL, "and the table left empty, not half filled");
}

struct asked {
    const struct pm_curl *c;
    struct pm_err err;
};

static void *ask(void *arg)
{
    struct asked *a = arg;
    a->c = pm_curl_lib(&a->err);
    return NULL;
}

/* Eight threads at once, before anything else in the process loaded it. */
static const struct pm_curl *raced(void)
{
    struct asked a[8];
    pthread_t t[8];
    unsigned before = pm_dynlib_loads();
    size_t started = 0;
    for (size_t i = 0; i < 8; i++) {
        a[i].c = NULL;
        a[i].err.msg[0] = '\0';
        if (pthread_create(&t[i], NULL, ask, &a[i]) != 0)
            break;
        started++;
    }
    bool same = started == 8;
    for (size_t i = 0; i < started; i++) {
        same &= pthread_join(t[i], NULL) == 0;
        same &= a[i].c != NULL && a[i].c == a[0].c;
    }
    unsigned loads = pm_dynlib_loads() - before;
    ok(same && loads == 1, "libcurl asked for by 8 threads at once: loaded %u time(s), one table %s", loads,
       a[0].err.msg);
    return same ? a[0].c : NULL;
}

/* Each pointer is the library's own function of that name, not only not
 * NULL: an offset put in the wrong field would call the wrong function. */
static void each_entry(const char *soname, const char *prefix, const struct pm_dynsym *names, size_t n,
                       const void *table)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    size_t same = 0;
    for (size_t i = 0; h && i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s", prefix, names[i].name);
        void *want = dlsym(h, name), *got;
        memcpy(&got, (const char *)table + names[i].off, sizeof got);
        if (want && got == want)
            same++;
        else
            tap_diag("# %s: %s is not dlsym's", soname, name);
    }
    ok(h && same == n, "%s: all %zu of its table's entries are dlsym's", soname, n);
    if (h)
        (void)dlclose(h);   /* (the NOLOAD handle only; the table's stays) */
}

static const struct pm_dynsym curl_names[] = {
#define PM_CURL_NAME(name) { #name, offsetof(struct pm_curl, name) },
    PM_CURL_FNS(PM_CURL_NAME)
#undef PM_CURL_NAME
};
static const struct pm_dynsym archive_names[] = {
#define PM_ARCHIVE_NAME(name) { #name, offsetof(struct pm_archive, name) },
    PM_ARCHIVE_FNS(PM_ARCHIVE_NAME)
#undef PM_ARCHIVE_NAME
};

static void loaded(void)
{
    struct pm_err err = { "" };
    const struct pm_curl *c = raced();
    if (c)
        each_entry("libcurl.so.4", "curl_", curl_names, sizeof curl_names / sizeof curl_names[0], c);
    const struct pm_archive *a = pm_archive_lib(&err);
    ok(a && pm_archive_lib(NULL) == a, "libarchive loaded %s", err.msg);
    if (a)
        each_entry("libarchive.so.13", "archive_", archive_names, sizeof archive_names / sizeof archive_names[0],
                   a);
    struct archive *r = a ? a->read_new() : NULL;
    ok(r && a->read_support_format_tar(r) == ARCHIVE_OK, "libarchive's functions called through the table");
    if (r)
        ok(a->read_free(r) == ARCHIVE_OK, "and freed");
    CURLU *u = c ? c->url() : NULL;
    char *host = NULL;
    /* (the host read first: ok's arguments are evaluated in no set order) */
    bool read = u && c->url_set(u, CURLUPART_URL, "http://example.org:8080/x", 0) == CURLUE_OK &&
                c->url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK;
    ok(read && strcmp(host, "example.org") == 0, "libcurl's functions called through the table: host %s",
       host ? host : "(none)");
    if (c) {
        c->free(host);
        c->url_cleanup(u);
    }
}

int main(void)
{
    loaded();
    missing();
    return done_testing();
}
