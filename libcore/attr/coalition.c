/* coalition.c: the coalition methods' common entry points (ee.h): which
 * method draws and solves, the option checks and leave-one-out occlusion
 * (too small for a file of its own). The fits' solve is spd_solve.c, so
 * that the methods this file dispatches to do not call back into it. */
#include "coalition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

long ee_coalition_count(const EeCoalitionOptions *m, int P)
{
    if (!m || P < 0 || m->kind < 0 || m->kind >= EE_COAL_COUNT) return -1;
    if (m->coalitions && (m->n < 1 || m->kind == EE_COAL_OCCLUSION)) return -1;
    if (!m->coalitions && m->weights) return -1;
    if (m->weights)
        for (long j = 0; j < m->n; j++)
            if (!(m->weights[j] >= 0 && isfinite(m->weights[j]))) return -1;
    switch (m->kind) {
    case EE_COAL_KERNELSHAP: return ee_kernelshap_count(m, P);
    case EE_COAL_LIME:
        if (!(m->ridge >= 0) || !isfinite(m->width) || !isfinite(m->ridge)) return -1;
        if (m->coalitions) return m->n;
        return m->samples >= 1 ? m->samples : -1;
    default: return P; /* occlusion: each player left out once */
    }
}

EeStatus ee_coalition_draw(const EeCoalitionOptions *m, uint64_t seed, long row, int P, uint8_t *Z, double *w)
{
    if (ee_coalition_count(m, P) < 0) return ee_fail(EE_ERR_INPUT, "invalid options of a coalition method");
    switch (m->kind) {
    case EE_COAL_KERNELSHAP: return ee_kernelshap_draw(m, seed, row, P, Z, w);
    case EE_COAL_LIME: return ee_lime_draw(m, seed, row, P, Z, w);
    default:
        for (int p = 0; p < P; p++) {
            memset(Z + (size_t)p * P, 1, (size_t)P);
            Z[(size_t)p * P + p] = 0;
            w[p] = 1;
        }
        return EE_OK;
    }
}

EeStatus ee_coalition_solve(const EeCoalitionOptions *m, int P, long n, const uint8_t *Z, const double *w,
                            const double *v, double v0, double v1, double *phi)
{
    switch (m->kind) {
    case EE_COAL_KERNELSHAP: return ee_kernelshap_solve(P, n, Z, w, v, v0, v1, phi);
    case EE_COAL_LIME: return ee_lime_solve(m, P, n, Z, w, v, phi);
    default:
        /* Z row p leaves out player p (ee_coalition_draw) */
        for (int p = 0; p < P; p++) phi[p] = v1 - v[p];
        return EE_OK;
    }
}

EeStatus ee_coalition_rows(const EeCoalitionOptions *m, const EeCoalitionValueFn *vf, int N, int P, uint64_t seed,
                           long row_offset, double *phi, double *delta)
{
    if (!m || !vf || !vf->values || N < 0 || P < 0 || (N > 0 && !phi))
        return ee_fail(EE_ERR_INPUT, "coalition method: missing argument");
    long n = ee_coalition_count(m, P);
    if (n < 0) return ee_fail(EE_ERR_INPUT, "invalid options of the coalition method");
    uint8_t *Z = malloc((size_t)n * P + 1);
    double *w = malloc(sizeof(double) * ((size_t)n + 1)), *v = malloc(sizeof(double) * ((size_t)n + 1));
    EeStatus st = Z && w && v ? EE_OK : ee_fail(EE_ERR_NOMEM, "out of memory for %ld coalitions", n);
    for (int i = 0; i < N && !st; i++) {
        double v0 = 0, v1 = 0, *p = phi + (size_t)i * P;
        if (ee_interrupted()) { st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during a coalition method"); break; }
        if ((st = ee_coalition_draw(m, seed, row_offset + i, P, Z, w))) break;
        if ((st = vf->values(vf->ctx, row_offset + i, P, n, Z, v, &v0, &v1))) break;
        if ((st = ee_coalition_solve(m, P, n, Z, w, v, v0, v1, p))) break;
        if (delta) {
            double sum = 0;
            for (int q = 0; q < P; q++) sum += p[q];
            delta[i] = sum - (v1 - v0);
        }
    }
    free(Z); free(w); free(v);
    return st;
}
