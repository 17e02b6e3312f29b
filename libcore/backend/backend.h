/* backend.h: the operation table that every model computes through.
 *
 * Models never touch memory or math directly: they call these ops on
 * pointers that live in the backend's memory space (host memory for the
 * CPU backend, device memory for CUDA). A backend implements every op; the
 * CPU one (cpu/cpu_ops.c) uses OpenBLAS single-threaded under OpenMP, the
 * CUDA one (cuda/) uses cuBLAS, cuDNN and its own kernels.
 *
 * All matrices are row-major. Integer inputs (ids, masks, labels) are
 * passed in backend memory too. */
#ifndef EE_BACKEND_H
#define EE_BACKEND_H

#include "../ee.h"

typedef struct EeBackend EeBackend;

/* Below it a difference of DeepLIFT's inputs counts as none (Captum's). */
#define EE_DEEPLIFT_EPS 1e-10f

struct EeBackend {
    const char *name;
    EeDevice device;
    /* of gemm, the attention products and the convolution; a backend
     * offers one table per precision it supports (ee_backend_at) */
    EePrecision precision;
    /* 1 when the backend's memory is the host's: the caller may read and
     * write what alloc returns and hand the ops its own buffers (the
     * model's weights, per-sequence scratch). The samplers' host-side
     * paths (the incremental cnn IG and SV, the transformer SV's cached
     * first layer) and the run's shared weights need it. */
    int host_memory;

    /* memory */
    void *(*alloc)(size_t bytes);             /* NULL on failure; zero-filled */
    /* the same memory, released the same way, but not zeroed: for buffers
     * every pass writes before it reads them (a forward-only run's
     * activations), whose zeroing was a fixed cost of each call (tens of
     * MB). A backend without a cheaper way gives its alloc here (the CUDA
     * backend's table must have every op; ee_run_alloc_scratch also takes
     * NULL as alloc) */
    void *(*alloc_scratch)(size_t bytes);
    void (*release)(void *p);
    void (*upload)(void *dst, const void *host, size_t bytes);
    void (*download)(void *host, const void *src, size_t bytes);
    void (*copy)(void *dst, const void *src, size_t bytes);
    void (*zero)(void *dst, size_t bytes);
    void (*sync)(void);
    /* Resident weights (NULL on a backend whose memory is the host's): a
     * device copy of `bytes` host bytes whose content key is key[2], shared
     * by the runs that only read it and kept after the last release for
     * the next call of the same model, until memory is short or
     * shutdown. acquire returns NULL when it cannot (the caller then
     * uploads its own copy); every acquire is paired with a release. */
    void *(*weights_acquire)(const void *host, size_t bytes, const uint64_t key[2]);
    void (*weights_release)(void *dev);

    /* C = alpha op(A) op(B) + beta C, row-major; op(A) is M x K. */
    void (*gemm)(int transA, int transB, int M, int N, int K, float alpha,
                 const float *A, int lda, const float *B, int ldb,
                 float beta, float *C, int ldc);

    /* y[n] = a*x[n] + y[n] */
    void (*axpy)(size_t n, float a, const float *x, float *y);
    void (*scale)(size_t n, float a, float *x);
    /* Y[r][c] += b[c] */
    void (*add_bias)(float *Y, const float *b, int rows, int cols);
    /* db[c] += sum_r dY[r][c] */
    void (*bias_grad)(const float *dY, float *db, int rows, int cols);

    /* LayerNorm over the last dim (biased variance, eps). X is the input,
     * kept for the backward pass; mean/rstd are per row. */
    void (*layernorm_fwd)(const float *X, const float *g, const float *b,
                          float *Y, float *mean, float *rstd, int rows, int cols, float eps);
    /* dX = (or +=, if accumulate) LN backward; dg, db accumulate. */
    void (*layernorm_bwd)(const float *dY, const float *X, const float *g,
                          const float *mean, const float *rstd, float *dX,
                          float *dg, float *db, int rows, int cols, int accumulate);

    /* Fusions for the transformer layer's forward, each the ops it names in
     * that order (the CPU calls them; a GPU saves trips through memory):
     * Z[r][c] += b[c], then G = gelu(Z) ... */
    void (*bias_gelu_fwd)(float *Z, const float *b, float *G, int rows, int cols);
    /* ... and Y[r][c] += b[c] (b may be NULL), then Y += X (the residual),
     * then layernorm_fwd(Y) into out (out is not Y or X). */
    void (*bias_residual_layernorm_fwd)(float *Y, const float *b, const float *X, const float *g,
                                        const float *beta, float *out, float *mean, float *rstd,
                                        int rows, int cols, float eps);

