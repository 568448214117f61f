#include "lib/json.h"
#include <math.h>

void json_init(struct json *j, FILE *f, bool pretty)
{
    j->f = f;
    j->depth = 0;
    j->need_comma[0] = false;
    j->pretty = pretty;
}

void json_escape(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
}

static void prefix(struct json *j, const char *key)
{
    if (j->need_comma[j->depth])
        fputc(',', j->f);
    if (j->pretty && j->depth > 0) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    j->need_comma[j->depth] = true;
    if (key) {
        fputc('"', j->f);
        json_escape(j->f, key);
        fputs(j->pretty ? "\": " : "\":", j->f);
    }
}

static void open_(struct json *j, const char *key, char c)
{
    prefix(j, key);
    fputc(c, j->f);
    if (j->depth < 63)
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_(struct json *j, char c)
{
    bool had = j->need_comma[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (j->pretty && had) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
}

void json_object_begin(struct json *j, const char *key) { open_(j, key, '{'); }
void json_object_end(struct json *j) { close_(j, '}'); }
void json_array_begin(struct json *j, const char *key) { open_(j, key, '['); }
void json_array_end(struct json *j) { close_(j, ']'); }

void json_string(struct json *j, const char *key, const char *value)
{
    prefix(j, key);
    if (!value) {
        fputs("null", j->f);
        return;
    }
    fputc('"', j->f);
    json_escape(j->f, value);
    fputc('"', j->f);
}

void json_number(struct json *j, const char *key, double value)
{
    prefix(j, key);
    if (isfinite(value))
        fprintf(j->f, "%.17g", value);
    else
        fputs("null", j->f);
}

void json_int(struct json *j, const char *key, int64_t value)
{
    prefix(j, key);
    fprintf(j->f, "%lld", (long long)value);
}

void json_bool(struct json *j, const char *key, bool value)
{
    prefix(j, key);
    fputs(value ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
    prefix(j, key);
    fputs("null", j->f);
}

void json_end(struct json *j)
{
    fputc('\n', j->f);
}
