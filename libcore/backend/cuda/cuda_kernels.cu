/* cuda_kernels.cu: the CUDA backend's own kernels and their launchers.
 *
 * Conventions: elementwise kernels use grid-stride loops over size_t
 * indices; row kernels give one warp to a row (blocks of 256 threads = 8
 * rows) with all lanes of a warp on the same row, so full-mask shuffles
 * are safe; consecutive lanes touch consecutive columns (coalesced).
 * Reductions that feed parameter gradients are deterministic (fixed
 * launch shapes, fixed summation order, no float atomics); the one atomic
 * scatter is the token-embedding gradient. Arithmetic mirrors
 * cpu/cpu_ops.c expression by expression (double where the CPU uses
 * double), so the backends agree to rounding. */
#include "cuda_common.cuh"
#include "../deeplift_rule.h"

#include <math_constants.h>

#define FULL_MASK 0xffffffffu
#define THREADS 256
#define ROWS_PER_BLOCK (THREADS / 32)

#define GRID_LOOP(i, n)                                                         \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)(n); \
         i += (size_t)gridDim.x * blockDim.x)

/* One warp per row; `row` is warp-uniform. */
#define WARP_ROW_LOOP(row, rows)                                                          \
    for (size_t row = (size_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);        \
         row < (size_t)(rows); row += (size_t)gridDim.x * (blockDim.x >> 5))

static inline unsigned row_blocks(size_t rows) { return eecu_blocks(rows, ROWS_PER_BLOCK); }

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

__device__ __forceinline__ double warp_sum_d(double v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

/* ee_hash64 of backend.h, on the device (same constants). */
__device__ __forceinline__ uint64_t dev_hash64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* ---- small elementwise ops ---------------------------------------------------- */
__global__ void k_scale_matrix(float *C, int M, int N, int ldc, float beta)
{
    GRID_LOOP(i, (size_t)M * N) {
        size_t r = i / (size_t)N, c = i % (size_t)N;
        C[r * ldc + c] *= beta;
    }
}

__global__ void k_axpy(size_t n, float a, const float *__restrict__ x, float *__restrict__ y)
{
    GRID_LOOP(i, n) y[i] += a * x[i];
}

__global__ void k_scale(size_t n, float a, float *x)
{
    GRID_LOOP(i, n) x[i] *= a;
}

__global__ void k_add_bias(float *Y, const float *__restrict__ b, size_t n, int cols)
{
    GRID_LOOP(i, n) Y[i] += b[i % (size_t)cols];
}

__global__ void k_fill_rows(float *Y, const float *__restrict__ b, size_t n, int cols)
{
    GRID_LOOP(i, n) Y[i] = b[i % (size_t)cols];
}

int eecu_kernels_usable(void)
{
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, k_scale);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not sticky: clear it */
        return 0;
    }
    return 1;
}

void eecu_scale_matrix(float *C, int M, int N, int ldc, float beta)
{
    if (M <= 0 || N <= 0) return;
    size_t n = (size_t)M * N;
    k_scale_matrix<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(C, M, N, ldc, beta);
    EECU_LAUNCHED("scale_matrix");
}

void eecu_axpy(size_t n, float a, const float *x, float *y)
{
    if (!n) return;
    k_axpy<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(n, a, x, y);
    EECU_LAUNCHED("axpy");
}

void eecu_scale(size_t n, float a, float *x)
{
    if (!n) return;
    k_scale<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(n, a, x);
    EECU_LAUNCHED("scale");
}

void eecu_add_bias(float *Y, const float *b, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    size_t n = (size_t)rows * cols;
    k_add_bias<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(Y, b, n, cols);
    EECU_LAUNCHED("add_bias");
}

void eecu_fill_rows(float *Y, const float *b, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    size_t n = (size_t)rows * cols;
    k_fill_rows<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(Y, b, n, cols);
    EECU_LAUNCHED("fill_rows");
}

/* ---- deterministic column sums (bias_grad, LayerNorm dgamma/dbeta) ------------- */
/* Stage 1: block (32, 8) sums rows [chunk*rpc, (chunk+1)*rpc) of 32 columns;
 * thread (tx, ty) takes rows ty, ty+8, ...; the 8 partials are then added in
 * a fixed order. Stage 2: one thread per column adds the chunk partials in
 * order (double). */
#define CS_TX 32
#define CS_TY 8

__global__ void k_colsum_part(const float *__restrict__ dY, const float *__restrict__ X,
                              const float *__restrict__ mean, const float *__restrict__ rstd,
                              int rows, int cols, int rpc, float *__restrict__ pb,
                              float *__restrict__ pg)
{
    __shared__ float sb[CS_TY][CS_TX + 1], sg[CS_TY][CS_TX + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c = blockIdx.x * CS_TX + tx;
    const int chunk = blockIdx.y;
    const int r0 = chunk * rpc;
    const int r1 = min(rows, r0 + rpc);
    float ab = 0.0f, ag = 0.0f;
    if (c < cols) {
        for (int r = r0 + ty; r < r1; r += CS_TY) {
            size_t k = (size_t)r * cols + c;
            float dy = dY[k];
            ab += dy;
            if (X) {
                float xh = (X[k] - mean[r]) * rstd[r];
                ag += dy * xh;
            }
        }
    }
    sb[ty][tx] = ab;
    sg[ty][tx] = ag;
    __syncthreads();
    if (ty == 0 && c < cols) {
        float tb = 0.0f, tg = 0.0f;
        for (int k = 0; k < CS_TY; k++) {
            tb += sb[k][tx];
            tg += sg[k][tx];
        }
        pb[(size_t)chunk * cols + c] = tb;
        if (pg) pg[(size_t)chunk * cols + c] = tg;
    }
}

__global__ void k_colsum_final(const float *__restrict__ pb, const float *__restrict__ pg,
                               int nchunk, int cols, float *db, float *dg)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    double sb = 0.0, sg = 0.0;
    for (int k = 0; k < nchunk; k++) {
        sb += pb[(size_t)k * cols + c];
        if (pg) sg += pg[(size_t)k * cols + c];
    }
    if (db) db[c] += (float)sb;
    if (dg && pg) dg[c] += (float)sg;
}

void eecu_colsum(const float *dY, const float *X, const float *mean, const float *rstd, int rows,
                 int cols, float *db, float *dg)
{
    if (rows <= 0 || cols <= 0 || (!db && !dg)) return;
    int rpc = (rows + 1023) / 1024; /* at most 1024 chunks */
    if (rpc < 32) rpc = 32;
    int nchunk = (rows + rpc - 1) / rpc;
    int with_g = X && dg;
    size_t part = (size_t)nchunk * cols;
    float *pb = (float *)eecu_workspace(sizeof(float) * part * (with_g ? 2 : 1));
    if (!pb) return;
    float *pg = with_g ? pb + part : NULL;
    dim3 block(CS_TX, CS_TY), grid((cols + CS_TX - 1) / CS_TX, nchunk);
    k_colsum_part<<<grid, block, 0, EECU_STREAM>>>(dY, with_g ? X : NULL, mean, rstd, rows, cols,
                                                   rpc, pb, pg);
    EECU_LAUNCHED("colsum_part");
    k_colsum_final<<<(cols + THREADS - 1) / THREADS, THREADS, 0, EECU_STREAM>>>(pb, pg, nchunk,
                                                                               cols, db, dg);
    EECU_LAUNCHED("colsum_final");
}

