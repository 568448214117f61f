#ifndef PM_FIGURES_TEXT_H
#define PM_FIGURES_TEXT_H
/* What the parsers of figures/ share for reading a tool's text: lines,
 * numbers, the words that name a job or a test, and the line of the
 * output an error quotes. The text is NUL-terminated and bounded
 * (figures_parse checked it). */
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "figures/figures.h"

/* text[0..len) as a malloc'd C string the parsers may read with string
 * functions: at most FIGURES_MAX_TEXT bytes and without a NUL byte (a
 * tool's text has none; one would hide what follows it from some readers
 * and not from others). NULL with err ("the WHAT holds ..."). */
char *fig_text_copy(const char *what, const char *text, size_t len, struct pm_err *err);

/* Lines one at a time, copied so a parser may cut them up. A line longer
 * than the buffer is no tool's figure line: it is handed over empty, with
 * long set, so nothing is read from a cut line. */
struct fig_lines {
    const char *p;
    unsigned no;                 /* the line's number, from 1 */
    bool long_line;
    char line[1024];
};
void fig_lines_init(struct fig_lines *it, const char *text);
/* The next line, its newline (and a '\r' before it) removed; false at the
 * end of the text. */
bool fig_lines_next(struct fig_lines *it);

/* A plain decimal number at s: [-]digits[.digits][e[+-]digits], at most
 * 64 characters, finite. strtod alone would also take "inf", "nan", hex
 * and leading blanks, none of which is a tool's figure. *end (if not
 * NULL) is set after it. */
bool fig_number(const char *s, const char **end, double *v);
/* The whole of s (blanks around it aside) is such a number. */
bool fig_number_all(const char *s, double *v);

/* s[0..n) as a word for a figure's name: lower case, each run of other
 * characters than [a-z0-9] one '_', none at either end, at most
 * FIGURES_MAX_WORD characters. False when nothing is left. */
bool fig_word(const char *s, size_t n, char out[FIGURES_MAX_WORD + 1]);

/* s without its leading blanks. */
const char *fig_skip_blanks(const char *s);
/* If line starts with prefix, what follows it; else NULL. */
const char *fig_after(const char *line, const char *prefix);

/* The JSON document in text: from the first line that starts with '{'
 * (or '[' too when arrays is set), so lines a tool wrote before it (its
 * standard error, when both were kept together) do not stop it, to the
 * end of the value (what follows is not read). A key twice in one object
 * is refused: which value is the figure would be a guess. NULL with err
 * (what names the document in it: "JSON of fio --output-format=json"). */
json_t *fig_json_load(const char *text, bool arrays, const char *what, struct pm_err *err);

/* The line of text an error quotes: the first that reads like the tool's
 * error ("error", "fatal", "failed", "could not", "invalid",
 * "unrecognized"), else the first that is not blank; printable ASCII only,
 * cut to fit. "(no output)" when there is none. */
void fig_hint(const char *text, char *buf, size_t len);
/* err: "no FIGURE: WHAT (the output says: HINT)"; returns -1. */
int fig_missing(struct pm_err *err, const char *figure, const char *what, const char *text);

#endif
