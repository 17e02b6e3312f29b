/* kernelshap.c: KernelSHAP (Lundberg and Lee 2017) as a coalition method:
 * the Shapley values are the solution of a weighted least-squares fit of
 * the coalition values by an additive model, under the efficiency
 * constraint, with the Shapley kernel's weights (doc/MODELS.md). Here:
 * the coalitions (drawn from the kernel, enumerated, or given) and the
 * constrained fit, solved in double. */
#include "coalition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* pi(s) = (P - 1) / (binom(P, s) s (P - s)) for 0 < s < P; 0 otherwise
 * (the empty and full coalitions are the constraint, not data). */
double ee_kernelshap_weight(int P, int s)
{
    if (s <= 0 || s >= P) return 0;
    double b = 1;
    for (int t = 1; t <= s; t++) b = b * (P - s + t) / t;
    return (P - 1) / (b * s * (double)(P - s));
}

/* the number of proper coalitions, 2^P - 2 (saturated: enumeration is
 * only ever chosen for small P) */
static double proper(int P)
{
    return P > 62 ? 1e300 : ldexp(1.0, P) - 2;
}

long ee_kernelshap_count(const EeCoalitionOptions *m, int P)
{
    if (m->coalitions) return m->n;
    if (m->samples < 1) return -1;
    if (P < 2) return 0;
    return m->samples >= proper(P) ? (long)proper(P) : m->samples;
}

/* One coalition from the kernel: its size s in 1..P-1 with probability
 * proportional to binom(P, s) pi(s), i.e. to 1 / (s (P - s)) (inverse CDF
 * of one uniform), then the first s players of a Fisher-Yates permutation
 * (RANDOM.md), all on the stream (seed, row, EE_KERNELSHAP_STREAM + m). */
static void draw_one(uint64_t seed, long row, long m, int P, int *perm, uint8_t *z)
{
    EeRng r;
    ee_rng_stream(&r, seed, (uint64_t)row, EE_KERNELSHAP_STREAM + (uint64_t)m);
    double total = 0;
    for (int s = 1; s < P; s++) total += 1.0 / ((double)s * (P - s));
    double u = ee_rng_uniform(&r) * total, cum = 0;
    int size = P - 1;
    for (int s = 1; s < P; s++) {
        cum += 1.0 / ((double)s * (P - s));
        if (u < cum) { size = s; break; }
    }
    ee_rng_permutation(&r, P, perm);
    memset(z, 0, (size_t)P);
    for (int t = 0; t < size; t++) z[perm[t]] = 1;
}

EeStatus ee_kernelshap_draw(const EeCoalitionOptions *m, uint64_t seed, long row, int P, uint8_t *Z, double *w)
{
    long n = ee_kernelshap_count(m, P);
    if (m->coalitions) {
        for (long j = 0; j < n; j++) {
            int s = 0;
            for (int p = 0; p < P; p++) s += (Z[(size_t)j * P + p] = m->coalitions[(size_t)j * P + p] != 0);
            w[j] = m->weights ? m->weights[j] : ee_kernelshap_weight(P, s);
        }
        return EE_OK;
    }
    if (n > 0 && n == (long)proper(P)) { /* all of them: the exact values */
        for (long c = 1; c <= n; c++) {
            uint8_t *z = Z + (size_t)(c - 1) * P;
            for (int p = 0; p < P; p++) z[p] = (uint8_t)(c >> p & 1);
            w[c - 1] = ee_kernelshap_weight(P, __builtin_popcountl((unsigned long)c));
        }
        return EE_OK;
    }
    int *perm = malloc(sizeof(int) * (P ? P : 1));
    if (!perm) return ee_fail(EE_ERR_NOMEM, "out of memory");
    for (long j = 0; j < n; j++) {
        uint8_t *z = Z + (size_t)j * P;
        /* drawn from the kernel itself, so every coalition weighs the same */
        w[j] = 1;
        if (m->paired && j % 2 == 1) {
            const uint8_t *prev = z - P;
            for (int p = 0; p < P; p++) z[p] = !prev[p];
        } else {
            draw_one(seed, row, m->paired ? j / 2 : j, P, perm, z);
        }
    }
    free(perm);
    return EE_OK;
}

/* min sum_j w_j (v_j - v0 - sum_{p in S_j} phi_p)^2 subject to
 * sum_p phi_p = v1 - v0 = D. The constraint eliminates the last player,
 * phi_{P-1} = D - sum_{p < P-1} phi_p, which leaves an unconstrained fit
 * of the first P - 1: v_j - v0 - z_{j,P-1} D against a_jp = z_jp -
 * z_{j,P-1}; its normal equations are solved by Cholesky. */
EeStatus ee_kernelshap_solve(int P, long n, const uint8_t *Z, const double *w, const double *v, double v0,
                             double v1, double *phi)
{
    double D = v1 - v0;
    if (P == 1) { phi[0] = D; return EE_OK; }
    if (P < 1) return EE_OK;
    int q = P - 1;
    double *G = calloc((size_t)q * q + (size_t)q, sizeof(double));
    int *idx = malloc(sizeof(int) * (size_t)q);
    if (!G || !idx) {
        free(G);
        free(idx);
        return ee_fail(EE_ERR_NOMEM, "out of memory for KernelSHAP's %d x %d system", q, q);
    }
    double *r = G + (size_t)q * q;
    for (long j = 0; j < n; j++) {
        if (w[j] == 0) continue;
        const uint8_t *z = Z + (size_t)j * P;
        /* a = z - z_last over the first q players is a 0/1 vector times
         * sign: the players present (z_last = 0) or, negated, the absent
         * ones (z_last = 1); a a' adds w_j at the pairs of its support
         * (lower triangle here, mirrored below), O(|support|^2) */
        int last = z[q] != 0, k = 0;
        double y = v[j] - v0 - last * D, sign = last ? -1 : 1;
        for (int p = 0; p < q; p++)
            if ((z[p] != 0) != last) idx[k++] = p;
        if (k == 0) continue; /* the empty or full coalition: no information */
        for (int u = 0; u < k; u++) {
            int p = idx[u];
            r[p] += (w[j] * sign) * y;
            double *row = G + (size_t)p * q;
            for (int t = 0; t <= u; t++) row[idx[t]] += w[j];
        }
    }
    free(idx);
    for (int p = 0; p < q; p++)
        for (int t = p + 1; t < q; t++) G[(size_t)p * q + t] = G[(size_t)t * q + p];
    if (ee_spd_solve(q, G, r)) {
        free(G);
        return ee_fail(EE_ERR_INPUT, "KernelSHAP: the %ld coalitions do not determine the %d players' values "
                       "(the weighted design has rank < %d); use more 'samples' or other coalitions", n, P, q);
    }
    double sum = 0;
    for (int p = 0; p < q; p++) {
        phi[p] = r[p];
        sum += r[p];
    }
    phi[q] = D - sum;
    free(G);
    return EE_OK;
}