/* ---- LayerNorm ------------------------------------------------------------------ */
__global__ void k_layernorm_fwd(const float *X, const float *__restrict__ g,
                                const float *__restrict__ b, float *Y, float *mean, float *rstd,
                                int rows, int cols, float eps)
{
    const int lane = threadIdx.x & 31;
    WARP_ROW_LOOP(row, rows) {
        const float *x = X + row * cols;
        float *y = Y + row * cols;
        double s = 0.0;
        for (int c = lane; c < cols; c += 32) s += x[c];
        s = warp_sum_d(s);
        double mu = s / cols, v = 0.0;
        for (int c = lane; c < cols; c += 32) {
            double t = x[c] - mu;
            v += t * t;
        }
        v = warp_sum_d(v) / cols;
        float rs = (float)(1.0 / sqrt(v + eps));
        float m = (float)mu;
        /* all lanes have read x before any writes y (Y may be X) */
        __syncwarp();
        for (int c = lane; c < cols; c += 32) y[c] = (x[c] - m) * rs * g[c] + b[c];
        if (lane == 0) {
            mean[row] = m;
            rstd[row] = rs;
        }
    }
}

__global__ void k_layernorm_bwd_dx(const float *dY, const float *X, const float *__restrict__ g,
                                   const float *__restrict__ mean, const float *__restrict__ rstd,
                                   float *dX, int rows, int cols, int accumulate)
{
    const int lane = threadIdx.x & 31;
    WARP_ROW_LOOP(row, rows) {
        const float *x = X + row * cols, *dy = dY + row * cols;
        float *dx = dX + row * cols;
        const float m = mean[row], rs = rstd[row];
        double s1 = 0.0, s2 = 0.0; /* sums of dxhat and dxhat*xhat */
        for (int c = lane; c < cols; c += 32) {
            float xh = (x[c] - m) * rs;
            float dxh = dy[c] * g[c];
            s1 += dxh;
            s2 += (double)dxh * xh;
        }
        s1 = warp_sum_d(s1);
        s2 = warp_sum_d(s2);
        const float a1 = (float)(s1 / cols), a2 = (float)(s2 / cols);
        __syncwarp();
        for (int c = lane; c < cols; c += 32) {
            float xh = (x[c] - m) * rs;
            float v = rs * (dy[c] * g[c] - a1 - xh * a2);
            dx[c] = accumulate ? dx[c] + v : v;
        }
    }
}

void eecu_layernorm_fwd(const float *X, const float *g, const float *b, float *Y, float *mean,
                        float *rstd, int rows, int cols, float eps)
{
    if (rows <= 0 || cols <= 0) return;
    k_layernorm_fwd<<<row_blocks(rows), THREADS, 0, EECU_STREAM>>>(X, g, b, Y, mean, rstd, rows,
                                                                    cols, eps);
    EECU_LAUNCHED("layernorm_fwd");
}

void eecu_layernorm_bwd_dx(const float *dY, const float *X, const float *g, const float *mean,
                           const float *rstd, float *dX, int rows, int cols, int accumulate)
{
    if (rows <= 0 || cols <= 0) return;
    k_layernorm_bwd_dx<<<row_blocks(rows), THREADS, 0, EECU_STREAM>>>(dY, X, g, mean, rstd, dX,
                                                                       rows, cols, accumulate);
    EECU_LAUNCHED("layernorm_bwd");
}

/* ---- the transformer layer's fusions (backend.h) ----------------------------------- */
/* Z += b, G = gelu(Z): add_bias then gelu_fwd in one pass */
__global__ void k_bias_gelu_fwd(float *Z, const float *__restrict__ b, float *G, size_t n, int cols)
{
    GRID_LOOP(i, n) {
        float z = Z[i] + b[i % (size_t)cols];
        Z[i] = z;
        G[i] = 0.5f * z * (1.0f + erff(z * 0.70710678118654752f));
    }
}

void eecu_bias_gelu_fwd(float *Z, const float *b, float *G, int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    if (!n) return;
    k_bias_gelu_fwd<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(Z, b, G, n, cols);
    EECU_LAUNCHED("bias_gelu_fwd");
}

/* Y = (Y + b) + X, then k_layernorm_fwd's arithmetic into out, one warp a row */
__global__ void k_bias_residual_layernorm_fwd(float *Y, const float *__restrict__ bias,
                                              const float *__restrict__ X, const float *__restrict__ g,
                                              const float *__restrict__ b, float *out, float *mean,
                                              float *rstd, int rows, int cols, float eps)
{
    const int lane = threadIdx.x & 31;
    WARP_ROW_LOOP(row, rows) {
        float *y = Y + row * cols, *o = out + row * cols;
        const float *x = X + row * cols;
        double s = 0.0;
        for (int c = lane; c < cols; c += 32) {
            float v = bias ? y[c] + bias[c] : y[c];
            v = x[c] + v;
            y[c] = v;
            s += v;
        }
        s = warp_sum_d(s);
        double mu = s / cols, var = 0.0;
        for (int c = lane; c < cols; c += 32) { /* each lane reads what it wrote */
            double t = y[c] - mu;
            var += t * t;
        }
        var = warp_sum_d(var) / cols;
        float rs = (float)(1.0 / sqrt(var + eps));
        float m = (float)mu;
        for (int c = lane; c < cols; c += 32) o[c] = (y[c] - m) * rs * g[c] + b[c];
        if (lane == 0) {
            mean[row] = m;
            rstd[row] = rs;
        }
    }
}

void eecu_bias_residual_layernorm_fwd(float *Y, const float *bias, const float *X, const float *g,
                                      const float *b, float *out, float *mean, float *rstd, int rows,
                                      int cols, float eps)
{
    if (rows <= 0 || cols <= 0) return;
    k_bias_residual_layernorm_fwd<<<row_blocks(rows), THREADS, 0, EECU_STREAM>>>(
        Y, bias, X, g, b, out, mean, rstd, rows, cols, eps);
    EECU_LAUNCHED("bias_residual_layernorm_fwd");
}

/* ---- activations (in place allowed: each element is read then written by
 * the same thread) ---------------------------------------------------------------- */
__global__ void k_gelu_fwd(const float *X, float *Y, size_t n)
{
    GRID_LOOP(i, n) {
        float x = X[i];
        Y[i] = 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    }
}