    /* Activations (elementwise, in place allowed where Y == X). */
    void (*gelu_fwd)(const float *X, float *Y, size_t n);
    void (*gelu_bwd)(const float *X, const float *dY, float *dX, size_t n);
    void (*relu_fwd)(const float *X, float *Y, size_t n);
    /* dX = dY where X > 0 (ReLU'(0) = 0) */
    void (*relu_bwd)(const float *X, const float *dY, float *dX, size_t n);
    void (*tanh_fwd)(const float *X, float *Y, size_t n);
    /* dX = dY (1 - Y^2), Y = tanh output */
    void (*tanh_bwd)(const float *Y, const float *dY, float *dX, size_t n);

    /* X[i] = 0 where mask[i] == 0 (masked outputs and their gradients). */
    void (*mul_mask)(float *X, const uint8_t *mask, size_t n);

    /* Inverted dropout with a counter-based hash of (seed, index): the same
     * mask on every backend. keep (bytes) may be NULL at p = 0. */
    void (*dropout_fwd)(float *X, uint8_t *keep, size_t n, float p, uint64_t seed);
    void (*dropout_bwd)(float *dX, const uint8_t *keep, size_t n, float p);

    /* Multi-head self-attention core, heads as contiguous column blocks.
     * q, k, v, ctx: [B*T][d]; P: [B][H][T][T] probabilities (kept for the
     * backward pass); mask: [B][T] bytes, 1 = key attended. Query rows whose
     * mask is 0 past the last attended position may be left as zeros (they
     * are never read by the models). */
    void (*attention_fwd)(const float *q, const float *k, const float *v,
                          const uint8_t *mask, float *P, float *ctx,
                          int B, int T, int d, int H);
    /* dq, dk, dv are overwritten. */
    void (*attention_bwd)(const float *q, const float *k, const float *v,
                          const uint8_t *mask, const float *P, const float *dctx,
                          float *dq, float *dk, float *dv, int B, int T, int d, int H);

    /* Attention of one query per sequence (the [CLS] row, position 0) over
     * all keys: q_cls, ctx_cls: [B][d]; k, v: [B*T][d]; P: [B][H][T]. The
     * classifier's last layer needs nothing else. */
    void (*attention_cls_fwd)(const float *q_cls, const float *k, const float *v,
                              const uint8_t *mask, float *P, float *ctx_cls,
                              int B, int T, int d, int H);
    /* dq_cls [B][d] overwritten; dk, dv [B*T][d] overwritten. */
    void (*attention_cls_bwd)(const float *q_cls, const float *k, const float *v,
                              const uint8_t *mask, const float *P, const float *dctx_cls,
                              float *dq_cls, float *dk, float *dv, int B, int T, int d, int H);

    /* Embedding gather: out[b][t] = E_tok[ids] (+ E_pos[t] if E_pos). */
    void (*embed_fwd)(const int32_t *ids, const float *E_tok, const float *E_pos,
                      float *out, int B, int T, int d);
    /* dE_tok[ids] += dOut (rows of PAD skipped), dE_pos[t] += dOut. */
    void (*embed_bwd)(const int32_t *ids, const float *dOut, float *dE_tok,
                      float *dE_pos, int B, int T, int d);

    /* Text-CNN convolution with zero padding at the end. E: [B][T][d];
     * W: [(w*d)][F] (row j*d+c); out: [B][T][F] pre-activation (+ bias). */
    void (*conv_fwd)(const float *E, const float *W, const float *b, float *out,
                     int B, int T, int d, int w, int F);
    /* dE += ..., dW += ..., db += ... (dW/db may be NULL). */
    void (*conv_bwd)(const float *E, const float *W, const float *dOut,
                     float *dE, float *dW, float *db, int B, int T, int d, int w, int F);
    /* Max over valid t of relu(out): pooled[b][F] written at column offset
     * off of a row of width ld; argmax [B][F] (lowest t wins ties). */
    void (*maxpool_fwd)(const float *act, const uint8_t *mask, float *pooled,
                        int32_t *argmax, int B, int T, int F, int ld, int off);
    /* dAct = 0 except dAct[b][argmax][f] = dPooled[b][off+f] */
    void (*maxpool_bwd)(const float *dPooled, const int32_t *argmax, float *dAct,
                        int B, int T, int F, int ld, int off);

    /* The convolution backward through the max over time in one step: only
     * the winning window of each (sequence, filter) passes a gradient, so
     * each filter touches w token rows. dPooled [B][ld] at column off,
     * argmax [B][F] (-1: none). dE, dW, db accumulate; each may be NULL.
     * Equals maxpool_bwd followed by conv_bwd. */
    void (*conv_pool_bwd)(const float *E, const float *W, const float *dPooled,
                          const int32_t *argmax, float *dE, float *dW, float *db, int B, int T,
                          int d, int w, int F, int ld, int off);

