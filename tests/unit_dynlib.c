/* libcurl and libarchive opened on first use (lib/dynlib.h): each table
 * filled whole, the same one for every caller, and a missing library or
 * function said in one line that names it and the package to install
 * (those cannot be removed from the machine here, so the loader is given
 * a library that is not there, and a function libc does not have). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "lib/archive_lib.h"
#include "lib/curl_lib.h"
#include "lib/dynlib.h"
#include "tests/tap.h"

struct one {
    void (*fn)(void);
};

static void missing(void)
{
    struct one t = { NULL };
    struct pm_err err = { "" };
    const struct pm_dynsym none[] = { { "pm_no_such_function", offsetof(struct one, fn) } };
    ok(pm_dynlib_load("libpm-not-there.so.9", "libpm9", none, 1, &t, &err) < 0 &&
           strstr(err.msg, "libpm-not-there.so.9") && strstr(err.msg, "install the libpm9 package") &&
           !strchr(err.msg, '\n'),
       "a missing library: named, with its package: %s", err.msg);
    err.msg[0] = '\0';
    ok(pm_dynlib_load("libc.so.6", "libc6", none, 1, &t, &err) < 0 && t.fn == NULL &&
           strstr(err.msg, "libc.so.6 has no pm_no_such_function") && strstr(err.msg, "newer libc6 package"),
       "a missing function: named, with its package: %s", err.msg);
}

static void loaded(void)
{
    struct pm_err err = { "" };
    const struct pm_curl *c = pm_curl_lib(&err);
    ok(c && c->easy_setopt && c->url_get && c->free && pm_curl_lib(NULL) == c, "libcurl loaded once %s", err.msg);
    const struct pm_archive *a = pm_archive_lib(&err);
    ok(a && a->read_new && a->entry_copy_hardlink && pm_archive_lib(NULL) == a, "libarchive loaded once %s",
       err.msg);
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
    missing();
    loaded();
    return done_testing();
}
