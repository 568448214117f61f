#ifndef PM_STORE_MACHINES_H
#define PM_STORE_MACHINES_H
#include <stdint.h>
#include "lib/machine.h"
#include "store/db.h"

/* Insert the machine if it is new; its id either way. */
int64_t store_machine(struct pm_db *db, const struct machine_info *m, struct pm_err *err);

#endif