__global__ void k_gelu_bwd(const float *X, const float *dY, float *dX, size_t n)
{
    GRID_LOOP(i, n) {
        float x = X[i];
        float cdf = 0.5f * (1.0f + erff(x * 0.70710678118654752f));
        float pdf = 0.39894228040143268f * expf(-0.5f * x * x);
        dX[i] = dY[i] * (cdf + x * pdf);
    }
}

__global__ void k_relu_fwd(const float *X, float *Y, size_t n)
{
    GRID_LOOP(i, n) {
        float x = X[i];
        Y[i] = x > 0 ? x : 0.0f;
    }
}

__global__ void k_relu_bwd(const float *X, const float *dY, float *dX, size_t n)
{
    GRID_LOOP(i, n) {
        float x = X[i], g = dY[i];
        dX[i] = x > 0 ? g : 0.0f;
    }
}

__global__ void k_mul_mask(float *X, const uint8_t *mask, size_t n)
{
    GRID_LOOP(i, n) if (!mask[i]) X[i] = 0.0f;
}

__global__ void k_tanh_fwd(const float *X, float *Y, size_t n)
{
    GRID_LOOP(i, n) Y[i] = tanhf(X[i]);
}

__global__ void k_tanh_bwd(const float *Y, const float *dY, float *dX, size_t n)
{
    GRID_LOOP(i, n) {
        float y = Y[i], g = dY[i];
        dX[i] = g * (1.0f - y * y);
    }
}

#define ELEMENTWISE_LAUNCH(kernel, n, ...)                                                 \
    do {                                                                                   \
        if (!(n)) return;                                                                  \
        kernel<<<eecu_blocks((n), THREADS), THREADS, 0, EECU_STREAM>>>(__VA_ARGS__);       \
        EECU_LAUNCHED(#kernel);                                                            \
    } while (0)

void eecu_gelu_fwd(const float *X, float *Y, size_t n) { ELEMENTWISE_LAUNCH(k_gelu_fwd, n, X, Y, n); }
void eecu_gelu_bwd(const float *X, const float *dY, float *dX, size_t n)
{
    ELEMENTWISE_LAUNCH(k_gelu_bwd, n, X, dY, dX, n);
}
void eecu_relu_fwd(const float *X, float *Y, size_t n) { ELEMENTWISE_LAUNCH(k_relu_fwd, n, X, Y, n); }
void eecu_relu_bwd(const float *X, const float *dY, float *dX, size_t n)
{
    ELEMENTWISE_LAUNCH(k_relu_bwd, n, X, dY, dX, n);
}
void eecu_mul_mask(float *X, const uint8_t *mask, size_t n) { ELEMENTWISE_LAUNCH(k_mul_mask, n, X, mask, n); }
void eecu_tanh_fwd(const float *X, float *Y, size_t n) { ELEMENTWISE_LAUNCH(k_tanh_fwd, n, X, Y, n); }
void eecu_tanh_bwd(const float *Y, const float *dY, float *dX, size_t n)
{
    ELEMENTWISE_LAUNCH(k_tanh_bwd, n, Y, dY, dX, n);
}

/* ---- dropout (same mask as the CPU: hash(seed ^ i) >> 40 < thr) --------------- */
__global__ void k_dropout_fwd(float *X, uint8_t *keep, size_t n, uint32_t thr, float sc,
                              uint64_t seed)
{
    GRID_LOOP(i, n) {
        uint32_t u = (uint32_t)(dev_hash64(seed ^ (uint64_t)i) >> 40);
        uint8_t k = u < thr;
        if (keep) keep[i] = k;
        X[i] = k ? X[i] * sc : 0.0f;
    }
}

__global__ void k_dropout_bwd(float *dX, const uint8_t *__restrict__ keep, size_t n, float sc)
{
    GRID_LOOP(i, n) dX[i] = keep[i] ? dX[i] * sc : 0.0f;
}

void eecu_dropout_fwd(float *X, uint8_t *keep, size_t n, uint32_t thr, float sc, uint64_t seed)
{
    ELEMENTWISE_LAUNCH(k_dropout_fwd, n, X, keep, n, thr, sc, seed);
}

void eecu_dropout_bwd(float *dX, const uint8_t *keep, size_t n, float sc)
{
    ELEMENTWISE_LAUNCH(k_dropout_bwd, n, dX, keep, n, sc);
}

/* ---- attention softmax ------------------------------------------------------------ */
/* span = 1 + last attended position (0 if none), computed by the whole warp. */
__device__ __forceinline__ int warp_span(const uint8_t *mk, int T, int lane)
{
    int s = 0;
    for (int t = lane; t < T; t += 32)
        if (mk[t]) s = t + 1;
    for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_xor_sync(FULL_MASK, s, o));
    return s;
}

/* The masked softmax of one attention row of scores s, by the whole warp
 * (the CPU's span rule and its sum in double): over the attended keys
 * j < S (mk[j] != 0), the largest score mx and the inverse inv of the sum
 * of expf(s_j - mx). S must be at least 1 (a row past the span is zero and
 * computes nothing). k_attn_softmax and the fused attention share it, so
 * the two paths give the same P. */
__device__ __forceinline__ void warp_masked_softmax(const float *s, const uint8_t *mk, int S, int lane,
                                                    float *mx_out, float *inv_out)
{
    float mx = -CUDART_INF_F;
    for (int j = lane; j < S; j += 32)
        if (mk[j] && s[j] > mx) mx = s[j];
    mx = warp_max(mx);
    double sum = 0.0;
    for (int j = lane; j < S; j += 32)
        if (mk[j]) sum += expf(s[j] - mx);
    sum = warp_sum_d(sum);
    *mx_out = mx;
    *inv_out = (float)(1.0 / sum);
}

/* P_j of that row: 0 past the span and for masked keys (s_j not read). */
__device__ __forceinline__ float masked_softmax_p(const float *s, const uint8_t *mk, int S, int j,
                                                  float mx, float inv)
{
    return (j < S && mk[j]) ? expf(s[j] - mx) * inv : 0.0f;
}

/* Row (b, h, i) of P: softmax over the attended keys j < span; zero
 * elsewhere; the whole row is zero for i >= span (the CPU's rule). */
__global__ void k_attn_softmax(float *P, const uint8_t *__restrict__ mask, int B, int H, int T)
{
    const int lane = threadIdx.x & 31;
    const size_t rows = (size_t)B * H * T;
    WARP_ROW_LOOP(row, rows) {
        const int i = (int)(row % (size_t)T);
        const int b = (int)(row / ((size_t)T * H));
        const uint8_t *mk = mask + (size_t)b * T;
        const int S = warp_span(mk, T, lane);
        float *p = P + row * T;
        if (i >= S) {
            for (int j = lane; j < T; j += 32) p[j] = 0.0f;
            continue;
        }
        float mx, inv;
        warp_masked_softmax(p, mk, S, lane, &mx, &inv);
        /* each lane rewrites only the elements it read */
        for (int j = lane; j < T; j += 32) p[j] = masked_softmax_p(p, mk, S, j, mx, inv);
    }
}

