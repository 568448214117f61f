#ifndef PM_JSON_H
#define PM_JSON_H
/* A streaming JSON writer: keys and values escaped, commas placed, numbers
 * that are not finite written as null (JSON has no NaN). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
    FILE *f;
    int depth;
    bool need_comma[64];
    bool pretty;
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_object_begin(struct json *j, const char *key);   /* key NULL inside arrays / at top */
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *key, const char *value);  /* NULL value: null */
void json_number(struct json *j, const char *key, double value);
void json_int(struct json *j, const char *key, int64_t value);
void json_bool(struct json *j, const char *key, bool value);
void json_null(struct json *j, const char *key);
void json_end(struct json *j);                 /* final newline */
/* Escape s as a JSON string body into f (no quotes). */
void json_escape(FILE *f, const char *s);

#endif
