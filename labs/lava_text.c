#include "labs/lava_text.h"
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "lib/utf8.h"

/* Unicode's format characters (general category Cf) and its two
 * separators (Zl, Zp), as ranges of code points (Unicode 15). */
static const struct { unsigned long lo, hi; } hidden_ranges[] = {
    { 0x00ad, 0x00ad }, { 0x0600, 0x0605 }, { 0x061c, 0x061c }, { 0x06dd, 0x06dd }, { 0x070f, 0x070f },
    { 0x0890, 0x0891 }, { 0x08e2, 0x08e2 }, { 0x180e, 0x180e }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
    { 0x2060, 0x2064 }, { 0x2066, 0x206f }, { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd },
    { 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a }, { 0xe0001, 0xe0001 },
    { 0xe0020, 0xe007f },
};

bool lava_text_hidden(const unsigned char *p, size_t n)
{
    if (n == 1)
        return p[0] < 0x20 || p[0] == 0x7f;
    unsigned long c = p[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++)
        c = (c << 6) | (p[i] & 0x3f);
    if (c >= 0x80 && c < 0xa0)
        return true;
    for (size_t i = 0; i < sizeof hidden_ranges / sizeof hidden_ranges[0]; i++)
        if (c >= hidden_ranges[i].lo && c <= hidden_ranges[i].hi)
            return true;
    return false;
}

/* Text going into a fixed buffer: once a character does not fit, nothing
 * more goes in, so what is there is always a prefix of the text. */
struct text_out {
    char *buf;
    size_t len, pos;
    bool full, blank;           /* blank: the last space stood for blanks or line breaks */
};

static bool layout(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* n bytes of s (s[n] is NUL; a NUL inside is a control character), made
 * clean; with squeeze, a run of layout characters is one space. */
static void put_text(struct text_out *o, const char *s, size_t n, bool squeeze)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end && !o->full) {
        size_t k = *p ? utf8_seq(p) : 1;
        if (k > (size_t)(end - p))
            k = 0;
        bool run = squeeze && layout(*p);
        if (run && o->blank) {
            p++;
            continue;
        }
        bool space = k == 0 || run || lava_text_hidden(p, k);
        size_t w = space ? 1 : k;
        if (o->pos + w + 1 > o->len) {
            o->full = true;
            break;
        }
        if (space)
            o->buf[o->pos] = ' ';
        else
            memcpy(o->buf + o->pos, p, k);
        o->pos += w;
        o->blank = run;
        p += k ? k : 1;
    }
    if (o->len)
        o->buf[o->pos] = '\0';
}

void lava_text_clean(char *buf, size_t len, const char *s)
{
    struct text_out o = { .buf = buf, .len = len };
    if (len)
        buf[0] = '\0';
    if (s)
        put_text(&o, s, strlen(s), false);
}

/* The parser's events, counted and their nesting followed, so that no
 * input makes it work without bound. */
struct reader {
    yaml_parser_t parser;
    unsigned events;
    unsigned depth;
};

static int parse_problem(const yaml_parser_t *p, struct pm_err *err)
{
    if (p->error == YAML_MEMORY_ERROR)
        return pm_errf(err, "out of memory");
    const char *what = p->problem ? p->problem : "not YAML";
    if (p->error == YAML_READER_ERROR)
        return pm_errf(err, "byte %zu: %s", p->problem_offset, what);
    return pm_errf(err, "line %zu, column %zu: %s%s%s%s", p->problem_mark.line + 1, p->problem_mark.column + 1,
                   what, p->context ? " (" : "", p->context ? p->context : "", p->context ? ")" : "");
}

/* The next event into ev (the caller deletes it), or -1 with err. */
static int next_event(struct reader *r, yaml_event_t *ev, struct pm_err *err)
{
    if (++r->events > LAVA_META_EVENTS)
        return pm_errf(err, "more than %u YAML events (LAVA writes a mapping of a few keys)", LAVA_META_EVENTS);
    if (!yaml_parser_parse(&r->parser, ev))
        return parse_problem(&r->parser, err);
    int rc = 0;
    size_t line = ev->start_mark.line + 1;
    if (ev->type == YAML_ALIAS_EVENT)
        rc = pm_errf(err, "line %zu: an alias (LAVA writes none)", line);
    else if ((ev->type == YAML_MAPPING_START_EVENT || ev->type == YAML_SEQUENCE_START_EVENT) &&
             ++r->depth > LAVA_META_DEPTH)
        rc = pm_errf(err, "line %zu: nested deeper than %u levels", line, LAVA_META_DEPTH);
    else if (ev->type == YAML_MAPPING_END_EVENT || ev->type == YAML_SEQUENCE_END_EVENT)
        r->depth--;
    if (rc < 0)
        yaml_event_delete(ev);
    return rc;
}

/* The next event, which must be of this type; deleted. */
static int expect(struct reader *r, yaml_event_type_t type, const char *what, struct pm_err *err)
{
    yaml_event_t ev;
    if (next_event(r, &ev, err) < 0)
        return -1;
    bool same = ev.type == type;
    size_t line = ev.start_mark.line + 1;
    yaml_event_delete(&ev);
    return same ? 0 : pm_errf(err, "line %zu: %s", line, what);
}

/* A value that is not read: a scalar, or a collection to its end. */
static int skip_value(struct reader *r, struct pm_err *err)
{
    unsigned depth = r->depth;
    do {
        yaml_event_t ev;
        if (next_event(r, &ev, err) < 0)
            return -1;
        yaml_event_delete(&ev);
    } while (r->depth > depth);
    return 0;
}

/* The two fields a reason is made of, as LAVA gave them. */
struct case_fields {
    char *type, *msg;
    size_t type_len, msg_len;
};