/* dS = P .* (dP - rowsum(P .* dP)) * scale, dP given in dS; rows past the
 * span and columns past it are zero. */
__global__ void k_attn_softmax_bwd(const float *__restrict__ P, float *dS,
                                   const uint8_t *__restrict__ mask, int B, int H, int T,
                                   float scale)
{
    const int lane = threadIdx.x & 31;
    const size_t rows = (size_t)B * H * T;
    WARP_ROW_LOOP(row, rows) {
        const int i = (int)(row % (size_t)T);
        const int b = (int)(row / ((size_t)T * H));
        const uint8_t *mk = mask + (size_t)b * T;
        const int S = warp_span(mk, T, lane);
        const float *p = P + row * T;
        float *ds = dS + row * T;
        if (i >= S) {
            for (int j = lane; j < T; j += 32) ds[j] = 0.0f;
            continue;
        }
        double dot = 0.0;
        for (int j = lane; j < S; j += 32) dot += (double)p[j] * ds[j];
        dot = warp_sum_d(dot);
        const float fd = (float)dot;
        for (int j = lane; j < T; j += 32) ds[j] = j < S ? p[j] * (ds[j] - fd) * scale : 0.0f;
    }
}

void eecu_attn_softmax(float *P, const uint8_t *mask, int B, int H, int T)
{
    size_t rows = (size_t)B * H * T;
    if (!rows) return;
    k_attn_softmax<<<row_blocks(rows), THREADS, 0, EECU_STREAM>>>(P, mask, B, H, T);
    EECU_LAUNCHED("attn_softmax");
}

void eecu_attn_softmax_bwd(const float *P, float *dS, const uint8_t *mask, int B, int H, int T,
                           float scale)
{
    size_t rows = (size_t)B * H * T;
    if (!rows) return;
    k_attn_softmax_bwd<<<row_blocks(rows), THREADS, 0, EECU_STREAM>>>(P, dS, mask, B, H, T, scale);
    EECU_LAUNCHED("attn_softmax_bwd");
}

/* ---- fused attention forward (T <= 128, dh <= 64) -------------------------------------------
 * One block per (sequence, head, 16 queries): the block loads K, then V, in
 * tiles of 64 keys into shared memory; each warp takes 2 queries: scores
 * into a row buffer, the masked softmax of k_attn_softmax
 * (warp_masked_softmax), P written out for the backward, then the context. It
 * replaces two strided-batched GEMMs per head and the softmax pass over P:
 * for small heads those GEMMs are thin (dh columns) and P makes three
 * trips through memory. */
#define FA_KT 64
#define FA_QPW 2
#define FA_Q (ROWS_PER_BLOCK * FA_QPW)

int eecu_attn_fused_fits(int T, int dh) { return T >= 1 && T <= EECU_FA_TMAX && dh >= 1 && dh <= EECU_FA_DHMAX; }

__global__ void k_attn_fused_fwd(const float *__restrict__ q, const float *__restrict__ k,
                                 const float *__restrict__ v, const uint8_t *__restrict__ mask,
                                 float *P, float *ctx, int T, int d, int H, int chunks, float scale)
{
    __shared__ float tile[FA_KT][EECU_FA_DHMAX + 1];
    __shared__ float prow[ROWS_PER_BLOCK][FA_QPW][EECU_FA_TMAX];
    __shared__ float qs[ROWS_PER_BLOCK][FA_QPW][EECU_FA_DHMAX];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int chunk = (int)(blockIdx.x % (unsigned)chunks);
    const size_t bh = blockIdx.x / (unsigned)chunks;
    const int h = (int)(bh % (size_t)H), dh = d / H;
    const size_t b = bh / (size_t)H;
    const uint8_t *mk = mask + b * T;
    const int S = warp_span(mk, T, lane);
    const int i0 = chunk * FA_Q + w * FA_QPW;
    float *Pb = P + bh * (size_t)T * T;
    for (int r = 0; r < FA_QPW; r++)
        for (int c = lane; c < dh; c += 32)
            qs[w][r][c] = i0 + r < S ? q[(b * T + i0 + r) * d + (size_t)h * dh + c] : 0.0f;
    /* scores */
    for (int t0 = 0; t0 < S; t0 += FA_KT) {
        const int nk = min(FA_KT, S - t0);
        __syncthreads();
        for (int e = threadIdx.x; e < nk * dh; e += blockDim.x)
            tile[e / dh][e % dh] = k[(b * T + t0 + e / dh) * d + (size_t)h * dh + e % dh];
        __syncthreads();
        for (int r = 0; r < FA_QPW; r++) {
            if (i0 + r >= S) continue;
            for (int j = lane; j < nk; j += 32) {
                float acc = 0.0f;
                for (int c = 0; c < dh; c++) acc = fmaf(qs[w][r][c], tile[j][c], acc);
                prow[w][r][t0 + j] = scale * acc;
            }
        }
    }
    __syncwarp();
    /* softmax, P */
    for (int r = 0; r < FA_QPW; r++) {
        const int i = i0 + r;
        if (i >= T) continue;
        float *pg = Pb + (size_t)i * T, *pr = prow[w][r];
        if (i >= S) {
            for (int j = lane; j < T; j += 32) pg[j] = 0.0f;
            continue;
        }
        float mx, inv;
        warp_masked_softmax(pr, mk, S, lane, &mx, &inv);
        for (int j = lane; j < T; j += 32) {
            const float p = masked_softmax_p(pr, mk, S, j, mx, inv);
            if (j < S) pr[j] = p;
            pg[j] = p;
        }
    }
    __syncwarp();
    /* context */
    float acc[FA_QPW][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int t0 = 0; t0 < S; t0 += FA_KT) {
        const int nk = min(FA_KT, S - t0);
        __syncthreads();
        for (int e = threadIdx.x; e < nk * dh; e += blockDim.x)
            tile[e / dh][e % dh] = v[(b * T + t0 + e / dh) * d + (size_t)h * dh + e % dh];
        __syncthreads();
        for (int r = 0; r < FA_QPW; r++) {
            if (i0 + r >= S) continue;
            for (int j = 0; j < nk; j++) {
                const float p = prow[w][r][t0 + j];
                for (int c2 = 0; c2 < 2; c2++)
                    if (lane + 32 * c2 < dh) acc[r][c2] = fmaf(p, tile[j][lane + 32 * c2], acc[r][c2]);
            }
        }
    }
    for (int r = 0; r < FA_QPW; r++) {
        const int i = i0 + r;
        if (i >= T) continue;
        for (int c2 = 0; c2 < 2; c2++)
            if (lane + 32 * c2 < dh)
                ctx[(b * T + i) * d + (size_t)h * dh + lane + 32 * c2] = i < S ? acc[r][c2] : 0.0f;
    }
}

