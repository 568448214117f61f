#ifndef PM_JSON_H
#define PM_JSON_H
/* Writing JSON: a document is built with these calls, in order, and
 * written by jw_end through Debian's jansson, which does the escaping.
 * Strings that are not valid UTF-8 (a label from a hostile database) have
 * each bad byte replaced by U+FFFD, so the output always parses; numbers
 * that are not finite are written as null (JSON has no NaN). Keys keep the
 * order they were added in. */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 64

/* The version of the JSON that show, list and compare write, as the key
 * "format_version" of each document: raised when a key changes meaning or
 * goes away (new keys do not raise it). Its schema: docs/json/. */
#define PM_JSON_FORMAT_VERSION 1

struct jw {
    FILE *f;
    bool pretty;
    int depth;
    json_t *root;
    json_t *stack[JSON_MAX_DEPTH];
    bool failed;                 /* out of memory or too deep: json_end writes nothing */
};

void jw_init(struct jw *j, FILE *f, bool pretty);
void jw_object_begin(struct jw *j, const char *key);   /* key NULL inside arrays / at top */
void jw_object_end(struct jw *j);
void jw_array_begin(struct jw *j, const char *key);
void jw_array_end(struct jw *j);
void jw_string(struct jw *j, const char *key, const char *value);  /* NULL value: null */
void jw_number(struct jw *j, const char *key, double value);
void jw_int(struct jw *j, const char *key, int64_t value);
void jw_bool(struct jw *j, const char *key, bool value);
void jw_null(struct jw *j, const char *key);
/* Write the document and a final newline; -1 when it could not be written. */
int jw_end(struct jw *j);

/* s as one JSON string literal, quotes included, escaped by jansson as
 * the documents are (bad UTF-8 as U+FFFD): for writers that stream a
 * record at a time rather than build a document (export's JSON lines,
 * where a run's names are quoted once and written at every tick).
 * Malloc'd; NULL when out of memory. */
char *json_quote(const char *s);

#endif
