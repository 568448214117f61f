#ifndef PM_EXPERIMENT_BACKEND_VM_H
#define PM_EXPERIMENT_BACKEND_VM_H
/* backend = vm's own keys (backend_vm.c), which backend = host takes
 * too: a suite moves between the two by its backend line alone. */
#include "lib/opt.h"

struct exp_vm_keys {
    unsigned accel;             /* vm-accel: EXP_VM_ACCEL_* */
};
enum { EXP_VM_ACCEL_AUTO, EXP_VM_ACCEL_KVM, EXP_VM_ACCEL_TCG };

extern const struct opt exp_vm_options[];

#endif