void eecu_attn_fused_fwd(const float *q, const float *k, const float *v, const uint8_t *mask, float *P,
                         float *ctx, int B, int T, int d, int H, float scale)
{
    if (B <= 0 || T <= 0 || H <= 0) return;
    int chunks = (T + FA_Q - 1) / FA_Q;
    size_t blocks = (size_t)B * H * chunks;
    k_attn_fused_fwd<<<(unsigned)blocks, THREADS, 0, EECU_STREAM>>>(q, k, v, mask, P, ctx, T, d, H, chunks,
                                                                     scale);
    EECU_LAUNCHED("attn_fused_fwd");
}

/* ---- attention of the [CLS] query only ---------------------------------------------- */
/* One warp per (b, h): lanes take keys j (scores kept in P, then turned into
 * probabilities in place), then columns c of the context (coalesced reads
 * of v). The CPU's rules: keys j >= span and masked keys get 0; nothing
 * attended gives P = 0 and a zero context. */
__global__ void k_attn_cls_fwd(const float *__restrict__ q, const float *__restrict__ k,
                               const float *__restrict__ v, const uint8_t *__restrict__ mask,
                               float *P, float *ctx, int B, int T, int d, int H, float scale)
{
    const int lane = threadIdx.x & 31;
    const int dh = d / H;
    WARP_ROW_LOOP(bh, (size_t)B * H) {
        const int b = (int)(bh / (size_t)H), h = (int)(bh % (size_t)H);
        const uint8_t *mk = mask + (size_t)b * T;
        const int S = warp_span(mk, T, lane);
        const float *qb = q + (size_t)b * d + h * dh;
        const size_t row0 = (size_t)b * T; /* first key row of sequence b */
        float *p = P + bh * T;
        float *cb = ctx + (size_t)b * d + h * dh;
        float mx = -CUDART_INF_F;
        for (int j = lane; j < S; j += 32) {
            float sc = 0.0f;
            if (mk[j]) {
                const float *kj = k + (row0 + j) * d + h * dh;
                for (int c = 0; c < dh; c++) sc += qb[c] * kj[c];
                sc = sc * scale;
                if (sc > mx) mx = sc;
            }
            p[j] = sc;
        }
        mx = warp_max(mx);
        double sum = 0.0;
        for (int j = lane; j < S; j += 32)
            if (mk[j]) sum += expf(p[j] - mx);
        sum = warp_sum_d(sum);
        const float inv = sum > 0 ? (float)(1.0 / sum) : 0.0f;
        for (int j = lane; j < T; j += 32) p[j] = masked_softmax_p(p, mk, S, j, mx, inv);
        __syncwarp(); /* every lane reads every p[j] below */
        for (int c0 = 0; c0 < dh; c0 += 32) {
            const int c = c0 + lane;
            if (c < dh) {
                float acc = 0.0f;
                for (int j = 0; j < S; j++) acc += p[j] * v[(row0 + j) * d + h * dh + c];
                cb[c] = acc;
            }
        }
        __syncwarp();
    }
}

/* One warp per (b, h). ds (workspace [B][H][T]) holds g_j = dctx . v_j,
 * then dS_j = P_j (g_j - sum_i P_i g_i) scale. dq by columns; dk, dv rows
 * j < span by (j, c) pairs (consecutive lanes, consecutive addresses).
 * dk and dv were zeroed before the launch (rows past the span stay 0). */
__global__ void k_attn_cls_bwd(const float *__restrict__ q, const float *__restrict__ k,
                               const float *__restrict__ v, const uint8_t *__restrict__ mask,
                               const float *__restrict__ P, const float *__restrict__ dctx,
                               float *dq, float *dk, float *dv, float *ds, int B, int T, int d,
                               int H, float scale)
{
    const int lane = threadIdx.x & 31;
    const int dh = d / H;
    WARP_ROW_LOOP(bh, (size_t)B * H) {
        const int b = (int)(bh / (size_t)H), h = (int)(bh % (size_t)H);
        const uint8_t *mk = mask + (size_t)b * T;
        const int S = warp_span(mk, T, lane);
        const float *qb = q + (size_t)b * d + h * dh;
        const float *gc = dctx + (size_t)b * d + h * dh;
        const float *p = P + bh * T;
        float *gq = dq + (size_t)b * d + h * dh;
        float *dsb = ds + bh * T;
        const size_t row0 = (size_t)b * T;
        double dot = 0.0;
        for (int j = lane; j < S; j += 32) {
            const float *vj = v + (row0 + j) * d + h * dh;
            float g = 0.0f;
            for (int c = 0; c < dh; c++) g += gc[c] * vj[c];
            dsb[j] = g;
            dot += (double)p[j] * g;
        }
        dot = warp_sum_d(dot);
        const float fd = (float)dot;
        for (int j = lane; j < S; j += 32) dsb[j] = p[j] * (dsb[j] - fd) * scale;
        __syncwarp(); /* every lane reads every dsb[j] below */
        for (int c0 = 0; c0 < dh; c0 += 32) {
            const int c = c0 + lane;
            if (c < dh) {
                float acc = 0.0f;
                for (int j = 0; j < S; j++) acc += dsb[j] * k[(row0 + j) * d + h * dh + c];
                gq[c] = acc;
            }
        }
        for (int idx = lane; idx < S * dh; idx += 32) {
            const int j = idx / dh, c = idx % dh;
            const size_t off = (row0 + j) * d + h * dh + c;
            dk[off] = dsb[j] * qb[c];
            dv[off] = p[j] * gc[c];
        }
        __syncwarp();
    }
}

void eecu_attn_cls_fwd(const float *q, const float *k, const float *v, const uint8_t *mask,
                       float *P, float *ctx, int B, int T, int d, int H, float scale)
{
    size_t rows = (size_t)B * H;
    if (!rows || T <= 0 || d / H <= 0) return;
    k_attn_cls_fwd<<<row_blocks(rows), THREADS, 0, EECU_STREAM>>>(q, k, v, mask, P, ctx, B, T, d,
                                                                   H, scale);
    EECU_LAUNCHED("attn_cls_fwd");
}

void eecu_attn_cls_bwd(const float *q, const float *k, const float *v, const uint8_t *mask,
                       const float *P, const float *dctx, float *dq, float *dk, float *dv,
                       float *ds, int B, int T, int d, int H, float scale)
{
    size_t rows = (size_t)B * H;
    if (!rows || T <= 0 || d / H <= 0) return;
    k_attn_cls_bwd<<<row_blocks(rows), THREADS, 0, EECU_STREAM>>>(q, k, v, mask, P, dctx, dq, dk,
                                                                   dv, ds, B, T, d, H, scale);
    EECU_LAUNCHED("attn_cls_bwd");
}

/* ---- embeddings ---------------------------------------------------------------------- */
__global__ void k_embed_fwd(const int32_t *__restrict__ ids, const float *__restrict__ Et,
                            const float *__restrict__ Ep, float *out, int T, int d, size_t n)
{
    GRID_LOOP(i, n) {
        size_t r = i / (size_t)d;
        int c = (int)(i % (size_t)d);
        float v = Et[(size_t)ids[r] * d + c];
        if (Ep) v = v + Ep[(r % (size_t)T) * d + c];
        out[i] = v;
    }
}