    /* DeepLIFT's rescale rule (doc/MODELS.md "DeepLIFT"), each on the
     * pre-activations of the inputs Zx and of their references Zr (the
     * same layout), eps = EE_DEEPLIFT_EPS. A backend without them (NULL)
     * has no DeepLIFT. dX = dY m with the ReLU's multiplier
     * m = (relu(zx) - relu(zr)) / (zx - zr), or relu'(zx) where
     * |zx - zr| < eps; in place allowed (dX == dY). */
    void (*relu_rescale_bwd)(const float *Zx, const float *Zr, const float *dY, float *dX, size_t n);
    /* The text CNN's ReLU then max over the valid positions, Zx and Zr
     * [B][T][F]: the multipliers of Zx from those of the pooled outputs,
     * dPooled [B][ld] at column off, by Captum's max-pooling rule (the
     * pooled difference to the position of the larger max, divided by
     * that position's difference) followed by the ReLU's. They are 0 but
     * at two positions per (sequence, filter), the maxima of the input
     * and of the reference: k = 0, 1 gives at[k][B][F] (-1: none) and
     * mult[k][B][ld] at column off (overwritten), the argmax and dPooled
     * of conv_pool_bwd, which passes them on to e. */
    void (*pool_rescale_bwd)(const float *Zx, const float *Zr, const uint8_t *mask, const float *dPooled,
                             int32_t *at, float *mult, int B, int T, int F, int ld, int off);

    /* Rows gather/scatter with strides (e.g. [CLS] rows): dst[i][:] = src[i*stride][:] */
    void (*gather_rows)(const float *src, int stride, float *dst, int n, int cols);
    void (*scatter_rows)(const float *src, float *dst, int stride, int n, int cols);

    /* Integrated-gradients rows. lerp_rows: out[j] = base[g] + alpha[j] diff[g]
     * with g = group[j]; accum_rows: acc[group[j]] += w[j] x[j] for each row j,
     * rows of a group consecutive (a fixed order: deterministic). alpha, w and
     * group are backend arrays of length rows; rows are `width` floats. */
    void (*lerp_rows)(float *out, const float *base, const float *diff, const float *alpha,
                      const int32_t *group, int rows, int width);
    void (*accum_rows)(float *acc, const float *x, const float *w, const int32_t *group,
                       int rows, int width);

    /* Losses: mean over rows. Writes the loss (host float) and dLogits. */
    void (*softmax_xent)(const float *logits, const int32_t *labels, float *dlogits,
                         float *loss, int n, int C);
    void (*mse)(const float *pred, const float *target, float *dpred, float *loss,
                int n, int cols);

    /* Adam with bias correction, step t >= 1. */
    void (*adam)(float *w, const float *g, float *m, float *v, size_t n,
                 float lr, float beta1, float beta2, float eps, int t);
};

/* The CPU backend (always present). */
const EeBackend *ee_backend_cpu(void);
/* The bytes of the CPU backend's live buffers that it maps itself rather
 * than taking from malloc (those of 128 KB and more, cpu_mem.c): what a
 * count of the heap (mallinfo2) does not see. */
size_t ee_cpu_mapped_bytes(void);
/* Host memory for a call's own buffers (staging rows for a pass, per-unit
 * work), as malloc: not zeroed, NULL when out of memory, released with
 * ee_host_free. Blocks of 128 KB and more come from the CPU backend's
 * kept mappings, so that a call does not fault in afresh the pages the
 * previous call freed (malloc unmaps such blocks, or trims them). */
void *ee_host_alloc(size_t bytes);
void ee_host_free(void *p);
/* Whether a host loop of `work` units goes to the OpenMP team: more than
 * `threshold` units, and not reached inside a parallel region (there
 * libgomp opens a team of one even with a false if clause, and its futex
 * calls cost more than a small loop). Loops so shared must give every
 * element the same operations whichever thread computes it
 * (cpu_threads.c). */
int ee_team_worth(size_t work, size_t threshold);
/* The CUDA backend (FP32), or NULL when the build has no CUDA or no GPU is seen. */
const EeBackend *ee_backend_cuda(void);
/* Its table for precision p (NULL where ee_backend_cuda() is). */
const EeBackend *ee_backend_cuda_at(EePrecision p);
/* Backend for a resolved device, FP32. */
const EeBackend *ee_backend_for(EeDevice dev);
/* Backend for a resolved device at a precision ee_precision_check accepted
 * (NULL otherwise). */
const EeBackend *ee_backend_at(EeDevice dev, EePrecision p);
/* Resolves the device (ee_device_resolve), checks the precision on it
 * (ee_precision_check) and gives the backend for both. */
EeStatus ee_backend_resolve(EeDevice want, EePrecision p, EeDevice *dev, const EeBackend **be);
/* EE_OK, or the failure a GPU op recorded since the last check (ops cannot
 * return a status themselves). */
EeStatus ee_backend_check(const EeBackend *be);

/* Counter-based hash shared by the dropout ops of every backend. */
static inline uint64_t ee_hash64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

#endif
