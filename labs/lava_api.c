#include "labs/lava_api.h"
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "labs/lava_text.h"
#include "lib/http.h"

/* LAVA 2023.01's REST API (lava_rest_app/v02): what it answers is small
 * JSON; anything larger than this is not an answer of LAVA's. */
#define LAVA_MAX_ANSWER (4u << 20)
#define LAVA_TIMEOUT_S 60
/* How much of what LAVA says goes into a message. */
#define LAVA_SAID_MAX 300

struct lava_answer {
    long code;
    json_t *doc;                /* the body as JSON; NULL when empty or not JSON */
};

/* What LAVA said with an answer: LAVA's views put it in "message",
 * Django REST framework's errors in "detail"; else the JSON itself. */
static void lava_said(const struct lava_answer *a, char *buf, size_t len)
{
    const char *s = NULL;
    char *dump = NULL;
    if (json_is_object(a->doc)) {
        s = json_string_value(json_object_get(a->doc, "message"));
        if (!s)
            s = json_string_value(json_object_get(a->doc, "detail"));
    }
    if (!s && a->doc)
        s = dump = json_dumps(a->doc, JSON_COMPACT | JSON_ENSURE_ASCII);
    lava_text_clean(buf, len, s ? s : (a->doc ? "" : "not a JSON answer"));
    free(dump);
}

static int status_error(const char *url, const struct lava_answer *a, const char *what, struct pm_err *err)
{
    char said[LAVA_SAID_MAX];
    lava_said(a, said, sizeof said);
    return pm_errf(err, "%s: %sHTTP %ld (%s)", url, what, a->code, said);
}

/* One request to the lab: GET path, or POST body (JSON) there when body is
 * not NULL. The token goes in the Authorization header, and to a loopback
 * host never through a proxy. 0 with the status and the JSON in *a, or -1
 * when no answer came: "URL: no answer (why)". */
static int lava_call(const struct lava_lab *lab, const char *path, const char *body, char *url, size_t url_len,
                     struct lava_answer *a, struct pm_err *err)
{
    a->code = 0;
    a->doc = NULL;
    if ((size_t)snprintf(url, url_len, "%s%s", lab->url, path) >= url_len)
        return pm_errf(err, "%s%s: a URL too long", lab->url, path);
    char auth[300] = "";
    const char *headers[4];
    size_t nh = 0;
    headers[nh++] = "Accept: application/json";
    if (lab->token[0]) {
        snprintf(auth, sizeof auth, "Authorization: Token %s", lab->token);
        headers[nh++] = auth;
    }
    if (body)
        headers[nh++] = "Content-Type: application/json";
    headers[nh] = NULL;
    bool https = false, loopback = false;
    struct pm_err uerr;
    if (http_url_private(url, &https, &loopback, &uerr) < 0)
        loopback = false;
    /* A POST is not followed: libcurl would repeat it as a GET. */
    struct http_request rq = { .url = url, .headers = headers, .body = body, .body_len = body ? strlen(body) : 0,
                               .timeout_s = LAVA_TIMEOUT_S, .max_bytes = LAVA_MAX_ANSWER,
                               .follow_redirects = body == NULL, .no_proxy = loopback };
    struct http_response rs;
    struct pm_err herr;
    int rc = http_perform(&rq, &rs, &herr);
    explicit_bzero(auth, sizeof auth);
    if (rc < 0) {
        if (rs.code)            /* an answer came, but not whole (too large) */
            return pm_errf(err, "%s", herr.msg);
        size_t n = strlen(url);
        const char *why = strncmp(herr.msg, url, n) == 0 && strncmp(herr.msg + n, ": ", 2) == 0 ? herr.msg + n + 2
                                                                                                : herr.msg;
        return pm_errf(err, "%s: no answer (%s)", lab->url, why);
    }
    a->code = rs.code;
    if (rs.body_len) {
        json_error_t je;
        a->doc = json_loadb(rs.body, rs.body_len, JSON_REJECT_DUPLICATES, &je);
    }
    http_response_free(&rs);
    return 0;
}

int lava_ping(const struct lava_lab *lab, char *version, size_t len, struct pm_err *err)
{
    char url[1024];
    struct lava_answer a;
    if (lava_call(lab, "api/v0.2/system/version/", NULL, url, sizeof url, &a, err) < 0)
        return -1;
    const char *v = json_string_value(json_object_get(a.doc, "version"));
    int rc = 0;
    if (a.code != 200)
        rc = status_error(url, &a, "not LAVA's answer: ", err);
    else if (!v)
        rc = pm_errf(err, "%s: not LAVA's answer (no \"version\")", url);
    else
        lava_text_clean(version, len, v);
    json_decref(a.doc);
    return rc;
}