/* Token rows collide on repeated ids: atomicAdd (the order of additions,
 * hence the rounding, varies between runs). */
__global__ void k_embed_bwd_tok(const int32_t *__restrict__ ids, const float *__restrict__ g,
                                float *dEt, int d, size_t n)
{
    GRID_LOOP(i, n) {
        size_t r = i / (size_t)d;
        int c = (int)(i % (size_t)d);
        int id = ids[r];
        if (id != EE_PAD) atomicAdd(dEt + (size_t)id * d + c, g[i]);
    }
}

/* Position rows: one thread per (t, c) adds the B sequences in order. */
__global__ void k_embed_bwd_pos(const float *__restrict__ g, float *dEp, int B, int T, int d)
{
    const size_t Td = (size_t)T * d;
    GRID_LOOP(i, Td) {
        float acc = 0.0f;
        for (int b = 0; b < B; b++) acc += g[(size_t)b * Td + i];
        dEp[i] += acc;
    }
}

void eecu_embed_fwd(const int32_t *ids, const float *E_tok, const float *E_pos, float *out, int B,
                    int T, int d)
{
    size_t n = (size_t)B * T * d;
    if (B <= 0 || T <= 0 || d <= 0) return;
    k_embed_fwd<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(ids, E_tok, E_pos, out, T,
                                                                       d, n);
    EECU_LAUNCHED("embed_fwd");
}

void eecu_embed_bwd(const int32_t *ids, const float *dOut, float *dE_tok, float *dE_pos, int B,
                    int T, int d)
{
    if (B <= 0 || T <= 0 || d <= 0) return;
    size_t n = (size_t)B * T * d;
    if (dE_tok) {
        k_embed_bwd_tok<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(ids, dOut, dE_tok,
                                                                               d, n);
        EECU_LAUNCHED("embed_bwd_tok");
    }
    if (dE_pos) {
        size_t m = (size_t)T * d;
        k_embed_bwd_pos<<<eecu_blocks(m, THREADS), THREADS, 0, EECU_STREAM>>>(dOut, dE_pos, B, T,
                                                                               d);
        EECU_LAUNCHED("embed_bwd_pos");
    }
}

