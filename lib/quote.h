#ifndef PM_QUOTE_H
#define PM_QUOTE_H
/* Strings from a database, a URL or a file are data: each output language
 * has one function here that writes them so they stay data in it. Every
 * writer of that language calls it; none quotes by hand. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* gnuplot: a string expression of single-quoted pieces, control
 * characters left out. gnuplot expands backticks (command substitution)
 * and escapes everywhere but inside single quotes, so nothing in a label
 * can run a command. A quote in s is a piece of its own, "'" (a double-
 * quoted quote holds nothing to expand), joined by '.': gnuplot 5.4
 * misreads the documented doubled quote when two follow each other or
 * one opens the string (it reads 'a''''b' as a' and a syntax error). */
void quote_gnuplot(FILE *f, const char *s);
/* A file name made from s: letters, digits, '.', '-' and '_' kept, anything
 * else '_', never starting with '.', at most len - 1 bytes ("x" when empty). */
void quote_slug(const char *s, char *buf, size_t len);
/* CSV (RFC 4180): quoted when it holds a comma, quote, CR or LF; a field a
 * spreadsheet would take as a formula (=, +, -, @, tab, CR first) gets a
 * leading apostrophe. Numbers are written by the caller, not through this. */
void quote_csv(FILE *f, const char *s);
/* HTML and XML text and attribute values alike: & < > " ' escaped, control
 * characters other than tab and newline left out, what is not valid UTF-8
 * (and U+FFFE, U+FFFF) written as U+FFFD: the output is always UTF-8 an
 * XML parser takes. */
void quote_html(FILE *f, const char *s);
/* Markdown: its punctuation backslash-escaped (| * _ ` [ ] < > # \), line
 * breaks as spaces, so a string is text in a table cell or a list item. */
void quote_markdown(FILE *f, const char *s);
/* A systemd unit file's word, double-quoted, with \ " % and control
 * characters escaped, for the directive it goes into: an ExecStart=
 * argument also has $ doubled (systemd would expand a variable there);
 * an Environment= assignment keeps $ as it is (systemd expands nothing
 * there, so $$ would arrive as two). */
void quote_systemd_exec(FILE *f, const char *s);
/* Can a unit carry s? systemd ignores an assignment that is not valid
 * UTF-8 or holds a control character: such a value must be refused, not
 * written. */
bool quote_systemd_ok(const char *s);
void quote_systemd_env(FILE *f, const char *s);
/* A stream over f that writes what it is given with control characters
 * (but newline and tab) as \xNN: human-readable output from a database
 * goes through it. NULL when it cannot be made. */
FILE *quote_terminal_stream(FILE *f);
/* The terminal: control characters (escape sequences, CR, backspace, DEL)
 * shown as \xNN, so a label cannot move the cursor or retitle a window. */
void quote_terminal(const char *s, char *buf, size_t len);

#endif
