/* /proc/meminfo: free memory, caches and zswap's pool over time (the
 * charts draw it; the vmstat source reads Zswapped). */
#include "collectors/source.h"
#include "collectors/proc_parse.h"

static void meminfo_init(struct source_set *ss, const struct source_opts *o)
{
    source_add_file(ss, "meminfo", o->proc_root, "meminfo", "meminfo", parse_keyed_lines);
}

const struct source_def source_meminfo = { .init = meminfo_init };
