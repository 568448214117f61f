/* backend = lava's lab, checked before a suite writes anything: the
 * suite's lab keys, its token file, the server answering as LAVA with the
 * device type, and the suite file fit to be public (each job publishes it). */
#include "experiment/backend_lava.h"
#include <stdio.h>
#include <string.h>
#include "labs/lava_url.h"
#include "lib/http.h"
#include "lib/quote.h"
#include "lib/utf8.h"

/* The suite file goes into every job's archive, which the artifact store
 * serves to whoever reads the public job's definition: a URL with a user
 * or password anywhere in it (a push URL, a command's argument) is
 * refused rather than published. Refused, not left out: the guest runs
 * the suite as the host stored it, and a key quietly dropped could change
 * what its cells do. -1 with err naming FILE:LINE and the key. */
static int public_credentials(const struct suite_plan *p, struct pm_err *err)
{
    const struct suite_file *f = &p->file;
    char bare[160];
    for (size_t i = 0; i < f->nsections; i++) {
        const struct suite_section *sec = &f->sections[i];
        const char *key = NULL;
        int line = sec->line;
        int has = lava_text_userinfo(sec->name, bare, sizeof bare, err);
        if (has > 0)
            key = "its section's name";
        for (size_t k = 0; has == 0 && k < sec->nkeys; k++)
            if ((has = lava_text_userinfo(sec->keys[k].raw, bare, sizeof bare, err)) > 0) {
                key = sec->keys[k].name;
                line = sec->keys[k].line;
            }
        if (has < 0)
            return -1;
        if (key) {
            char q[4 * sizeof bare];
            quote_terminal(bare, q, sizeof q);
            return pm_errf(err, "%s:%d: %s: a URL with a user or password in it (%s) would be public: backend = lava "
                           "publishes the suite file with each job (accepted: URLs without user:password in a LAVA "
                           "suite; a secret goes in a file or the environment)", f->path, line, key, q);
        }
    }
    return 0;
}

int exp_lava_open(const struct suite_plan *p, bool need_token, struct lava_lab *lab, struct pm_err *err)
{
    const struct exp_lava_keys *l = exp_lava_keys(p);
    const char *path = p->file.path;
    static const char *const need[][2] = { { "lava-url", "the LAVA server, e.g. http://lava.example.org/" },
                                           { "device-type", "the lab's device type its jobs run on, e.g. qemu" },
                                           { "lava-artifacts", "an HTTP store that takes PUT and answers GET" } };
    const char *have[] = { l->url, l->device_type, l->artifacts };
    for (size_t i = 0; i < 3; i++)
        if (!have[i][0])
            return pm_errf(err, "%s: backend = lava needs %s in [global] (%s)", path, need[i][0], need[i][1]);
    if (need_token && !l->token_file[0])
        return pm_errf(err, "%s: backend = lava needs lava-token-file in [global] to submit jobs (a file only its "
                       "owner can read, holding the lab's API token)", path);
    bool https, loopback;
    const char *stores[] = { l->artifacts, l->artifacts_guest };
    for (size_t i = 0; i < 2; i++) {
        const char *key = i ? "lava-artifacts-guest" : "lava-artifacts";
        if (!stores[i][0])
            continue;
        /* It goes into the job's YAML, which is UTF-8: refused before
         * anything is uploaded. */
        if (!utf8_valid(stores[i]))
            return pm_errf(err, "%s: %s: not valid UTF-8 (accepted: an http or https URL in UTF-8)", path, key);
        if (strncmp(stores[i], "http://", 7) != 0 && strncmp(stores[i], "https://", 8) != 0)
            return pm_errf(err, "%s: %s = %s: not an http or https URL", path, key, stores[i]);
        int rc = http_url_private(stores[i], &https, &loopback, err);
        if (rc == HTTP_URL_BAD)
            return pm_errf(err, "%s: %s = %s: not an http or https URL", path, key, stores[i]);
        /* (libcurl missing, say: the URL may be right, the reason is the one to give) */
        if (rc < 0)
            return pm_err_prefix(err, "%s: %s = %s", path, key, stores[i]);
        /* It goes into the job's public definition. */
        if (strchr(stores[i], '@'))
            return pm_errf(err, "%s: %s: a user:password in it would be in the job's public definition (accepted: "
                           "a store that takes PUT without one)", path, key);
    }
    if (lava_lab_open(lab, l->url, need_token ? l->token_file : NULL, err) < 0)
        return pm_err_prefix(err, "%s", path);
    /* A URL that cannot be read is refused, never taken as safe to send
     * the token to. */
    if (need_token && http_url_private(lab->url, &https, &loopback, err) < 0) {
        explicit_bzero(lab, sizeof *lab);
        return pm_err_prefix(err, "%s: lava-url = %s", path, l->url);
    }
    if (need_token && !https && !loopback && !l->allow_plain_http) {
        explicit_bzero(lab, sizeof *lab);
        return pm_errf(err, "%s: lava-url = %s: the token would cross the network unencrypted (accepted: https, "
                       "a LAVA on this machine, or lava-allow-plain-http = yes)", path, l->url);
    }
    if (public_credentials(p, err) < 0) {
        explicit_bzero(lab, sizeof *lab);
        return -1;
    }
    char version[64];
    if (lava_ping(lab, version, sizeof version, err) < 0) {
        /* lib/http's words begin with the URL, which the key names already. */
        char why[sizeof err->msg];
        const char *m = strstr(err->msg, ": no answer");
        snprintf(why, sizeof why, "%s", m ? m + 2 : err->msg);
        return pm_errf(err, "%s: lava-url = %s: %s", path, l->url, why);
    }
    bool exists = false;
    if (lava_device_type_exists(lab, l->device_type, &exists, err) < 0)
        return -1;
    if (!exists)
        return pm_errf(err, "%s: device-type = %s: the lab at %s has no device of that type (its device types: %sapi/"
                       "v0.2/devicetypes/)", path, l->device_type, lab->url, lab->url);
    return 0;
}
