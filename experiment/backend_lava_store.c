#include "experiment/backend_lava_store.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "experiment/backend_lava.h"
#include "labs/artifacts.h"
#include "labs/token_file.h"
#include "lib/http.h"

/* As the lab's store takes a bearer token (RFC 6750's characters). */
static const struct token_rule store_rule = {
    .key = "lava-artifacts-token-file",
    .chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/-",
    .min = 16, .max = 512,
    .accepted = "accepted: one line of 16 to 512 characters of A-Z a-z 0-9 . _ ~ + / -",
};

int exp_lava_store_token(const struct suite_plan *p, struct pm_err *err)
{
    const struct exp_lava_keys *l = exp_lava_keys(p);
    artifact_store_token(NULL, NULL);
    if (!l->artifacts_token_file[0] || !l->artifacts[0])
        return 0;
    bool https = false, loopback = false;
    int rc = http_url_private(l->artifacts, &https, &loopback, err);
    if (rc == HTTP_URL_BAD)
        return pm_errf(err, "%s: lava-artifacts = %s: not an http or https URL", p->file.path, l->artifacts);
    /* (libcurl missing, say: the URL may be right, the reason is the one to give) */
    if (rc < 0)
        return pm_err_prefix(err, "%s: lava-artifacts = %s", p->file.path, l->artifacts);
    if (!https && !loopback && !l->allow_plain_http)
        return pm_errf(err, "%s: lava-artifacts = %s: the store's token would cross the network unencrypted "
                       "(accepted: https, a store on this machine, or lava-allow-plain-http = yes)", p->file.path,
                       l->artifacts);
    char token[520];
    if (token_file_read(&store_rule, l->artifacts_token_file, token, sizeof token, err) < 0)
        return pm_err_prefix(err, "%s", p->file.path);
    rc = artifact_store_token(l->artifacts, token);
    explicit_bzero(token, sizeof token);
    if (rc < 0)
        return pm_errf(err, "%s: lava-artifacts = %s: longer than 511 characters", p->file.path, l->artifacts);
    return 0;
}