/* Is one of the listed devices not retired? A device's health is one of
 * Good, Unknown, Looping, Bad, Maintenance, Retired (Device.HEALTH_CHOICES). */
static int any_device_in_service(json_t *results, bool *any, size_t *n)
{
    if (!json_is_array(results))
        return -1;
    *n = json_array_size(results);
    for (size_t i = 0; i < *n; i++) {
        const char *health = json_string_value(json_object_get(json_array_get(results, i), "health"));
        if (!health)
            return -1;
        if (strcmp(health, "Retired") != 0)
            *any = true;
    }
    return 0;
}

/* The type's devices, a page at a time (LimitOffsetPagination: "count",
 * "next", "results"), until one is in service. The offset moves by what
 * came, as a server may cap the page below the limit asked for. */
static int device_in_service(const struct lava_lab *lab, const char *name, bool *exists, struct pm_err *err)
{
    size_t offset = 0;
    for (int page = 0; page < 100; page++) {
        char path[256], url[1024];
        snprintf(path, sizeof path, "api/v0.2/devices/?device_type=%s&limit=100&offset=%zu", name, offset);
        struct lava_answer a;
        if (lava_call(lab, path, NULL, url, sizeof url, &a, err) < 0)
            return -1;
        size_t n = 0;
        int rc = a.code != 200 ? status_error(url, &a, "", err)
                 : any_device_in_service(json_object_get(a.doc, "results"), exists, &n) < 0
                     ? pm_errf(err, "%s: not LAVA's answer (no \"results\" with each device's \"health\")", url)
                     : 0;
        bool more = json_is_string(json_object_get(a.doc, "next"));
        json_decref(a.doc);
        if (rc < 0 || *exists || !more || n == 0)
            return rc;
        offset += n;
    }
    return 0;
}

int lava_device_type_exists(const struct lava_lab *lab, const char *name, bool *exists, struct pm_err *err)
{
    *exists = false;
    /* DeviceType.name is a SlugField, and goes into the URL's path. */
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 100 || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != n)
        return pm_errf(err, "device type '%.100s': accepted: 1 to 100 of A-Z a-z 0-9 _ - (a LAVA device type name)",
                       name ? name : "");
    char path[256], url[1024];
    snprintf(path, sizeof path, "api/v0.2/devicetypes/%s/", name);
    struct lava_answer a;
    if (lava_call(lab, path, NULL, url, sizeof url, &a, err) < 0)
        return -1;
    int rc = a.code == 200 || a.code == 404 ? 0 : status_error(url, &a, "", err);
    bool found = a.code == 200;
    json_decref(a.doc);
    if (rc < 0 || !found)
        return rc;
    return device_in_service(lab, name, exists, err);
}

static int need_token(const struct lava_lab *lab, const char *what, struct pm_err *err)
{
    if (lab->token[0])
        return 0;
    return pm_errf(err, "%s: %s needs a token; accepted: lava-token-file = FILE (a LAVA API token)", lab->url, what);
}

/* POST api/v0.2/jobs/ {"definition": YAML}: 201 with {"message": "job(s)
 * successfully submitted", "job_ids": [ID]}; 400 with {"message": why}
 * when LAVA refuses the definition. */
int lava_submit(const struct lava_lab *lab, const char *definition, int64_t *job_id, struct pm_err *err)
{
    *job_id = 0;
    if (need_token(lab, "submitting a job", err) < 0)
        return -1;
    json_t *req = json_pack("{s:s}", "definition", definition ? definition : "");
    char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!body)
        return pm_errf(err, "%s: the job definition is not UTF-8 text", lab->url);
    char url[1024];
    struct lava_answer a;
    int rc = lava_call(lab, "api/v0.2/jobs/", body, url, sizeof url, &a, err);
    free(body);
    if (rc < 0)
        return -1;
    json_t *ids = json_object_get(a.doc, "job_ids");
    json_t *id = json_array_get(ids, 0);
    if (a.code == 400)
        rc = status_error(url, &a, "LAVA refused the job: ", err);
    else if (a.code == 401 || a.code == 403)
        rc = status_error(url, &a, "LAVA refused the token: ", err);
    else if (a.code != 201 && a.code != 200)
        rc = status_error(url, &a, "", err);
    else if (json_array_size(ids) != 1 || !json_is_integer(id) || json_integer_value(id) <= 0)
        rc = pm_errf(err, "%s: not LAVA's answer (no \"job_ids\" with one job's id)", url);
    else
        *job_id = json_integer_value(id);
    json_decref(a.doc);
    return rc;
}