/* A plain scalar that YAML reads as null: no value. */
static bool null_scalar(const yaml_event_t *ev)
{
    static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        if (ev->data.scalar.length == strlen(nulls[i]) && memcmp(ev->data.scalar.value, nulls[i], strlen(nulls[i])) == 0)
            return true;
    return false;
}

/* The value of error_type or error_msg (key) into *dst: a scalar, once. */
static int take_field(struct reader *r, const char *key, char **dst, size_t *dst_len, struct pm_err *err)
{
    yaml_event_t ev;
    if (next_event(r, &ev, err) < 0)
        return -1;
    size_t line = ev.start_mark.line + 1;
    int rc = 0;
    if (ev.type != YAML_SCALAR_EVENT)
        rc = pm_errf(err, "line %zu: %s is not a scalar (accepted: text)", line, key);
    else if (*dst)
        rc = pm_errf(err, "line %zu: %s a second time", line, key);
    else {
        /* (null is kept as "", so that a second one is still refused) */
        size_t n = null_scalar(&ev) ? 0 : ev.data.scalar.length;
        *dst = malloc(n + 1);
        if (!*dst)
            rc = pm_errf(err, "out of memory");
        else {
            memcpy(*dst, ev.data.scalar.value, n);
            (*dst)[n] = '\0';
            *dst_len = n;
        }
    }
    yaml_event_delete(&ev);
    return rc;
}

/* The top mapping's keys, to its end: error_type and error_msg taken,
 * any other key's value passed over. */
static int read_mapping(struct reader *r, struct case_fields *f, struct pm_err *err)
{
    for (;;) {
        yaml_event_t ev;
        if (next_event(r, &ev, err) < 0)
            return -1;
        if (ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ev);
            return 0;
        }
        bool scalar = ev.type == YAML_SCALAR_EVENT;
        const char *k = scalar ? (const char *)ev.data.scalar.value : "";
        bool is_type = scalar && strcmp(k, "error_type") == 0 && ev.data.scalar.length == 10;
        bool is_msg = scalar && strcmp(k, "error_msg") == 0 && ev.data.scalar.length == 9;
        size_t line = ev.start_mark.line + 1;
        yaml_event_delete(&ev);
        int rc = !scalar   ? pm_errf(err, "line %zu: a key that is not a scalar", line)
                 : is_type ? take_field(r, "error_type", &f->type, &f->type_len, err)
                 : is_msg  ? take_field(r, "error_msg", &f->msg, &f->msg_len, err)
                           : skip_value(r, err);
        if (rc < 0)
            return -1;
    }
}

/* One document holding one mapping, or none at all. */
static int read_case(struct reader *r, struct case_fields *f, struct pm_err *err)
{
    yaml_event_t ev;
    if (expect(r, YAML_STREAM_START_EVENT, "not a YAML stream", err) < 0 || next_event(r, &ev, err) < 0)
        return -1;
    yaml_event_type_t type = ev.type;
    yaml_event_delete(&ev);
    if (type == YAML_STREAM_END_EVENT)
        return 0;
    if (type != YAML_DOCUMENT_START_EVENT)
        return pm_errf(err, "not a YAML document");
    if (expect(r, YAML_MAPPING_START_EVENT, "not a mapping (accepted: LAVA's keys and values)", err) < 0 ||
        read_mapping(r, f, err) < 0 || expect(r, YAML_DOCUMENT_END_EVENT, "not one mapping", err) < 0 ||
        expect(r, YAML_STREAM_END_EVENT, "more than one YAML document", err) < 0)
        return -1;
    return 0;
}

/* A field of the reason: its blanks and line breaks squeezed, none of
 * them at its start or end. Whether anything but spaces is left of it. */
static bool put_field(struct text_out *o, const char *s, size_t n)
{
    size_t start = o->pos;
    o->blank = true;
    put_text(o, s, n, true);
    if (o->blank && !o->full && o->pos > start)
        o->buf[--o->pos] = '\0';
    /* Hidden characters became spaces one for one: a whole field of
     * nothing else is nothing (one the buffer cut stays as cut). */
    if (!o->full && o->len && strspn(o->buf + start, " ") == o->pos - start) {
        o->pos = start;
        o->buf[start] = '\0';
    }
    return o->pos > start;
}

int lava_case_reason(const char *meta, size_t len, char *buf, size_t buflen, struct pm_err *err)
{
    if (buflen)
        buf[0] = '\0';
    if (len > LAVA_META_MAX)
        return pm_errf(err, "%zu bytes, more than %u", len, LAVA_META_MAX);
    struct reader r = { .events = 0 };
    if (!yaml_parser_initialize(&r.parser))
        return pm_errf(err, "out of memory");
    /* Only UTF-8: without this, a byte order mark would make libyaml read
     * the text as UTF-16. */
    yaml_parser_set_encoding(&r.parser, YAML_UTF8_ENCODING);
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)meta, len);
    struct case_fields f = { NULL, NULL, 0, 0 };
    int rc = read_case(&r, &f, err);
    yaml_parser_delete(&r.parser);
    if (rc == 0 && f.msg && *f.msg) {
        /* A field that cleans to nothing (blanks, format characters) is
         * as if it were empty: no "error: " without a type before it, no
         * reason at all without a message; a buffer the type filled keeps
         * the type, cut. */
        struct text_out o = { .buf = buf, .len = buflen };
        if (f.type && *f.type && put_field(&o, f.type, f.type_len))
            put_text(&o, " error: ", 8, false);
        if (!put_field(&o, f.msg, f.msg_len) && !o.full && buflen)
            buf[0] = '\0';
    }
    free(f.type);
    free(f.msg);
    return rc;
}
