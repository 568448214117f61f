#ifndef PM_SWAP_H
#define PM_SWAP_H
/* Swap for one run: a temporary swap file or a zram device, added with a
 * priority above every existing device (so the run's swap is the one used)
 * and removed at the end. */
#include <stdint.h>
#include "lib/err.h"
#include "lib/kv.h"

enum swap_kind { SWAP_NONE, SWAP_FILE, SWAP_ZRAM };

struct swap_config {
    enum swap_kind kind;
    uint64_t size;
    char algo[32];               /* zram compressor; empty: the kernel's default */
    char dir[256];               /* where swap files go */
};

/* Parse "256M" or "zram:256M" or "zram:256M:lz4". -1 on bad text. */
int swap_parse(const char *text, struct swap_config *out);

int swap_add(const struct swap_config *cfg, int64_t run_id, struct kv_list *meta, struct pm_err *err);

/* The default directory for swap files: root-owned, on a real disk. */
#define PM_SWAP_PARENT "/var/lib/pressmark"
#define PM_SWAP_DIR PM_SWAP_PARENT "/swap"

/* Does the configured swap fit before anything is created? A swap file
 * must fit in the free space of the filesystem it goes on (with 1% and
 * 64 MiB to spare), and a zram compressor must be one this kernel has;
 * -1 with err saying how much there is, or which compressors. */
int swap_check_fits(const struct swap_config *cfg, struct pm_err *err);

/* zram here: ZRAM_LOADED (zram-control is there), ZRAM_MODULE (a module
 * nothing has loaded, as Debian's kernels build it: a run loads it and
 * unloads it after), or ZRAM_NONE. */
enum zram_state { ZRAM_NONE, ZRAM_MODULE, ZRAM_LOADED };
enum zram_state swap_zram_state(void);

#endif
