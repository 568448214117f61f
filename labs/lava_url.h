#ifndef PM_LABS_LAVA_URL_H
#define PM_LABS_LAVA_URL_H
/* Credentials in a text that a LAVA job makes public (its suite file goes
 * into the job archive in the artifact store, which anybody who can read a
 * public job's definition can fetch). */
#include <stddef.h>
#include "lib/err.h"

/* Does text hold a URL with a user or password in it? A URL here is
 * SCHEME:// (any scheme) up to a blank or quote; it has one when its
 * authority (up to the first '/', '?' or '#') holds an '@', or when
 * libcurl's URL parser (curl_url, any scheme) reads a user or password in
 * it. 1 when it does, bare then the first such URL with its user and
 * password left out, cut to len - 1 bytes; 0 when not; -1 with err when
 * libcurl cannot be loaded. */
int lava_text_userinfo(const char *text, char *bare, size_t len, struct pm_err *err);

#endif
