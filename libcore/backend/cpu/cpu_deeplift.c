/* cpu_deeplift.c: the CPU backend's ops of DeepLIFT's rescale rule
 * (backend.h, doc/MODELS.md "DeepLIFT"): the ReLU's multipliers and the
 * text CNN's ReLU-then-max-over-time, with the rule of
 * ../deeplift_rule.h (shared with the CUDA backend). */
#include "../backend.h"
#include "cpu_internal.h"
#include "../deeplift_rule.h"

#include <math.h>

void ee_cpu_relu_rescale_bwd(const float *Zx, const float *Zr, const float *dY, float *dX, size_t n)
{
    #pragma omp parallel for if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) dX[i] = dY[i] * ee_dl_relu_mult(Zx[i], Zr[i]);
}

/* max over the valid t of relu(z[t][f]) for the filters f0 .. f0+nf-1:
 * the values and their first t, or 0 and -1 when no valid position is
 * above 0 (maxpool_fwd's convention); position by position, so that the
 * rows of z are read in order */
enum { POOL_BLOCK = 256 };
static void pool_max(const float *z, const uint8_t *mk, int T, int F, int f0, int nf, float *best, int *at)
{
    for (int j = 0; j < nf; j++) { best[j] = 0; at[j] = -1; }
    for (int t = 0; t < T; t++) {
        if (!mk[t]) continue;
        const float *row = z + (size_t)t * F + f0;
        for (int j = 0; j < nf; j++)
            if (row[j] > best[j]) { best[j] = row[j]; at[j] = t; }
    }
}

void ee_cpu_pool_rescale_bwd(const float *Zx, const float *Zr, const uint8_t *mask, const float *dPooled, int32_t *at,
                             float *mult, int B, int T, int F, int ld, int off)
{
    #pragma omp parallel for if ((size_t)B * T * F > 65536) schedule(static)
    for (int s = 0; s < B; s++) {
        const float *zx = Zx + (size_t)s * T * F, *zr = Zr + (size_t)s * T * F;
        const uint8_t *mk = mask + (size_t)s * T;
        float bx[POOL_BLOCK], br[POOL_BLOCK];
        int ix[POOL_BLOCK], ir[POOL_BLOCK];
        for (int f = 0; f < F; f++) {
            if (f % POOL_BLOCK == 0) {
                int nf = F - f < POOL_BLOCK ? F - f : POOL_BLOCK;
                pool_max(zx, mk, T, F, f, nf, bx, ix);
                pool_max(zr, mk, T, F, f, nf, br, ir);
            }
            int pos[2];
            float m[2];
            ee_dl_pool_mults(zx, zr, F, f, ix[f % POOL_BLOCK], bx[f % POOL_BLOCK], ir[f % POOL_BLOCK],
                             br[f % POOL_BLOCK], dPooled[(size_t)s * ld + off + f], pos, m);
            for (int k = 0; k < 2; k++) {
                at[((size_t)k * B + s) * F + f] = pos[k];
                mult[((size_t)k * B + s) * ld + off + f] = m[k];
            }
        }
    }
}
