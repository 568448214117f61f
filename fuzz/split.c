#include "fuzz/fuzz.h"
#include <string.h>

size_t fuzz_split(const uint8_t *data, size_t size, char **strs, size_t max, char **block)
{
    char *b = malloc(size + 1);
    *block = b;
    if (!b)
        return 0;
    memcpy(b, data, size);
    b[size] = '\0';
    size_t n = 0;
    for (char *p = b; n < max && p <= b + size; p += strlen(p) + 1)
        strs[n++] = p;
    return n;
}
