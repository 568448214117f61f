#include "lib/json.h"
#include "lib/utf8.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void jw_init(struct jw *j, FILE *f, bool pretty)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->pretty = pretty;
}

/* s as valid UTF-8 in buf, each bad byte as U+FFFD. */
static void utf8_sanitize(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p && o + 4 < len) {
        size_t n = utf8_seq(p);
        if (n) {
            memcpy(buf + o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(buf + o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    if (len)
        buf[o < len ? o : len - 1] = '\0';
}

static json_t *make_string(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    size_t len = strlen(s) * 3 + 1;
    char *clean = malloc(len);
    if (!clean)
        return NULL;
    utf8_sanitize(s, clean, len);
    v = json_string(clean);
    free(clean);
    return v;
}

/* Put v into the open container (or make it the document), taking it. */
static void add(struct jw *j, const char *key, json_t *v, bool open)
{
    if (!v || j->failed) {
        j->failed = true;
        json_decref(v);
        return;
    }
    int rc = 0;
    if (j->depth == 0) {
        json_decref(j->root);
        j->root = json_incref(v);
    } else {
        json_t *parent = j->stack[j->depth - 1];
        if (json_is_object(parent)) {
            json_t *k = make_string(key ? key : "");
            rc = k ? json_object_set(parent, json_string_value(k), v) : -1;
            json_decref(k);
        } else {
            rc = json_array_append(parent, v);
        }
    }
    if (rc == 0 && open) {
        if (j->depth == JSON_MAX_DEPTH)
            rc = -1;
        else
            j->stack[j->depth++] = v;
    }
    if (rc != 0)
        j->failed = true;
    json_decref(v);
}

void jw_object_begin(struct jw *j, const char *key)
{
    add(j, key, json_object(), true);
}

void jw_array_begin(struct jw *j, const char *key)
{
    add(j, key, json_array(), true);
}

void jw_object_end(struct jw *j)
{
    if (j->depth > 0)
        j->depth--;
}

void jw_array_end(struct jw *j)
{
    if (j->depth > 0)
        j->depth--;
}

void jw_string(struct jw *j, const char *key, const char *value)
{
    add(j, key, value ? make_string(value) : json_null(), false);
}

void jw_number(struct jw *j, const char *key, double value)
{
    add(j, key, isfinite(value) ? json_real(value) : json_null(), false);
}

void jw_int(struct jw *j, const char *key, int64_t value)
{
    add(j, key, json_integer((json_int_t)value), false);
}

void jw_bool(struct jw *j, const char *key, bool value)
{
    add(j, key, json_boolean(value), false);
}

void jw_null(struct jw *j, const char *key)
{
    add(j, key, json_null(), false);
}

int jw_end(struct jw *j)
{
    int rc = -1;
    size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) | (j->pretty ? JSON_INDENT(2) : JSON_COMPACT);
    if (!j->failed && j->root && json_dumpf(j->root, j->f, flags) == 0 && fputc('\n', j->f) != EOF)
        rc = 0;
    json_decref(j->root);
    j->root = NULL;
    j->depth = 0;
    return rc;
}

char *json_quote(const char *s)
{
    json_t *v = make_string(s);
    char *out = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    return out;
}
