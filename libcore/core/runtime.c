/* runtime.c: threads (the one threading model, see backend/cpu/cpu_ops.c),
 * clocks, the interrupt hook and device selection. */
#include "../ee.h"
#include "../backend/backend.h"
#include "../backend/cpu/cpu_internal.h"
#include "../backend/cuda/cuda_backend.h"
#include "core.h"

#include <cblas.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
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

int ee_threads_count(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* ---- interrupts: the hook of the calling thread, asked at most every
 * 20 ms (a poll may cost more than a pass of a small model) ---- */
static _Thread_local int (*interrupt_fn)(void *);
static _Thread_local void *interrupt_ctx;
static _Thread_local int interrupt_seen;
static _Thread_local double interrupt_last;

void ee_set_interrupt(int (*fn)(void *ctx), void *ctx)
{
    interrupt_fn = fn;
    interrupt_ctx = ctx;
    interrupt_seen = 0;
    interrupt_last = 0;
}

int ee_interrupted(void)
{
    if (interrupt_seen || !interrupt_fn) return interrupt_seen;
    double now = ee_now();
    if (now - interrupt_last < 0.02) return 0;
    interrupt_last = now;
    interrupt_seen = interrupt_fn(interrupt_ctx) != 0;
    return interrupt_seen;
}

double ee_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

const char *const ee_device_names[EE_DEVICE_COUNT] = {"auto", "cpu", "gpu"};

int ee_gpu_available(void) { return ee_backend_cuda() != NULL; }

EeStatus ee_device_resolve(EeDevice want, EeDevice *got)
{
    switch (want) {
    case EE_DEVICE_AUTO:
        *got = ee_gpu_available() ? EE_DEVICE_GPU : EE_DEVICE_CPU;
        return EE_OK;
    case EE_DEVICE_CPU:
        *got = EE_DEVICE_CPU;
        return EE_OK;
    case EE_DEVICE_GPU:
        if (!ee_gpu_available())
            return ee_fail(EE_ERR_NODEVICE,
#ifdef EE_HAVE_CUDA
                           "device 'gpu' requested but no CUDA device is visible"
#else
                           "device 'gpu' requested but this build has no CUDA backend (configure --with-cuda)"
#endif
            );
        *got = EE_DEVICE_GPU;
        return EE_OK;
    }
    return ee_fail(EE_ERR_INPUT, "unknown device %d", (int)want);
}

const char *const ee_precision_names[EE_PRECISION_COUNT] = {"fp32", "tf32", "bf16"};

EeStatus ee_precision_check(EeDevice dev, EePrecision p)
{
    if ((unsigned)p >= EE_PRECISION_COUNT) return ee_fail(EE_ERR_INPUT, "unknown precision %d", (int)p);
    if (p == EE_PRECISION_FP32) return EE_OK;
    if (dev != EE_DEVICE_GPU)
        return ee_fail(EE_ERR_UNSUPPORTED,
                       "precision '%s' needs the tensor cores of a GPU; the CPU computes in fp32 only "
                       "(use 'precision', 'fp32' or 'device', 'gpu')",
                       ee_precision_names[p]);
    return EE_OK;
}

const EeBackend *ee_backend_at(EeDevice dev, EePrecision p)
{
    if (dev == EE_DEVICE_GPU) return ee_backend_cuda_at(p);
    return p == EE_PRECISION_FP32 ? ee_backend_cpu() : NULL;
}

const EeBackend *ee_backend_for(EeDevice dev) { return ee_backend_at(dev, EE_PRECISION_FP32); }

EeStatus ee_backend_resolve(EeDevice want, EePrecision p, EeDevice *dev, const EeBackend **be)
{
    EeStatus st = ee_device_resolve(want, dev);
    if (!st) st = ee_precision_check(*dev, p);
    if (st) return st;
    *be = ee_backend_at(*dev, p);
    if (!*be) return ee_fail(EE_ERR_UNSUPPORTED, "no backend computes at precision '%s' on this device",
                             ee_precision_names[p]);
    return EE_OK;
}

#ifndef EE_HAVE_CUDA
const EeBackend *ee_backend_cuda(void) { return NULL; }
const EeBackend *ee_backend_cuda_at(EePrecision p) { (void)p; return NULL; }
#endif

EeStatus ee_backend_check(const EeBackend *be)
{
    if (ee_cpu_take_nomem())
        return ee_fail(EE_ERR_NOMEM, "out of host memory for the scratch space of an operation");
    if (be && be->device == EE_DEVICE_GPU && ee_cuda_check_error())
        return ee_fail(EE_ERR_NODEVICE, "a CUDA operation failed (details on stderr); "
                                        "the GPU may be out of memory: try a smaller 'batch'");
    return EE_OK;
}

void ee_say(int verbose, void (*print)(void *, const char *), void *ctx, const char *fmt, ...)
{
    if (!verbose) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (print) print(ctx, line);
    else fprintf(stderr, "%s\n", line);
}
