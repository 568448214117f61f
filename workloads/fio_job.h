#ifndef PM_WORKLOADS_FIO_JOB_H
#define PM_WORKLOADS_FIO_JOB_H
/* The job files run fio hands fio: written by pressmark from numbers and
 * fixed words, never from a user's text, and so tested as text (tests/
 * unit_fio.c). Two jobs over one file: the layout phase writes the file
 * once, start to end; the measured phase does the operator's I/O on it,
 * buffered (direct=0 always: the page cache under the cap is what is
 * measured) and starting with whatever of the file the cap left cached
 * (invalidate=0: fio would otherwise drop the file's cached pages first). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"

/* --rw's words, fio's own, in the order of enum fio_rw. */
enum fio_rw { FIO_READ, FIO_RANDREAD, FIO_WRITE, FIO_RANDWRITE, FIO_READWRITE, FIO_RANDRW };
extern const char *const fio_rw_words[];
/* --ioengine's words, fio's own names of the engines Debian's fio has. */
enum fio_engine { FIO_PSYNC, FIO_SYNC, FIO_PVSYNC, FIO_PVSYNC2, FIO_IO_URING, FIO_LIBAIO, FIO_POSIXAIO, FIO_MMAP };
extern const char *const fio_engine_words[];

struct fio_job {
    uint64_t size;               /* the file's bytes, a multiple of bs */
    uint64_t bs;                 /* bytes per I/O */
    uint64_t runtime_ns;         /* time_based for this long; 0: one pass over the file per job */
    unsigned rw, engine;         /* enum fio_rw, enum fio_engine */
    unsigned numjobs, iodepth;
};

enum fio_phase { FIO_LAYOUT, FIO_MEASURED };

/* Does the mode read, write? (Which of fio's figures it has.) */
bool fio_rw_reads(unsigned rw);
bool fio_rw_writes(unsigned rw);
/* Is the engine one that keeps more than one I/O in flight (iodepth)? */
bool fio_engine_async(unsigned engine);
/* The file's size for a data set of dataset bytes: down to a whole number
 * of bs blocks (fio would round it so; the bytes a pass reads are then
 * exact). 0 when not one block fits. */
uint64_t fio_job_size(uint64_t dataset, uint64_t bs);
/* The layout phase's block: 1 MiB where the size is a whole number of
 * them, else the measured phase's bs (either way every byte is written). */
uint64_t fio_layout_bs(const struct fio_job *j);
/* Can path go into a job file as a value? Only [A-Za-z0-9._+-/]: fio reads
 * ':' in a file name as a list of files, '$' as a variable and a newline
 * as another option. */
bool fio_job_path_ok(const char *path);
/* The job file of phase for the file at path into buf; -1 with err when
 * path may not go into it or buf is too small. */
int fio_job_text(const struct fio_job *j, enum fio_phase phase, const char *path, char *buf, size_t len,
                 struct pm_err *err);

#endif
