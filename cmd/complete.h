#ifndef PM_CMD_COMPLETE_H
#define PM_CMD_COMPLETE_H
/* "pressmark __complete labels|runs": Tab completion's candidates. */
int cmd_complete(int argc, char **argv);

#endif