/* ---- bf16 operands -------------------------------------------------------------------- */
/* x rounded to the nearest bf16 (ties to even; NaN stays NaN), as raw bits */
__device__ __forceinline__ uint16_t dev_to_bf16(float x)
{
    union { float f; uint32_t u; } c;
    c.f = x;
    if ((c.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((c.u >> 16) | 0x40u);
    c.u += 0x7fffu + ((c.u >> 16) & 1u);
    return (uint16_t)(c.u >> 16);
}

__global__ void k_to_bf16(const float *__restrict__ x, uint16_t *__restrict__ y, size_t n)
{
    GRID_LOOP(i, n) y[i] = dev_to_bf16(x[i]);
}

void eecu_to_bf16(const float *x, uint16_t *y, size_t n)
{
    if (!n) return;
    k_to_bf16<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(x, y, n);
    EECU_LAUNCHED("to_bf16");
}

/* ---- text CNN: im2col / col2im ------------------------------------------------------ */
/* Xc[(b*T + t)][j*d + c] = E[b][t+j][c] if t + j < T else 0. Row (b, t)'s
 * window is contiguous in E: element k of the row is E[(b*T + t)*d + k]. */
__global__ void k_im2col(const float *__restrict__ E, float *__restrict__ Xc, int T, int d, int w,
                         size_t n)
{
    const size_t wd = (size_t)w * d;
    GRID_LOOP(i, n) {
        size_t row = i / wd, k = i % wd;
        int j = (int)(k / (size_t)d);
        int t = (int)(row % (size_t)T);
        Xc[i] = t + j < T ? E[row * d + k] : 0.0f;
    }
}

/* dE[b][s][c] += sum_{j < w, j <= s} Xc[(b*T + s - j)][j*d + c] */
__global__ void k_col2im_add(const float *__restrict__ Xc, float *dE, int T, int d, int w,
                             size_t n)
{
    const size_t wd = (size_t)w * d;
    GRID_LOOP(i, n) {
        size_t row = i / (size_t)d;
        int c = (int)(i % (size_t)d);
        int s = (int)(row % (size_t)T);
        float acc = 0.0f;
        for (int j = 0; j < w && j <= s; j++) acc += Xc[(row - j) * wd + (size_t)j * d + c];
        dE[i] += acc;
    }
}

void eecu_im2col(const float *E, float *Xc, int B, int T, int d, int w)
{
    size_t n = (size_t)B * T * w * d;
    if (B <= 0 || T <= 0 || d <= 0 || w <= 0) return;
    k_im2col<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(E, Xc, T, d, w, n);
    EECU_LAUNCHED("im2col");
}

void eecu_col2im_add(const float *Xc, float *dE, int B, int T, int d, int w)
{
    size_t n = (size_t)B * T * d;
    if (B <= 0 || T <= 0 || d <= 0 || w <= 0) return;
    k_col2im_add<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(Xc, dE, T, d, w, n);
    EECU_LAUNCHED("col2im_add");
}

/* ---- max over time ---------------------------------------------------------------------- */
/* One thread per (b, f), scanning t upwards: the lowest t wins ties;
 * consecutive f are consecutive addresses. */
__global__ void k_maxpool_fwd(const float *__restrict__ act, const uint8_t *__restrict__ mask,
                              float *pooled, int32_t *argmax, int B, int T, int F, int ld, int off)
{
    GRID_LOOP(i, (size_t)B * F) {
        int s = (int)(i / (size_t)F), f = (int)(i % (size_t)F);
        const float *a = act + (size_t)s * T * F + f;
        const uint8_t *mk = mask + (size_t)s * T;
        float best = -CUDART_INF_F;
        int bi = -1;
        for (int t = 0; t < T; t++) {
            if (mk[t]) {
                float v = a[(size_t)t * F];
                if (v > best) {
                    best = v;
                    bi = t;
                }
            }
        }
        if (bi < 0 || !(best > 0)) {
            best = 0.0f;
            bi = -1;
        }
        pooled[(size_t)s * ld + off + f] = best;
        argmax[i] = bi;
    }
}

__global__ void k_maxpool_bwd(const float *__restrict__ dPooled, const int32_t *__restrict__ argmax,
                              float *dAct, int B, int T, int F, int ld, int off)
{
    GRID_LOOP(i, (size_t)B * F) {
        int s = (int)(i / (size_t)F), f = (int)(i % (size_t)F);
        int t = argmax[i];
        if (t >= 0 && t < T) dAct[((size_t)s * T + t) * F + f] = dPooled[(size_t)s * ld + off + f];
    }
}

void eecu_maxpool_fwd(const float *act, const uint8_t *mask, float *pooled, int32_t *argmax, int B,
                      int T, int F, int ld, int off)
{
    size_t n = (size_t)B * F;
    if (B <= 0 || F <= 0) return;
    k_maxpool_fwd<<<eecu_blocks(n, 128), 128, 0, EECU_STREAM>>>(act, mask, pooled, argmax, B, T, F,
                                                                 ld, off);
    EECU_LAUNCHED("maxpool_fwd");
}

void eecu_maxpool_bwd(const float *dPooled, const int32_t *argmax, float *dAct, int B, int T, int F,
                      int ld, int off)
{
    if (B <= 0 || F <= 0 || T <= 0) return;
    EECU_CK(cudaMemsetAsync(dAct, 0, sizeof(float) * (size_t)B * T * F, EECU_STREAM));
    size_t n = (size_t)B * F;
    k_maxpool_bwd<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(dPooled, argmax, dAct, B,
                                                                         T, F, ld, off);
    EECU_LAUNCHED("maxpool_bwd");
}

/* ---- DeepLIFT's rescale rule ---------------------------------------------------------- */
/* The rule itself is ../deeplift_rule.h, shared with the CPU backend: the
 * same float operations in the same order, so the same bits. */
__global__ void k_relu_rescale_bwd(const float *__restrict__ Zx, const float *__restrict__ Zr,
                                   const float *dY, float *dX, size_t n)
{
    GRID_LOOP(i, n) dX[i] = dY[i] * ee_dl_relu_mult(Zx[i], Zr[i]);
}

/* first t with the largest relu(z[t][f]) > 0 over the valid t, else 0 and -1 */
__device__ __forceinline__ void dl_pool_max(const float *z, const uint8_t *mk, int T, int F, float *best,
                                            int *at)
{
    *best = 0;
    *at = -1;
    for (int t = 0; t < T; t++)
        if (mk[t] && z[(size_t)t * F] > *best) {
            *best = z[(size_t)t * F];
            *at = t;
        }
}

/* One thread per (sequence, filter): the two maxima and their multipliers. */
__global__ void k_pool_rescale_bwd(const float *__restrict__ Zx, const float *__restrict__ Zr,
                                   const uint8_t *__restrict__ mask, const float *__restrict__ dPooled,
                                   int32_t *at, float *mult, int B, int T, int F, int ld, int off)
{
    GRID_LOOP(i, (size_t)B * F) {
        int s = (int)(i / (size_t)F), f = (int)(i % (size_t)F);
        const float *zx = Zx + (size_t)s * T * F, *zr = Zr + (size_t)s * T * F;
        const uint8_t *mk = mask + (size_t)s * T;
        float yx, yr;
        int tx, tr;
        dl_pool_max(zx + f, mk, T, F, &yx, &tx);
        dl_pool_max(zr + f, mk, T, F, &yr, &tr);
        int pos[2];
        float m[2];
        ee_dl_pool_mults(zx, zr, F, f, tx, yx, tr, yr, dPooled[(size_t)s * ld + off + f], pos, m);
        for (int k = 0; k < 2; k++) {
            at[((size_t)k * B + s) * F + f] = pos[k];
            mult[((size_t)k * B + s) * ld + off + f] = m[k];
        }
    }
}

void eecu_relu_rescale_bwd(const float *Zx, const float *Zr, const float *dY, float *dX, size_t n)
{
    if (!n) return;
    k_relu_rescale_bwd<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(Zx, Zr, dY, dX, n);
    EECU_LAUNCHED("relu_rescale_bwd");
}

void eecu_pool_rescale_bwd(const float *Zx, const float *Zr, const uint8_t *mask, const float *dPooled,
                           int32_t *at, float *mult, int B, int T, int F, int ld, int off)
{
    size_t n = (size_t)B * F;
    if (B <= 0 || F <= 0) return;
    k_pool_rescale_bwd<<<eecu_blocks(n, 128), 128, 0, EECU_STREAM>>>(Zx, Zr, mask, dPooled, at, mult, B, T,
                                                                     F, ld, off);
    EECU_LAUNCHED("pool_rescale_bwd");
}

/* ---- strided rows ---------------------------------------------------------------------- */
__global__ void k_gather_rows(const float *__restrict__ src, int stride, float *__restrict__ dst,
                              int cols, size_t n)
{
    GRID_LOOP(i, n) {
        size_t r = i / (size_t)cols, c = i % (size_t)cols;
        dst[i] = src[r * stride + c];
    }
}

__global__ void k_scatter_rows(const float *__restrict__ src, float *__restrict__ dst, int stride,
                               int cols, size_t n)
{
    GRID_LOOP(i, n) {
        size_t r = i / (size_t)cols, c = i % (size_t)cols;
        dst[r * stride + c] = src[i];
    }
}

void eecu_gather_rows(const float *src, int stride, float *dst, int n, int cols)
{
    if (n <= 0 || cols <= 0) return;
    size_t m = (size_t)n * cols;
    k_gather_rows<<<eecu_blocks(m, THREADS), THREADS, 0, EECU_STREAM>>>(src, stride, dst, cols, m);
    EECU_LAUNCHED("gather_rows");
}

void eecu_scatter_rows(const float *src, float *dst, int stride, int n, int cols)
{
    if (n <= 0 || cols <= 0) return;
    size_t m = (size_t)n * cols;
    k_scatter_rows<<<eecu_blocks(m, THREADS), THREADS, 0, EECU_STREAM>>>(src, dst, stride, cols, m);
    EECU_LAUNCHED("scatter_rows");
}

/* ---- losses ------------------------------------------------------------------------------ */
/* One warp per row, in double like the CPU. */
__global__ void k_softmax_xent(const float *__restrict__ z, const int32_t *__restrict__ labels,
                               float *g, double *rowloss, int n, int C)
{
    const int lane = threadIdx.x & 31;
    WARP_ROW_LOOP(row, n) {
        const float *zr = z + row * C;
        float *gr = g + row * C;
        float mx = -CUDART_INF_F;
        for (int c = lane; c < C; c += 32) mx = fmaxf(mx, zr[c]);
        mx = warp_max(mx);
        double s = 0.0;
        for (int c = lane; c < C; c += 32) s += exp((double)zr[c] - mx);
        s = warp_sum_d(s);
        const double lse = mx + log(s);
        const int lab = labels[row];
        for (int c = lane; c < C; c += 32)
            gr[c] = (float)((exp((double)zr[c] - lse) - (double)(c == lab)) / n);
        if (lane == 0) rowloss[row] = lab >= 0 && lab < C ? lse - zr[lab] : CUDART_NAN;
    }
}

void eecu_softmax_xent(const float *logits, const int32_t *labels, float *dlogits, double *rowloss,
                       int n, int C)
{
    if (n <= 0 || C <= 0) return;
    k_softmax_xent<<<row_blocks(n), THREADS, 0, EECU_STREAM>>>(logits, labels, dlogits, rowloss, n,
                                                                C);
    EECU_LAUNCHED("softmax_xent");
}

/* Fixed grid: block k writes part[k]; the host adds the parts in order. */
__global__ void k_mse(const float *__restrict__ pred, const float *__restrict__ target, float *dpred,
                      size_t count, double denom, double *part)
{
    __shared__ double sh[THREADS / 32];
    double acc = 0.0;
    GRID_LOOP(i, count) {
        double r = (double)pred[i] - target[i];
        acc += r * r;
        if (dpred) dpred[i] = (float)(2.0 * r / denom);
    }
    acc = warp_sum_d(acc);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) sh[wid] = acc;
    __syncthreads();
    if (wid == 0) {
        double v = lane < (int)(blockDim.x >> 5) ? sh[lane] : 0.0;
        v = warp_sum_d(v);
        if (lane == 0) part[blockIdx.x] = v;
    }
}

int eecu_mse(const float *pred, const float *target, float *dpred, size_t count, double denom,
             double *part)
{
    if (!count) return 0;
    size_t nb = (count + THREADS - 1) / THREADS;
    int parts = nb > EECU_MSE_PARTS ? EECU_MSE_PARTS : (int)nb;
    k_mse<<<parts, THREADS, 0, EECU_STREAM>>>(pred, target, dpred, count, denom, part);
    EECU_LAUNCHED("mse");
    return parts;
}

/* ---- Adam ------------------------------------------------------------------------------- */
__global__ void k_adam(float *w, const float *__restrict__ g, float *m, float *v, size_t n,
                       float step, float rc2, float beta1, float beta2, float eps)
{
    GRID_LOOP(i, n) {
        float gi = g[i];
        float mi = beta1 * m[i] + (1 - beta1) * gi;
        float vi = beta2 * v[i] + (1 - beta2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        w[i] -= step * mi / (sqrtf(vi) * rc2 + eps);
    }
}

void eecu_adam(float *w, const float *g, float *m, float *v, size_t n, float step, float rc2,
               float beta1, float beta2, float eps)
{
    ELEMENTWISE_LAUNCH(k_adam, n, w, g, m, v, n, step, rc2, beta1, beta2, eps);
}

/* ---- integrated-gradients rows ------------------------------------------------- */
__global__ void k_lerp_rows(float *out, const float *__restrict__ base, const float *__restrict__ diff,
                            const float *__restrict__ alpha, const int32_t *__restrict__ group,
                            int rows, int width)
{
    size_t n = (size_t)rows * width;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int j = (int)(i / width), c = (int)(i % width);
        size_t g = (size_t)group[j] * width + c;
        out[i] = base[g] + alpha[j] * diff[g];
    }
}

/* One thread per column: rows added in order (deterministic). */
__global__ void k_accum_rows(float *acc, const float *__restrict__ x, const float *__restrict__ w,
                             const int32_t *__restrict__ group, int rows, int width)
{
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < width; c += gridDim.x * blockDim.x)
        for (int j = 0; j < rows; j++) acc[(size_t)group[j] * width + c] += w[j] * x[(size_t)j * width + c];
}

