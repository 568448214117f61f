#ifndef PM_OPT_H
#define PM_OPT_H
/* Options as data, the way fio declares its options: a table of {name,
 * type, where in the state, bounds, default, help}. One parser turns a
 * value into the field (with the one-line error for a bad value), one
 * describer writes the configuration back as options, one writer prints
 * --help. Workloads and commands declare tables; nobody compares option
 * names with strcmp. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "lib/err.h"

enum opt_type {
    OPT_END,        /* the table's last entry */
    OPT_FLAG,       /* bool; takes no value */
    OPT_UINT,       /* unsigned, whole number within [min, max] */
    OPT_U64,        /* uint64_t, whole number within [min, max] */
    OPT_SIZE,       /* uint64_t bytes: 64M, 3G, 4096 (and N% of MemTotal with OPT_PCT_MEM) */
    OPT_DURATION,   /* uint64_t nanoseconds: 500ms, 10s, 2m */
    OPT_REAL,       /* double within [min, max] */
    OPT_CHOICE,     /* unsigned: the index of the value in words */
    OPT_STRING,     /* char[size]; check (when set) validates it */
    OPT_CALLBACK,   /* set parses it into the state however it needs */
};

enum {
    OPT_PCT_MEM = 1 << 0,       /* OPT_SIZE: "75%" is a share of MemTotal */
    OPT_DESCRIBE_SET = 1 << 1,  /* describe it only when it differs from the default */
    OPT_NO_DESCRIBE = 1 << 2,   /* not part of the configuration (how long to wait, say) */
    OPT_OPTIONAL = 1 << 3,      /* the value may be left out ("" is set then); on the command
                                 * line it may follow as its own word when it starts with a digit */
};

struct opt {
    const char *name;           /* long option, without the dashes */
    enum opt_type type;
    size_t offset;              /* of the field in the state */
    size_t size;                /* OPT_STRING: the field's size */
    const char *metavar;        /* "SIZE"; NULL for flags */
    const char *def;            /* applied before the command line; NULL: none */
    const char *help;
    const char *noun;           /* in errors: "'x' is not a <noun>"; NULL: from the type */
    const char *extra;          /* added to what the error says is accepted */
    double min, max;            /* numbers (min == max == 0: no bounds) */
    const char *const *words;   /* OPT_CHOICE: the accepted words, NULL-terminated */
    /* OPT_CALLBACK: parse into state. OPT_STRING: check the value first. */
    int (*set)(void *state, const char *value, struct pm_err *err);
    /* OPT_CALLBACK: the value as an option argument, "" when unset. */
    void (*show)(const void *state, char *buf, size_t len);
    unsigned flags;
};

/* Set one option from its text. -1 with err saying what is accepted; the
 * caller names the option ("--size: " + err). */
int opt_set(const struct opt *o, void *state, const char *value, struct pm_err *err);
/* Apply every default of the table. */
int opt_set_defaults(const struct opt *table, void *state, struct pm_err *err);
const struct opt *opt_find(const struct opt *table, const char *name);
size_t opt_count(const struct opt *table);
/* The configuration as options in table order: "--size 512M --touch every-byte". */
void opt_describe(const struct opt *table, const void *state, char *buf, size_t len);
/* The value of one option as text, as describe writes it. */
void opt_value_text(const struct opt *o, const void *state, char *buf, size_t len);
/* --help lines: "  --size SIZE   help (default 512M)". */
void opt_help(FILE *f, const struct opt *table);

#endif
