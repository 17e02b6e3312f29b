/* CPU emulation of the parts of the CUDA runtime that libcore's CUDA backend
 * uses: device memory is host memory (electric-fence style guarded
 * allocations), kernels run as cooperative fibers (one per thread), warp
 * shuffles and barriers are real barriers between those fibers. */
#pragma once
#include <functional>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tuple>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
extern dim3 threadIdx, blockIdx, blockDim, gridDim;

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
       cudaErrorInvalidConfiguration = 9, cudaErrorInvalidDevicePointer = 17 };
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                      cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
struct cudaDeviceProp { char name[256]; int major, minor, multiProcessorCount; size_t totalGlobalMem; };
struct cudaFuncAttributes { int dummy; };

const char *cudaGetErrorString(cudaError_t);
cudaError_t cudaGetLastError(void);
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total);
template <class T> cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st);
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetDeviceCount(int *);
cudaError_t cudaGetDevice(int *);
cudaError_t cudaSetDevice(int);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int);
template <class F> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F) { a->dummy = 0; return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t *);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
cudaError_t cudaEventDestroy(cudaEvent_t);

/* device side */
void emu_warp_barrier(void);
void emu_block_barrier(void);
int emu_linear_tid(void);
extern unsigned char emu_slots[32][32][8];
void emu_check_range(const void *p, size_t bytes, const char *what);

template <class T> T __shfl_xor_sync(unsigned mask, T v, int lm)
{
    (void)mask;
    int lin = emu_linear_tid(), w = lin >> 5, l = lin & 31;
    static_assert(sizeof(T) <= 8, "slot size");
    memcpy(emu_slots[w][l], &v, sizeof(T));
    emu_warp_barrier();
    T r;
    memcpy(&r, emu_slots[w][l ^ lm], sizeof(T));
    emu_warp_barrier();
    return r;
}
inline void __syncthreads(void) { emu_block_barrier(); }
inline void __syncwarp(unsigned m = 0xffffffffu) { (void)m; emu_warp_barrier(); }
inline float atomicAdd(float *p, float v)
{
    emu_check_range(p, sizeof(float), "atomicAdd");
    float o = *p;
    *p = o + v;
    return o;
}
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }

/* launches */
struct EmuCfg { dim3 g, b; };
inline EmuCfg emu_cfg(dim3 g, dim3 b, size_t smem = 0, cudaStream_t st = 0)
{
    (void)smem; (void)st;
    return EmuCfg{g, b};
}
void emu_run(const char *name, EmuCfg c, const std::function<void()> &body);
void emu_check_kernel_ptr(const void *p, const char *kernel, int arg);

template <class A> void emu_check_arg(const A &a, const char *k, int i)
{
    if constexpr (std::is_pointer<A>::value) emu_check_kernel_ptr((const void *)a, k, i);
}

#define emu_launch(kernel, cfg, ...) emu_launch_impl(#kernel, kernel, cfg, __VA_ARGS__)
template <class... KA, class... A> void emu_launch_impl(const char *name, void (*k)(KA...), EmuCfg c, A... a)
{
    int i = 0;
    (emu_check_arg(a, name, i++), ...);
    std::tuple<KA...> args((KA)a...);
    emu_run(name, c, [&]() { std::apply(k, args); });
}
