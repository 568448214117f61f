#ifndef PM_STORE_UNSTORED_H
#define PM_STORE_UNSTORED_H
/* A run's results that could not be stored (the database locked past the
 * wait, removed, on a full or failing disk) are not lost: they are kept
 * beside the database, in DB.unstored/UUID.json (a directory of the
 * user's, mode 0700; the file 0600, JSON a person can read), and the next
 * pressmark that runs something stores them, or says why it could not and
 * leaves the file. The run's ticks are not kept this way: only its end. */
#include <stdbool.h>
#include <stdio.h>
#include "lib/machine.h"
#include "store/db.h"
#include "store/reserve.h"
#include "store/runs.h"

/* Larger files are not read (a run's record is some tens of KB). */
#define UNSTORED_MAX_BYTES (16u << 20)

/* DB.unstored for the database at db_path. */
void unstored_dir(const char *db_path, char *buf, size_t len);

/* Keep the run's record beside the database; why is the store's error.
 * Written into the blocks of the run's reserve when one is held (so a full
 * disk still takes it; the rest of the reserve is freed), else into a new
 * file; either way whole or not at all (renamed into place). 0 with its
 * path in path, or -1 with err. */
int unstored_keep(const char *db_path, const struct machine_info *mi, const struct run_row *row,
                  const struct run_record *rec, const char *why, struct db_reserve *reserve, char *path,
                  size_t len, struct pm_err *err);
/* Remove the record of run uuid (stored after all), and the directory
 * when it is left empty. */
void unstored_forget(const char *db_path, const char *uuid);
/* Store every record kept beside db (one transaction each), removing each
 * file once stored; one line on say per record, stored or not and why.
 * Returns how many were stored. */
int unstored_store_all(struct pm_db *db, FILE *say);
/* Is name a record's file name (its run's UUID, .json)? */
bool unstored_name(const char *name);
/* How many records wait beside the database at db_path. */
int unstored_waiting(const char *db_path);

#endif
