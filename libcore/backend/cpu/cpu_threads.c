/* cpu_threads.c: the one threading model (DESIGN_NOTES, "Threading: one
 * pool"): OpenMP teams opened by the CPU backend, OpenBLAS single-threaded
 * for the duration of a call, and the call's scratch released when it
 * ends. The thread count is OpenMP's: OMP_NUM_THREADS, or whatever the
 * caller set with omp_set_num_threads before the call. */
#include "../../ee.h"
#include "cpu_internal.h"

#include <cblas.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static _Thread_local int saved_blas_threads = -1;
static _Thread_local int enter_depth = 0;

void ee_threads_enter(void)
{
    if (enter_depth++ == 0) {
        saved_blas_threads = openblas_get_num_threads();
        openblas_set_num_threads(1);
    }
}

void ee_threads_leave(void)
{
    if (enter_depth > 0 && --enter_depth == 0) {
        if (saved_blas_threads > 0) openblas_set_num_threads(saved_blas_threads);
        ee_cpu_release_scratch(); /* the call's scratch does not outlive it */
    }
}

int ee_team_worth(size_t work, size_t threshold)
{
#ifdef _OPENMP
    if (omp_in_parallel()) return 0;
#endif
    return work > threshold;
}

int ee_threads_count(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
