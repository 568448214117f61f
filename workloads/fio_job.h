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

/* The longest path a job file names (the data file's): a journal line's
 * field holds no more (pressure/undo_line.h's UNDO_FIELD_MAX), and the
 * scratch directory above the file is journalled. */
#define FIO_PATH_MAX 512
/* A job file's text at most: the fixed lines (under 700 bytes with the
 * largest numbers) and the path. unit_fio renders the longest job into
 * exactly this. */
#define FIO_JOB_TEXT_MAX (1024 + FIO_PATH_MAX)

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
 * path may not go into it or buf is too small. Both phases run fio's jobs
 * as threads of its one process (thread=1): setpriv's parent-death signal
 * reaches only that process, and a job forked as a process of its own
 * would outlive a SIGKILLed pressmark holding the unlinked file. */
int fio_job_text(const struct fio_job *j, enum fio_phase phase, const char *path, char *buf, size_t len,
                 struct pm_err *err);

/* fio's io_bytes in its JSON (json, NUL-terminated), summed over its
 * jobs: bytes[0] read, bytes[1] write; a direction the mode does not do
 * is 0. Every job must carry a whole, non-negative io_bytes for each
 * direction the mode does. -1 with why (what is wrong, for the run's
 * reason) when the JSON does not parse or a job's figure is missing,
 * negative or not whole. */
int fio_io_bytes(const char *json, const struct fio_job *j, uint64_t bytes[2], char *why, size_t len);
/* One pass (no runtime) moves exactly size x numjobs bytes: read for a
 * mode that reads, written for one that writes, both together for a
 * mixed one (fio's io_size counts both). 0 when bytes say so, or when
 * the job is time based; -1 with why. */
int fio_pass_check(const struct fio_job *j, const uint64_t bytes[2], char *why, size_t len);

#endif
