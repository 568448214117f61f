#ifndef PM_BUILD_TREE_H
#define PM_BUILD_TREE_H
/* A synthetic C project standing in for a kernel tree: N translation
 * units sharing a set of heavy headers, each with one large function whose
 * size (--unit-size statements) sets how much memory cc1 needs for it
 * (about 50 KB a statement at -O2: 2,000 make a cc1 of ~100 MB), linked
 * into one binary called vmlinux. The same parameters and seed give the
 * same tree, byte for byte; it is generated once and cached by them. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "lib/err.h"

struct tree_params {
    unsigned files, unit_size, headers;
    uint64_t seed;
};

/* The cache directory for these parameters, generating it when missing. */
int wl_build_tree_ensure(const struct tree_params *p, char *dir, size_t len, FILE *say, struct pm_err *err);

#endif
