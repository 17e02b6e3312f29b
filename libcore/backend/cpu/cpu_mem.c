/* cpu_mem.c: per-thread scratch memory of the CPU backend's ops, the
 * out-of-memory flag they raise instead of aborting, and the choice of the
 * AVX2 loops (see cpu_internal.h): the base of cpu/, calling no other file
 * of it (cpu_gemm.c and cpu_ops.c build on it). */
#include "cpu_internal.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local struct {
    void *p;
    size_t n;
} scratch[EE_SCRATCH_SLOTS];

static int nomem; /* any thread may raise it */

void ee_cpu_raise_nomem(void) { __atomic_store_n(&nomem, 1, __ATOMIC_RELAXED); }

int ee_cpu_take_nomem(void) { return __atomic_exchange_n(&nomem, 0, __ATOMIC_RELAXED); }

void *ee_cpu_scratch(int slot, size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (scratch[slot].n < bytes) {
        free(scratch[slot].p);
        scratch[slot].p = malloc(bytes);
        scratch[slot].n = scratch[slot].p ? bytes : 0;
        if (!scratch[slot].p) ee_cpu_raise_nomem();
    }
    return scratch[slot].p;
}

void ee_cpu_release_scratch(void)
{
    for (int i = 0; i < EE_SCRATCH_SLOTS; i++) {
        free(scratch[i].p);
        scratch[i].p = NULL;
        scratch[i].n = 0;
    }
}

int ee_cpu_use_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && defined(EE_HAVE_AVX2_OBJECT)
    static int v = -1;
    if (v < 0) v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return v;
#else
    return 0;
#endif
}

int ee_cpu_use_avx512(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int v = -1;
    if (v < 0) {
        const char *env = getenv("EE_CPU_AVX512");
        v = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
            __builtin_cpu_supports("fma") && !(env && !strcmp(env, "0"));
    }
    return v;
#else
    return 0;
#endif
}
