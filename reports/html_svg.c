#include "reports/html_svg.h"
#include <stdlib.h>
#include <string.h>

void html_inline_svg(FILE *out, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fputs("<p>(chart missing)</p>\n", out);
        return;
    }
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *buf = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        const char *svg = strstr(buf, "<svg");
        fputs("<div class=\"chart\">\n", out);
        fputs(svg ? svg : "", out);
        fputs("\n</div>\n", out);
    } else {
        fputs("<p>(chart unreadable)</p>\n", out);
    }
    free(buf);
    fclose(f);
}
