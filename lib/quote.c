#include "lib/quote.h"
#include "lib/utf8.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void quote_gnuplot(FILE *f, const char *s)
{
    bool any = false, open = false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            continue;
        if (*p == '\'') {
            if (open)
                fputc('\'', f);
            open = false;
            fputs(any ? ".\"'\"" : "\"'\"", f);
        } else {
            if (!open)
                fputs(any ? ".'" : "'", f);
            open = true;
            fputc(*p, f);
        }
        any = true;
    }
    if (open)
        fputc('\'', f);
    if (!any)
        fputs("''", f);
}

void quote_slug(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && o + 1 < len; p++) {
        bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                    *p == '-' || *p == '_' || (*p == '.' && o > 0);
        buf[o++] = keep ? (char)*p : '_';
    }
    if (o == 0 && len > 1)
        buf[o++] = 'x';
    if (len)
        buf[o < len ? o : len - 1] = '\0';
}

void quote_csv(FILE *f, const char *s)
{
    bool formula = strchr("=+-@\t\r", s[0]) && s[0];
    if (!formula && !strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    if (formula)
        fputc('\'', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A byte at or above 0x80 in HTML or XML: a whole valid sequence as it is;
 * a byte that begins none, and U+FFFE and U+FFFF (not XML characters),
 * as U+FFFD. An XML parser stops at the first invalid byte, so one stray
 * byte in a label would leave a JUnit file nobody can read. The bytes
 * taken. */
static size_t put_html_utf8(FILE *f, const unsigned char *p)
{
    size_t n = utf8_seq(p);
    if (n == 0 || (n == 3 && p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))) {
        fputs("\xef\xbf\xbd", f);
        return n ? n : 1;
    }
    fwrite(p, 1, n, f);
    return n;
}

void quote_html(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x80) {
            p += put_html_utf8(f, p) - 1;
            continue;
        }
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if (*p >= 0x20 || *p == '\n' || *p == '\t')
                if (*p != 0x7f)
                    fputc(*p, f);
        }
    }
}

void quote_markdown(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n' || *p == '\r')
            fputc(' ', f);
        else if (*p < 0x20 || *p == 0x7f)
            continue;
        else {
            if (strchr("|*_`[]<>#\\", *p))
                fputc('\\', f);
            fputc(*p, f);
        }
    }
}

/* A control character as the four characters \xNN. */
static void hex_escape(unsigned char c, char out[5])
{
    static const char hex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    out[4] = '\0';
}

/* The stream's state: a C1 character's lead byte (0xc2) may end one
 * write and its second byte begin the next, so it is held until then. */
struct terminal_cookie {
    FILE *f;
    bool held_c2;
};

/* One byte after a held 0xc2 (or none, at the end): the pair escaped when
 * it is C1 (U+0080 to U+009F), else the lead byte as it was. */
static int put_held(struct terminal_cookie *tc, int next)
{
    tc->held_c2 = false;
    if (next >= 0x80 && next <= 0x9f) {
        char esc[9];
        hex_escape(0xc2, esc);
        hex_escape((unsigned char)next, esc + 4);
        return fputs(esc, tc->f) == EOF ? -1 : 1;
    }
    return fputc(0xc2, tc->f) == EOF ? -1 : 0;
}

static ssize_t terminal_write(void *cookie, const char *buf, size_t size)
{
    struct terminal_cookie *tc = cookie;
    for (size_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)buf[i];
        int rc = 0;
        if (tc->held_c2) {
            int used = put_held(tc, c);
            if (used < 0)
                return i ? (ssize_t)i : -1;
            if (used)
                continue;
        }
        if (c == 0xc2) {
            tc->held_c2 = true;
        } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            char esc[5];
            hex_escape(c, esc);
            rc = fputs(esc, tc->f);
        } else {
            rc = fputc(c, tc->f);
        }
        if (rc == EOF)
            return i ? (ssize_t)i : -1;
    }
    return (ssize_t)size;
}

static int terminal_close(void *cookie)
{
    struct terminal_cookie *tc = cookie;
    int rc = tc->held_c2 && put_held(tc, -1) < 0 ? EOF : 0;
    if (fflush(tc->f) == EOF)
        rc = EOF;
    free(tc);
    return rc;
}

FILE *quote_terminal_stream(FILE *f)
{
    struct terminal_cookie *tc = calloc(1, sizeof *tc);
    if (!tc)
        return NULL;
    tc->f = f;
    cookie_io_functions_t io = { .read = NULL, .write = terminal_write, .seek = NULL, .close = terminal_close };
    FILE *s = fopencookie(tc, "w", io);
    if (!s)
        free(tc);
    return s;
}

void quote_terminal(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && o + 5 < len; p++) {
        /* C0 and DEL; C1 (U+0080 to U+009F, which some terminals take as
         * ESC [ and the like) whether as UTF-8 or as a bare byte. */
        size_t n = utf8_seq(p);
        bool c1 = (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) || (n == 0 && *p >= 0x80 && *p <= 0x9f);
        if (*p < 0x20 || *p == 0x7f || c1) {
            hex_escape(*p, buf + o);
            o += 4;
            if (c1 && p[0] == 0xc2 && o + 5 < len) {
                hex_escape(*++p, buf + o);
                o += 4;
            }
        } else {
            buf[o++] = (char)*p;
        }
    }
    if (len)
        buf[o < len ? o : len - 1] = '\0';
}

/* systemd.syntax(7): a double-quoted word with C escapes, and '%' starts
 * a specifier everywhere in a unit file; in ExecStart= '$' also starts a
 * variable (systemd.service(5)), in Environment= it is a character like
 * any other (systemd.exec(5)). */
static void quote_systemd_word(FILE *f, const char *s, bool dollar_is_variable)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '%')
            fputs("%%", f);
        else if (*p == '$' && dollar_is_variable)
            fputs("$$", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

bool quote_systemd_ok(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return utf8_valid(s);
}

void quote_systemd_exec(FILE *f, const char *s)
{
    quote_systemd_word(f, s, true);
}

void quote_systemd_env(FILE *f, const char *s)
{
    quote_systemd_word(f, s, false);
}