void eecu_lerp_rows(float *out, const float *base, const float *diff, const float *alpha,
                    const int32_t *group, int rows, int width)
{
    size_t n = (size_t)rows * width;
    if (!n) return;
    k_lerp_rows<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(out, base, diff, alpha, group, rows, width);
    EECU_LAUNCHED("lerp_rows");
}

void eecu_accum_rows(float *acc, const float *x, const float *w, const int32_t *group, int rows, int width)
{
    if (rows <= 0 || width <= 0) return;
    k_accum_rows<<<eecu_blocks((size_t)width, 128), 128, 0, EECU_STREAM>>>(acc, x, w, group, rows, width);
    EECU_LAUNCHED("accum_rows");
}

/* ---- convolution backward through the max over time ---------------------------- */
/* dE: one thread per (sequence, position, channel), gathering the filters
 * whose winning window covers the position (fixed order: deterministic). */
__global__ void k_conv_pool_bwd_dE(const float *__restrict__ W, const float *__restrict__ dP,
                                   const int32_t *__restrict__ argmax, float *dE, int B, int T, int d,
                                   int w, int F, int ld, int off)
{
    size_t n = (size_t)B * T * d;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)(i % d), pos = (int)((i / d) % T), b = (int)(i / ((size_t)d * T));
        float acc = 0;
        for (int f = 0; f < F; f++) {
            int t = argmax[(size_t)b * F + f], j = pos - t;
            if (t < 0 || j < 0 || j >= w) continue;
            acc += dP[(size_t)b * ld + off + f] * W[((size_t)j * d + c) * F + f];
        }
        dE[i] += acc;
    }
}

/* dW: one thread per (tap, channel, filter), summing over sequences. */
__global__ void k_conv_pool_bwd_dW(const float *__restrict__ E, const float *__restrict__ dP,
                                   const int32_t *__restrict__ argmax, float *dW, int B, int T, int d,
                                   int w, int F, int ld, int off)
{
    size_t n = (size_t)w * d * F;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int f = (int)(i % F), c = (int)((i / F) % d), j = (int)(i / ((size_t)F * d));
        float acc = 0;
        for (int b = 0; b < B; b++) {
            int t = argmax[(size_t)b * F + f];
            if (t < 0 || t + j >= T) continue;
            acc += dP[(size_t)b * ld + off + f] * E[((size_t)b * T + t + j) * d + c];
        }
        dW[i] += acc;
    }
}

__global__ void k_conv_pool_bwd_db(const float *__restrict__ dP, const int32_t *__restrict__ argmax,
                                   float *db, int B, int F, int ld, int off)
{
    for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < F; f += gridDim.x * blockDim.x) {
        float acc = 0;
        for (int b = 0; b < B; b++)
            if (argmax[(size_t)b * F + f] >= 0) acc += dP[(size_t)b * ld + off + f];
        db[f] += acc;
    }
}

void eecu_conv_pool_bwd(const float *E, const float *W, const float *dP, const int32_t *argmax,
                        float *dE, float *dW, float *db, int B, int T, int d, int w, int F, int ld,
                        int off)
{
    if (B <= 0 || T <= 0) return;
    if (dE) {
        size_t n = (size_t)B * T * d;
        k_conv_pool_bwd_dE<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(W, dP, argmax, dE, B, T, d, w, F, ld, off);
        EECU_LAUNCHED("conv_pool_bwd_dE");
    }
    if (dW) {
        size_t n = (size_t)w * d * F;
        k_conv_pool_bwd_dW<<<eecu_blocks(n, THREADS), THREADS, 0, EECU_STREAM>>>(E, dP, argmax, dW, B, T, d, w, F, ld, off);
        EECU_LAUNCHED("conv_pool_bwd_dW");
    }
    if (db) {
        k_conv_pool_bwd_db<<<eecu_blocks((size_t)F, THREADS), THREADS, 0, EECU_STREAM>>>(dP, argmax, db, B, F, ld, off);
        EECU_LAUNCHED("conv_pool_bwd_db");
    }
}
