/* cuda_optime.cuh: per-op device time of the CUDA backend, for finding
 * where a workload spends it (EE_CUDA_OPTIME=1 in the environment when the
 * backend starts; off, the op table holds the plain functions and nothing
 * is measured). Each timed op records a CUDA event before and after it on
 * the backend's stream; the pairs are read in bulk, so the host never
 * waits per op, but every op pays two event records (microseconds): the
 * split between ops is what to read, not the total.
 * ee_cuda_optime_report (cuda_backend.h) prints and clears the totals. */
#ifndef EE_CUDA_OPTIME_CUH
#define EE_CUDA_OPTIME_CUH

#include <stddef.h>

/* the op of the op table at byte offset `op` of EeBackend */
void eecu_optime_begin(void);
void eecu_optime_end(size_t op);
void eecu_optime_name(size_t op, const char *name);
int eecu_optime_on(void);

template <size_t OP, typename F, F fn> struct EecuTimed;
template <size_t OP, typename R, typename... A, R (*fn)(A...)> struct EecuTimed<OP, R (*)(A...), fn> {
    struct Scope {
        Scope() { eecu_optime_begin(); }
        ~Scope() { eecu_optime_end(OP); }
    };
    static R call(A... a)
    {
        Scope s;
        return fn(a...);
    }
};

/* be->field = fn, timed when EE_CUDA_OPTIME is set */
#define EECU_SET_OP(be, field, fn)                                                                   \
    do {                                                                                             \
        eecu_optime_name(offsetof(EeBackend, field), #field);                                        \
        (be)->field = eecu_optime_on() ? &EecuTimed<offsetof(EeBackend, field), decltype(&fn), &fn>::call \
                                       : &fn;                                                        \
    } while (0)

#endif
