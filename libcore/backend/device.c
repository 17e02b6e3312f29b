/* device.c: which backend computes a call: the device and precision
 * names, their resolution and checks, the op table for a resolved pair,
 * the check after ops (which cannot return a status), and the calls the
 * front ends make about the GPU (selection, description, shutdown). The
 * stand-ins of the CUDA entry points live here when the build has no CUDA,
 * so that nothing above backend/ needs an #ifdef. */
#include "../ee.h"
#include "backend.h"
#include "cpu/cpu_internal.h"
#include "cuda/cuda_backend.h"

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

int ee_device_select(int index) { return ee_cuda_select(index); }

const char *ee_device_describe(void) { return ee_cuda_describe(); }

void ee_shutdown(void) { ee_cuda_shutdown(); }
