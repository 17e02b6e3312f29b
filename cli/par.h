/* par.h: the processes of one run of cli/ee: the ranks of an MPI job, or
 * a single process. Built without MPI (configure --with-mpi=no), or
 * started without an MPI launcher, the same calls describe one process,
 * so the commands have one code path. */
#ifndef EE_CLI_PAR_H
#define EE_CLI_PAR_H

#include "ee.h"

#include <stddef.h>

typedef struct {
    int rank, size;           /* in the job (MPI_COMM_WORLD) */
    int local_rank;           /* among the ranks on this node: picks the GPU */
    int local_size;           /* ranks on this node */
    int mpi;                  /* 1 when MPI was initialised */
} EePar;

/* Starts MPI when the process was started by an MPI launcher (mpirun,
 * srun) and the build has MPI; refuses (EE_ERR_UNSUPPORTED) to run as
 * one of several launched processes without MPI, which would make every
 * process compute and write everything. */
int ee_par_init(int *argc, char ***argv, EePar *p);
void ee_par_finalize(const EePar *p);
/* Under MPI, unless OMP_NUM_THREADS says otherwise, each rank takes its
 * share of the node's cores as OpenMP threads: Open MPI binds more than
 * two ranks to a socket (not a core), where every rank would otherwise
 * start a thread per core of it. */
void ee_par_threads(const EePar *p);
/* "Open MPI 4.1.4" or why there is none. */
const char *ee_par_describe(void);

/* Collectives (no-ops for one process). */
int ee_par_max(const EePar *p, int v);              /* the largest v of all ranks */
double ee_par_max_double(const EePar *p, double v);
double ee_par_sum_double(const EePar *p, double v);
void ee_par_bcast(const EePar *p, void *buf, size_t bytes, int root);
/* Every rank passes its status and gets the status of the lowest rank
 * that failed (EE_OK when none), with that rank's message in
 * ee_last_error(), so that rank 0 can report it in one line. */
EeStatus ee_par_agree(const EePar *p, EeStatus st);

#endif
