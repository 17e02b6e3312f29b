/* deeplift_rule.h: DeepLIFT's rescale rule per element (doc/MODELS.md
 * "DeepLIFT"), one definition for the CPU backend (cpu_deeplift.c) and the
 * CUDA backend (cuda_kernels.cu), so that both compute the same float
 * operations in the same order: IEEE division (no fast math), and no
 * product followed by an addition a compiler could fuse. */
#ifndef EE_DEEPLIFT_RULE_H
#define EE_DEEPLIFT_RULE_H

#include "backend.h"

#include <math.h>

#ifdef __CUDACC__
#define EE_DL_FN __host__ __device__ __forceinline__
#else
#define EE_DL_FN static inline
#endif

EE_DL_FN float ee_dl_relu(float z) { return z > 0 ? z : 0.0f; }

/* The ReLU's multiplier at one element; the gradient where the input did
 * not move (ReLU'(0) = 0, as relu_bwd). */
EE_DL_FN float ee_dl_relu_mult(float zx, float zr)
{
    float dz = zx - zr;
    if (fabsf(dz) < EE_DEEPLIFT_EPS) return zx > 0 ? 1.0f : 0.0f;
    return (ee_dl_relu(zx) - ee_dl_relu(zr)) / dz;
}

/* One (sequence, filter) of the ReLU then max over time: zx, zr the
 * pre-activations [T][F] of the input and the reference, f the filter,
 * tx/yx and tr/yr the first position of each one's largest relu(z) > 0
 * and that value (-1 and 0: none), g the pooled output's multiplier.
 * at[k], m[k] (k = 0, 1): the two positions that pass a multiplier on
 * (-1: none) and their multipliers of z. Captum's max-pooling rule: the
 * output difference is split as (max - y_r) at x's argmax and (y_x - max)
 * at the reference's, so the whole difference lands at the position of
 * the larger max; then the ReLU's multiplier on top of it. */
EE_DL_FN void ee_dl_pool_mults(const float *zx, const float *zr, int F, int f, int tx, float yx, int tr, float yr,
                               float g, int at[2], float m[2])
{
    float top = yx > yr ? yx : yr;
    float ux = g * (top - yr), ur = g * (yx - top);
    at[0] = tx;
    at[1] = tr == tx ? -1 : tr; /* one position once */
    for (int k = 0; k < 2; k++) {
        int t = at[k];
        m[k] = 0;
        if (t >= 0) {
            size_t q = (size_t)t * F + f;
            float u = (t == tx ? ux : 0.0f) + (t == tr ? ur : 0.0f);
            float da = ee_dl_relu(zx[q]) - ee_dl_relu(zr[q]);
            /* where the pooled input did not move: the pool's gradient */
            float ma = fabsf(da) >= EE_DEEPLIFT_EPS ? u / da : t == tx ? g : 0.0f;
            m[k] = ma * ee_dl_relu_mult(zx[q], zr[q]);
        }
    }
}

#endif
