#ifndef PM_FUZZ_H
#define PM_FUZZ_H
/* Every harness defines the libFuzzer entry point. Built with clang's
 * -fsanitize=fuzzer for `make fuzz`; built with any compiler and linked
 * with fuzz/replay.c for the test suite, which replays the committed
 * corpora (fuzz/corpus/NAME) through it. A harness reports a broken
 * property with FUZZ_ASSERT: a message and abort(), which both libFuzzer
 * and the replay count as a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_ASSERT(cond, ...)                                                        \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: property broken: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            abort();                                                                  \
        }                                                                             \
    } while (0)

/* The input cut at NUL bytes into at most max NUL-terminated strings in
 * one allocation (free *strs[0]... free the returned block). Returns how
 * many; the block is returned in *block. */
size_t fuzz_split(const uint8_t *data, size_t size, char **strs, size_t max, char **block);

#endif
