#ifndef PM_EXPERIMENT_BACKEND_LAVA_GUEST_H
#define PM_EXPERIMENT_BACKEND_LAVA_GUEST_H
/* The guest half of backend = lava: pressmark __lava-guest, inside a LAVA
 * job's booted guest (experiment/backend_lava_guest.c). */

/* The job's cells, their LAVA test cases, the results uploaded; the
 * process's exit status. */
int exp_lava_guest_main(int argc, char **argv);

#endif