/* TestJob.STATE_CHOICES and HEALTH_CHOICES as the serializer writes them
 * (get_state_display, get_health_display). */
static int job_state(const char *s, enum lava_state *st)
{
    static const struct { const char *name; enum lava_state st; } states[] = {
        { "Submitted", LAVA_WAITING }, { "Scheduling", LAVA_WAITING }, { "Scheduled", LAVA_WAITING },
        { "Running", LAVA_RUNNING },   { "Canceling", LAVA_CANCELING }, { "Finished", LAVA_FINISHED },
    };
    for (size_t i = 0; s && i < sizeof states / sizeof states[0]; i++)
        if (strcmp(s, states[i].name) == 0) {
            *st = states[i].st;
            return 0;
        }
    return -1;
}

static int job_health(const char *s, enum lava_health *h)
{
    static const char *const names[] = { "Unknown", "Complete", "Incomplete", "Canceled" };
    static const enum lava_health hs[] = { LAVA_UNKNOWN, LAVA_COMPLETE, LAVA_INCOMPLETE, LAVA_CANCELED };
    for (size_t i = 0; s && i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *h = hs[i];
            return 0;
        }
    return -1;
}

static int bad_field(const char *url, const char *field, const char *value, struct pm_err *err)
{
    char said[64];
    lava_text_clean(said, sizeof said, value ? value : "none");
    return pm_errf(err, "%s: not LAVA's answer (a job's %s '%s')", url, field, said);
}

/* Why a job ended, as LAVA records it: not in failure_comment (null but
 * when lava-run itself crashed) but in the metadata of the test case
 * "job" of its suite "lava", YAML with error_type and error_msg. Left ""
 * when there is none; metadata that is not LAVA's YAML is said to be so,
 * as the reason. */
static void job_error(const struct lava_lab *lab, int64_t job_id, char *buf, size_t len)
{
    char path[96], url[1024];
    snprintf(path, sizeof path, "api/v0.2/jobs/%" PRId64 "/tests/?name=job&suite__name=lava", job_id);
    struct lava_answer a;
    struct pm_err err;
    if (lava_call(lab, path, NULL, url, sizeof url, &a, &err) < 0)
        return;
    json_t *r0 = json_array_get(json_object_get(a.doc, "results"), 0);
    const char *meta = a.code == 200 ? json_string_value(json_object_get(r0, "metadata")) : NULL;
    if (meta && lava_case_reason(meta, strlen(meta), buf, len, &err) < 0) {
        char said[700];
        snprintf(said, sizeof said, "LAVA's reason unreadable (its job test case's metadata: %s)", err.msg);
        lava_text_clean(buf, len, said);
    }
    json_decref(a.doc);
}

/* GET api/v0.2/jobs/ID/: "state", "health", "actual_device" (the device's
 * hostname, null before), "failure_comment" (null when none). */
int lava_job_get(const struct lava_lab *lab, int64_t job_id, struct lava_job_status *st, struct pm_err *err)
{
    memset(st, 0, sizeof *st);
    char path[64], url[1024];
    snprintf(path, sizeof path, "api/v0.2/jobs/%" PRId64 "/", job_id);
    struct lava_answer a;
    if (lava_call(lab, path, NULL, url, sizeof url, &a, err) < 0)
        return -1;
    const char *state = json_string_value(json_object_get(a.doc, "state"));
    const char *health = json_string_value(json_object_get(a.doc, "health"));
    int rc = 0;
    if (a.code != 200)
        rc = status_error(url, &a, a.code == 404 ? "no such job for LAVA: " : "", err);
    else if (job_state(state, &st->state) < 0)
        rc = bad_field(url, "state", state, err);
    else if (job_health(health, &st->health) < 0)
        rc = bad_field(url, "health", health, err);
    else {
        lava_text_clean(st->device, sizeof st->device, json_string_value(json_object_get(a.doc, "actual_device")));
        lava_text_clean(st->failure, sizeof st->failure, json_string_value(json_object_get(a.doc, "failure_comment")));
        if (!st->failure[0] && (st->health == LAVA_INCOMPLETE || st->health == LAVA_CANCELED))
            job_error(lab, job_id, st->failure, sizeof st->failure);
    }
    json_decref(a.doc);
    return rc;
}

void lava_job_url(const struct lava_lab *lab, int64_t job_id, char *buf, size_t len)
{
    snprintf(buf, len, "%sscheduler/job/%" PRId64, lab->url, job_id);
}
