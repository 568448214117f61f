/* Writes the strings of corpus files (cut at NUL as fuzz_writers.c cuts
 * them) through each output writer into one file per language, for the
 * real parsers to read back (tests/t43-fuzz.t): DIR/strings.hex (each
 * string in hex, one per line: what the parsers must find), DIR/out.csv
 * (a row per string: the string, then "end"), DIR/out.json ({"strings":
 * [...]}), DIR/out.html (each string in a td and a title attribute) and
 * DIR/out.gp (gnuplot printing each string into DIR/printed.txt) and
 * DIR/out.service (a systemd unit: each string as an Environment=
 * assignment S<n>=... and as the argument of an ExecStart= line).
 * usage: writers-emit DIR FILE... */
#include <errno.h>
#include <string.h>
#include "fuzz/fuzz.h"
#include "lib/json.h"
#include "lib/quote.h"

static FILE *open_out(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "writers-emit: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    return f;
}

static char *slurp(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    for (;;) {
        if (*len == cap) {
            cap = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, cap);
            if (!nb)
                break;
            buf = nb;
        }
        size_t r = fread(buf + *len, 1, cap - *len, f);
        *len += r;
        if (r == 0)
            break;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: writers-emit DIR FILE...\n");
        return 2;
    }
    const char *dir = argv[1];
    FILE *hex = open_out(dir, "strings.hex"), *csv = open_out(dir, "out.csv"), *json = open_out(dir, "out.json"),
         *html = open_out(dir, "out.html"), *gp = open_out(dir, "out.gp"), *unit = open_out(dir, "out.service");
    fputs("[Unit]\nDescription=pressmark quoting check\n\n[Service]\nType=oneshot\n", unit);
    struct jw j;
    jw_init(&j, json, false);
    jw_object_begin(&j, NULL);
    jw_array_begin(&j, "strings");
    fputs("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>t</title></head><body><table>\n", html);
    /* gnuplot's own output goes nowhere; only print writes, to a file. */
    char printed[4096];
    snprintf(printed, sizeof printed, "%s/printed.txt", dir);
    fputs("set terminal dumb\nset output '/dev/null'\nset print ", gp);
    quote_gnuplot(gp, printed);
    fputc('\n', gp);
    size_t count = 0;
    for (int i = 2; i < argc; i++) {
        size_t len;
        char *data = slurp(argv[i], &len);
        if (!data) {
            fprintf(stderr, "writers-emit: %s: cannot read\n", argv[i]);
            return 2;
        }
        char *strs[8], *block;
        size_t n = fuzz_split((const uint8_t *)data, len, strs, 8, &block);
        for (size_t k = 0; k < n; k++) {
            for (const unsigned char *p = (const unsigned char *)strs[k]; *p; p++)
                fprintf(hex, "%02x", *p);
            fputc('\n', hex);
            quote_csv(csv, strs[k]);
            fputs(",end\r\n", csv);
            jw_string(&j, NULL, strs[k]);
            fputs("<tr><td title=\"", html);
            quote_html(html, strs[k]);
            fputs("\">", html);
            quote_html(html, strs[k]);
            fputs("</td></tr>\n", html);
            fputs("print ", gp);
            quote_gnuplot(gp, strs[k]);
            fputc('\n', gp);
            /* What a unit cannot carry pressmark refuses to write into one:
             * an empty line in its place keeps the numbering. */
            const char *u = quote_systemd_ok(strs[k]) ? strs[k] : "";
            char var[32];
            snprintf(var, sizeof var, "S%zu=", count);
            char *assign = malloc(strlen(var) + strlen(u) + 1);
            if (assign) {
                strcpy(assign, var);
                strcat(assign, u);
                fputs("Environment=", unit);
                quote_systemd_env(unit, assign);
                fputs("\nExecStart=/bin/true ", unit);
                quote_systemd_exec(unit, u);
                fputc('\n', unit);
                free(assign);
            }
            count++;
        }
        free(block);
        free(data);
    }
    jw_array_end(&j);
    jw_object_end(&j);
    fputs("</table></body></html>\n", html);
    int bad = jw_end(&j) < 0;
    FILE *all[] = { hex, csv, json, html, gp, unit };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        bad |= fclose(all[i]) != 0;
    if (bad) {
        fprintf(stderr, "writers-emit: write error\n");
        return 2;
    }
    printf("%zu strings\n", count);
    return 0;
}
