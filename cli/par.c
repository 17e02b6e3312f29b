/* par.c: the processes of a run (see par.h). */
#define _GNU_SOURCE /* sched_getaffinity: the cores this rank may use */
#include "par.h"
#include "ee.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef EE_HAVE_MPI
#include <mpi.h>
#endif

/* Launchers announce the job size in the environment: Open MPI's mpirun,
 * PMIx (srun --mpi=pmix, prterun) and PMI-2 (srun --mpi=pmi2). */
static int launched_size(void)
{
    const char *names[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        if (v && atoi(v) > 0) return atoi(v);
    }
    /* PMIx sets the rank but not always the size */
    return getenv("PMIX_RANK") || getenv("PMI_RANK") ? 0 : 1;
}

int ee_par_init(int *argc, char ***argv, EePar *p)
{
    memset(p, 0, sizeof *p);
    p->size = p->local_size = 1;
    int n = launched_size();
#ifdef EE_HAVE_MPI
    if (n == 1) return EE_OK; /* started by hand: one process, no MPI start-up */
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return ee_fail(EE_ERR_UNSUPPORTED, "MPI_Init failed");
    /* errors of MPI calls come back as codes (the default aborts the job
     * without a word from us) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p->size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &p->local_rank);
    MPI_Comm_size(node, &p->local_size);
    MPI_Comm_free(&node);
    p->mpi = 1;
    return EE_OK;
#else
    (void)argc;
    (void)argv;
    /* the launcher's rank, so that only one of the processes reports */
    const char *r = getenv("OMPI_COMM_WORLD_RANK") ? getenv("OMPI_COMM_WORLD_RANK") : getenv("PMIX_RANK");
    if (n != 1 && r) p->rank = atoi(r);
    if (n != 1)
        return ee_fail(EE_ERR_UNSUPPORTED,
                       "this ee was built without MPI (configure --with-mpi) but was started as one "
                       "of %s processes by an MPI launcher: each would compute every row; run it "
                       "without mpirun/srun, or rebuild with libopenmpi-dev installed",
                       n > 1 ? "several" : "an unknown number of");
    return EE_OK;
#endif
}

void ee_par_finalize(const EePar *p)
{
#ifdef EE_HAVE_MPI
    if (p->mpi) MPI_Finalize();
#else
    (void)p;
#endif
}

void ee_par_threads(const EePar *p)
{
#ifdef _OPENMP
    if (!p->mpi || getenv("OMP_NUM_THREADS")) return;
    cpu_set_t set;
    long mine = sched_getaffinity(0, sizeof set, &set) ? 1 : CPU_COUNT(&set);
    long node = sysconf(_SC_NPROCESSORS_ONLN) / (p->local_size > 0 ? p->local_size : 1);
    long n = mine < node ? mine : node;
    omp_set_num_threads(n > 0 ? (int)n : 1);
#else
    (void)p;
#endif
}

const char *ee_par_describe(void)
{
#ifdef EE_HAVE_MPI
    static char buf[MPI_MAX_LIBRARY_VERSION_STRING + 16];
    int len = 0;
    MPI_Get_library_version(buf, &len);
    /* the first line names the library and its version */
    char *nl = strchr(buf, '\n');
    if (nl) *nl = 0;
    nl = strchr(buf, ',');
    if (nl) *nl = 0;
    return buf;
#else
    return "none (built with --with-mpi=no or without libopenmpi-dev)";
#endif
}

int ee_par_max(const EePar *p, int v)
{
#ifdef EE_HAVE_MPI
    if (p->mpi) {
        int out = v;
        MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return out;
    }
#else
    (void)p;
#endif
    return v;
}

double ee_par_max_double(const EePar *p, double v)
{
#ifdef EE_HAVE_MPI
    if (p->mpi) {
        double out = v;
        MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return out;
    }
#else
    (void)p;
#endif
    return v;
}

double ee_par_sum_double(const EePar *p, double v)
{
#ifdef EE_HAVE_MPI
    if (p->mpi) {
        double out = v;
        MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        return out;
    }
#else
    (void)p;
#endif
    return v;
}

void ee_par_bcast(const EePar *p, void *buf, size_t bytes, int root)
{
#ifdef EE_HAVE_MPI
    if (!p->mpi) return;
    /* in pieces: MPI counts are int */
    char *b = buf;
    while (bytes > 0) {
        int n = bytes > (1u << 30) ? 1 << 30 : (int)bytes;
        MPI_Bcast(b, n, MPI_BYTE, root, MPI_COMM_WORLD);
        b += n;
        bytes -= (size_t)n;
    }
#else
    (void)p;
    (void)buf;
    (void)bytes;
    (void)root;
#endif
}

EeStatus ee_par_agree(const EePar *p, EeStatus st)
{
    if (!p->mpi) return st;
    /* the lowest failing rank, as the largest of size - rank */
    int who = ee_par_max(p, st ? p->size - p->rank : 0);
    if (!who) return EE_OK;
    who = p->size - who;
    int code = (int)st;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ee_last_error());
    ee_par_bcast(p, &code, sizeof code, who);
    ee_par_bcast(p, msg, sizeof msg, who);
    if (who != 0 && p->rank == 0) return ee_fail((EeStatus)code, "rank %d: %s", who, msg);
    return ee_fail((EeStatus)code, "%s", msg);
}
