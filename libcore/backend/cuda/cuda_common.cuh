/* cuda_common.cuh: what the two translation units of the CUDA backend
 * share (not part of libcore's interface).
 *
 * cuda_backend.cu: state (error flag, cuBLAS handle, workspace), memory,
 *   the cuBLAS-based ops (GEMM, attention, convolution), the losses' host
 *   side and the op table.
 * cuda_kernels.cu: every kernel and its launcher (eecu_*).
 *
 * Everything runs on the legacy default stream (stream 0): kernels, cuBLAS
 * and cudaMemcpy are ordered with each other without host syncs. The
 * backend is meant to be driven from one host thread at a time (a shared
 * workspace), which is how libcore uses it. */
#ifndef EE_CUDA_COMMON_CUH
#define EE_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "../backend.h"
}

#define EECU_STREAM ((cudaStream_t)0)

/* Records a failure (sets the flag read by ee_cuda_check_error) and prints
 * it to stderr (the first few after each check). */
void eecu_report(const char *what, const char *detail, const char *file, int line);

#define EECU_CK(call)                                                                   \
    do {                                                                                \
        cudaError_t eecu_e_ = (call);                                                   \
        if (eecu_e_ != cudaSuccess)                                                     \
            eecu_report(#call, cudaGetErrorString(eecu_e_), __FILE__, __LINE__);        \
    } while (0)

/* After a kernel launch: catches bad launch configurations at once and
 * faults of earlier kernels once they are known. */
#define EECU_LAUNCHED(name) EECU_CK(cudaGetLastError())

/* A device buffer of at least `bytes`, shared by all ops (grown on demand,
 * never shrunk); NULL on failure (recorded). Valid until the next call. */
void *eecu_workspace(size_t bytes);

/* Blocks for a grid-stride loop over n items. */
static inline unsigned eecu_blocks(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    const size_t cap = (size_t)1 << 20;
    if (b > cap) b = cap;
    return (unsigned)(b ? b : 1);
}

/* ---- cuDNN (cuda_cudnn.cu) ---- */
/* The text-CNN convolution forward through cuDNN; returns 0 (nothing done)
 * when cuDNN is off or absent, offers nothing for the shape, or the
 * precision is bf16: the caller then runs its own path. */
extern "C" int eecu_cudnn_conv_fwd(const float *E, const float *W, const float *b, float *out, int B,
                                   int T, int d, int w, int F, EePrecision prec);
extern "C" void eecu_cudnn_shutdown(void);
/* 0 cuDNN off or absent, 1 on where measured faster, 2 on wherever it can */
int eecu_cudnn_mode(void);

/* ---- launchers (cuda_kernels.cu); every one returns at once on n = 0 ---- */
int eecu_kernels_usable(void); /* 1 if this build has code for the device */
void eecu_scale_matrix(float *C, int M, int N, int ldc, float beta);
void eecu_axpy(size_t n, float a, const float *x, float *y);
void eecu_conv_pool_bwd(const float *E, const float *W, const float *dP, const int32_t *argmax,
                        float *dE, float *dW, float *db, int B, int T, int d, int w, int F, int ld,
                        int off);
void eecu_lerp_rows(float *out, const float *base, const float *diff, const float *alpha,
                    const int32_t *group, int rows, int width);
void eecu_accum_rows(float *acc, const float *x, const float *w, const int32_t *group, int rows,
                     int width);
void eecu_scale(size_t n, float a, float *x);
/* y[i] = x[i] rounded to bf16 (raw bits, ties to even) */
void eecu_to_bf16(const float *x, uint16_t *y, size_t n);
void eecu_add_bias(float *Y, const float *b, int rows, int cols);
void eecu_fill_rows(float *Y, const float *b, int rows, int cols);
/* Deterministic column sums: db[c] += sum_r dY[r][c]; with X (and mean,
 * rstd) also dg[c] += sum_r dY[r][c] * (X[r][c] - mean[r]) * rstd[r].
 * db, dg may be NULL. Uses the workspace. */
void eecu_colsum(const float *dY, const float *X, const float *mean, const float *rstd,
                 int rows, int cols, float *db, float *dg);
void eecu_layernorm_fwd(const float *X, const float *g, const float *b, float *Y, float *mean,
                        float *rstd, int rows, int cols, float eps);
void eecu_layernorm_bwd_dx(const float *dY, const float *X, const float *g, const float *mean,
                           const float *rstd, float *dX, int rows, int cols, int accumulate);
void eecu_gelu_fwd(const float *X, float *Y, size_t n);
void eecu_bias_gelu_fwd(float *Z, const float *b, float *G, int rows, int cols);
void eecu_bias_residual_layernorm_fwd(float *Y, const float *bias, const float *X, const float *g,
                                      const float *b, float *out, float *mean, float *rstd, int rows,
                                      int cols, float eps);
void eecu_gelu_bwd(const float *X, const float *dY, float *dX, size_t n);
void eecu_relu_fwd(const float *X, float *Y, size_t n);
void eecu_mul_mask(float *X, const uint8_t *mask, size_t n);
void eecu_relu_bwd(const float *X, const float *dY, float *dX, size_t n);
void eecu_tanh_fwd(const float *X, float *Y, size_t n);
void eecu_tanh_bwd(const float *Y, const float *dY, float *dX, size_t n);
void eecu_dropout_fwd(float *X, uint8_t *keep, size_t n, uint32_t thr, float sc, uint64_t seed);
void eecu_dropout_bwd(float *dX, const uint8_t *keep, size_t n, float sc);
/* P [B][H][T][T] holds the scaled scores; turned into probabilities in
 * place (masked keys and keys past the span 0, rows at t >= span 0). */
void eecu_attn_softmax(float *P, const uint8_t *mask, int B, int H, int T);
/* The whole attention forward in one kernel (P and ctx as attention_fwd
 * computes them), for T <= EECU_FA_TMAX and heads of dh <= EECU_FA_DHMAX. */
#define EECU_FA_TMAX 128
#define EECU_FA_DHMAX 64
int eecu_attn_fused_fits(int T, int dh);
void eecu_attn_fused_fwd(const float *q, const float *k, const float *v, const uint8_t *mask, float *P,
                         float *ctx, int B, int T, int d, int H, float scale);
/* dS holds dP; turned into the score gradient (times scale) in place. */
void eecu_attn_softmax_bwd(const float *P, float *dS, const uint8_t *mask, int B, int H, int T,
                           float scale);
/* The [CLS] query only: q, ctx, dq [B][d]; k, v, dk, dv [B*T][d]; P [B][H][T];
 * ds: workspace [B][H][T]; dk, dv must be zeroed before the backward. */
void eecu_attn_cls_fwd(const float *q, const float *k, const float *v, const uint8_t *mask,
                       float *P, float *ctx, int B, int T, int d, int H, float scale);
void eecu_attn_cls_bwd(const float *q, const float *k, const float *v, const uint8_t *mask,
                       const float *P, const float *dctx, float *dq, float *dk, float *dv,
                       float *ds, int B, int T, int d, int H, float scale);
void eecu_embed_fwd(const int32_t *ids, const float *E_tok, const float *E_pos, float *out,
                    int B, int T, int d);
void eecu_embed_bwd(const int32_t *ids, const float *dOut, float *dE_tok, float *dE_pos, int B,
                    int T, int d);
/* Xc [B*T][w*d]: row (b, t) = E[b][t .. t+w-1] with zeros past T. */
void eecu_im2col(const float *E, float *Xc, int B, int T, int d, int w);
/* dE[b][s] += sum_j Xc[(b, s-j)][j*d .. j*d+d-1] for j <= s. */
void eecu_col2im_add(const float *Xc, float *dE, int B, int T, int d, int w);
void eecu_maxpool_fwd(const float *act, const uint8_t *mask, float *pooled, int32_t *argmax,
                      int B, int T, int F, int ld, int off);
void eecu_maxpool_bwd(const float *dPooled, const int32_t *argmax, float *dAct, int B, int T,
                      int F, int ld, int off);
/* DeepLIFT's rescale rule (backend.h relu_rescale_bwd, pool_rescale_bwd). */
void eecu_relu_rescale_bwd(const float *Zx, const float *Zr, const float *dY, float *dX, size_t n);
void eecu_pool_rescale_bwd(const float *Zx, const float *Zr, const uint8_t *mask, const float *dPooled,
                           int32_t *at, float *mult, int B, int T, int F, int ld, int off);
void eecu_gather_rows(const float *src, int stride, float *dst, int n, int cols);
void eecu_scatter_rows(const float *src, float *dst, int stride, int n, int cols);
/* rowloss[i] = lse_i - z[i][label_i] (double); dlogits as the CPU. */
void eecu_softmax_xent(const float *logits, const int32_t *labels, float *dlogits,
                       double *rowloss, int n, int C);
/* Block partial sums of squared residuals into part[0 .. nparts); returns
 * nparts (<= EECU_MSE_PARTS). dpred may be NULL. */
#define EECU_MSE_PARTS 256
int eecu_mse(const float *pred, const float *target, float *dpred, size_t count, double denom,
             double *part);
void eecu_adam(float *w, const float *g, float *m, float *v, size_t n, float step, float rc2,
               float beta1, float beta2, float eps);

#endif
