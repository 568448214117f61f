#ifndef PM_UNDO_LINE_H
#define PM_UNDO_LINE_H
/* One line of the undo journal, "KIND<tab>A<tab>B", and the rule for
 * which places a line may name. Kept apart from the journal's file
 * handling so that recovery's trust decision is one pure function the
 * fuzzer can drive (fuzz/fuzz_journal.c). */
#include <stdbool.h>
#include <stddef.h>
#include "pressure/undo.h"

/* Longest field, in bytes, a journal line can carry (paths, values). */
#define UNDO_FIELD_MAX 512

const char *undo_kind_name(enum undo_kind kind);

/* The line for an action, with a newline; fields escaped (\t, \n, \\), so
 * a sysctl value holding tabs comes back whole. Returns its length, or -1
 * when it does not fit in len. */
int undo_line_format(char *buf, size_t len, enum undo_kind kind, const char *a, const char *b);

/* Parse one line (without its newline). 1: an action on one of
 * pressmark's places, in *kind, a and b (each UNDO_FIELD_MAX bytes); 0: not
 * an action (blank, unknown kind, a field too long to be one pressmark
 * wrote); -1: an action naming a place that is not pressmark's. */
int undo_line_parse(const char *line, enum undo_kind *kind, char a[UNDO_FIELD_MAX], char b[UNDO_FIELD_MAX]);

/* The places pressmark changes: sysctls under /proc/sys/vm, THP and zswap
 * switches, the multi-gen LRU's enabled and min_ttl_ms, cgroups named
 * pressmark*, its swap directory, zram device numbers, the zram and brd
 * modules, pids, scratch directories named pressmark-* and a ramdisk's
 * mount point "ramdisk" directly in one, VM image build directories named
 * pressmark-build-* and mounts inside them. Paths must be
 * absolute with no empty, "." or ".." component, so a name cannot climb out. */
bool undo_place_ours(enum undo_kind kind, const char *a);
/* Is the module loaded now, /sys/module/NAME of inode ino, the load an
 * UNDO_MODULE line's b names ("ino=N": pressmark's load; "": whichever is
 * loaded, as lines before identities were)? Anything else in b names no
 * load of pressmark's. */
bool undo_module_load_is(const char *ident, unsigned long long ino);

#endif
