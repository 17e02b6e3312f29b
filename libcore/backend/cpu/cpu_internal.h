/* cpu_internal.h: what the files of the CPU backend share: per-thread
 * scratch memory, the out-of-memory flag that ops (which cannot return a
 * status) raise, the matrix-product driver, and the choice of the AVX2
 * loops at run time. Not part of libcore's interface. */
#ifndef EE_CPU_INTERNAL_H
#define EE_CPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The backend's buffers (alloc/release of the op table): zeroed, as from
 * calloc; large ones in transparent huge pages (cpu_mem.c says why).
 * ee_cpu_free takes NULL and any block of ee_cpu_alloc. */
void *ee_cpu_alloc(size_t bytes);
void ee_cpu_free(void *p);

/* Scratch of the calling thread for one purpose (slot), kept and grown
 * between ops so that the hot paths do not allocate; NULL (and the flag
 * below raised) when it cannot be had. Released by
 * ee_cpu_release_scratch (the calling thread's slots). Only for the
 * thread that called the op, never inside a parallel region: the OpenMP
 * team's threads may end with their thread-local slots still held. */
enum { EE_SCRATCH_PACK = 0, EE_SCRATCH_PACK_A, EE_SCRATCH_OP, EE_SCRATCH_SLOTS };
void *ee_cpu_scratch(int slot, size_t bytes);
void ee_cpu_release_scratch(void);

/* An op could not allocate: its output is undefined and the call that
 * issued it must fail with EE_ERR_NOMEM (ee_backend_check). Safe from any
 * thread. */
void ee_cpu_raise_nomem(void);
/* Returns and clears the flag. */
int ee_cpu_take_nomem(void);

/* 1 when the AVX2 + FMA loops can run on this processor. */
int ee_cpu_use_avx2(void);
/* 1 when the AVX-512 product kernel can run on this processor (and
 * EE_CPU_AVX512=0 is not set in the environment: the same bits either
 * way, so only the speed changes). */
int ee_cpu_use_avx512(void);

/* AVX-512 loops of the ops (cpu_avx512.c), the scalar loops' bits:
 * the max over time of one sequence's filters (best and its first t, or
 * -inf and -1) */
void ee_maxpool_scan_avx512(const float *a, const uint8_t *mk, int T, int F, float *best, int32_t *bi);

/* DeepLIFT's ops of the table (cpu_deeplift.c; backend.h says what they do) */
void ee_cpu_relu_rescale_bwd(const float *Zx, const float *Zr, const float *dY, float *dX, size_t n);
void ee_cpu_pool_rescale_bwd(const float *Zx, const float *Zr, const uint8_t *mask, const float *dPooled, int32_t *at,
                             float *mult, int B, int T, int F, int ld, int off);

/* C = alpha op(A) op(B) + beta C, row-major. Every element is one fixed
 * chain over k in ascending order (cpu_gemm.h): a row of C depends on
 * that row of op(A) and on op(B) alone, never on M, on the row's
 * position, on the blocking, on the thread count or on the processor
 * (any with FMA: AVX2 or AVX-512). */
void ee_cpu_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc);

/* C = A B + beta C reading B in place (no packing of its full strips):
 * for a B too seldom reused to pay for packing. Same results. */
void ee_cpu_gemm_inplace(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                         float beta, float *C, int ldc);

/* The same product with op(B) packed once and reused (the convolution
 * applies one filter bank to many sequences). ee_cpu_gemm_packed_size
 * gives the floats to hold op(B) (K x N); pack, then run any number of
 * times, from any thread (run never starts threads). */
size_t ee_cpu_gemm_packed_size(int K, int N);
void ee_cpu_gemm_pack(int tb, int K, int N, float alpha, const float *B, int ldb, float *packed);
void ee_cpu_gemm_run(int ta, int M, int N, int K, const float *A, int lda, const float *packed,
                     int accumulate, float *C, int ldc);

#endif
